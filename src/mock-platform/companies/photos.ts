import { Router } from 'express';
import type { Db } from '../../lib/db.js';
import { notFound } from '../../lib/errors.js';

/** Background colours of the thumbnails, picked by candidate id. */
const COLOURS = ['#2e90fa', '#12b76a', '#f79009', '#7a5af8', '#ee46bc', '#06aed4', '#667085'];

const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** "Ada Lovelace" → "AL"; one name → its first letter; nothing usable → "?". */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/u).filter(Boolean);
  const letters = [words[0], words.length > 1 ? words.at(-1) : undefined].map((w) => (w ? [...w][0]!.toUpperCase() : ''));
  return letters.join('') || '?';
}

/**
 * `/photos/candidates/{id}/thumb.svg`: the thumbnail every candidate's `photo_thumb_url` points to
 * [kit decision] — a 96×96 SVG with the candidate's initials, so a receiver that shows or fetches
 * the thumbnail gets an image. Unknown or deleted candidates are a 404.
 */
export function photosRouter(db: Db): Router {
  const candidate = db.prepare<[number], { id: number; name: string }>(
    'SELECT id, name FROM candidates WHERE id = ? AND deleted_at IS NULL',
  );
  const router = Router();
  router.get('/candidates/:candidateId/thumb.svg', (req, res) => {
    const id = /^[1-9]\d{0,15}$/.test(req.params.candidateId) ? Number(req.params.candidateId) : undefined;
    const row = id === undefined ? undefined : candidate.get(id);
    if (!row) throw notFound('Unknown candidate');
    const colour = COLOURS[row.id % COLOURS.length]!;
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96" role="img">` +
      `<rect width="96" height="96" rx="48" fill="${colour}"/>` +
      `<text x="48" y="48" dy=".35em" text-anchor="middle" font-family="sans-serif" font-size="36" fill="#fff">${escapeXml(initials(row.name))}</text>` +
      `</svg>`;
    // Shown by receivers on other origins (a partner's dashboard): helmet's same-origin would block it.
    res.set({ 'Cache-Control': 'public, max-age=300', 'Cross-Origin-Resource-Policy': 'cross-origin' });
    res.type('image/svg+xml').send(svg);
  });
  return router;
}
