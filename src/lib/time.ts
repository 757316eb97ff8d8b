import { escapeHtml } from './html.js';

/**
 * How both halves' pages show a moment: "23 Nov 2026, 10:42:01 UTC". A server-rendered page cannot
 * know the reader's time zone (and runs no script to find out), so times read in UTC, spelled out,
 * with the exact ISO value a hover away (`timeHtml`).
 */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** An ISO timestamp as "23 Nov 2026, 10:42:01 UTC"; anything that is not a date comes back as it was. */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const date = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  return `${date}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC`;
}

/**
 * A `<time>` element for templates (output raw, `<%~ it.time(x) %>`: it escapes what it holds):
 * the readable form, with the ISO value as its `datetime` and as a `title` tooltip. Null or
 * undefined gives `otherwise` (escaped), so a template can write `it.time(x, 'not yet')`.
 */
export function timeHtml(iso: string | null | undefined, otherwise = ''): string {
  if (iso === null || iso === undefined || iso === '') return escapeHtml(otherwise);
  const exact = escapeHtml(iso);
  return `<time datetime="${exact}" title="${exact}">${escapeHtml(formatTime(iso))}</time>`;
}
