import { escapeHtml } from '../../lib/html.js';

/**
 * Small helpers the partner's templates call to show data to a person rather than to a parser.
 * Those that return HTML escape everything they were given first; a template outputs them raw
 * (`<%~ %>`).
 */

/** Text whose `backticked` parts are code (the demo questions): escaped, then each pair becomes `<code>`. */
export function inlineCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/**
 * A URL short enough to read in a table: the path, and each query value cut to its first 8
 * characters (a signed link's token is hundreds long). `https://partner.example/results?token=eyJhbGciOi…`
 * reads `…/results?token=eyJhbGci…`. The link itself keeps the whole URL.
 */
export function shortUrl(url: string): string {
  if (!URL.canParse(url)) return url.length > 40 ? `${url.slice(0, 40)}…` : url;
  const u = new URL(url);
  const query = [...u.searchParams].map(([k, v]) => `${k}=${v.length > 8 ? `${v.slice(0, 8)}…` : v}`).join('&');
  return `…${u.pathname}${query ? `?${query}` : ''}`;
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"']+/g;

/** The http(s) URLs in a text, in order, without repeats. */
export function urlsIn(text: string): string[] {
  return [...new Set(text.match(URL_IN_TEXT) ?? [])];
}

/**
 * Plain text (an e-mail's text part) with its URLs made links: escaped first, then each URL wrapped.
 * `hrefOf` may send a link elsewhere than the URL it shows.
 */
export function linkify(text: string, hrefOf: (url: string) => string = (url) => url): string {
  return text
    .split(/(\bhttps?:\/\/[^\s<>"']+)/)
    .map((part, i) => (i % 2 === 1 ? `<a href="${escapeHtml(hrefOf(part))}">${escapeHtml(part)}</a>` : escapeHtml(part)))
    .join('');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/**
 * An e-mail's HTML part made ready for the dashboard's preview frame: every link opens in a new
 * tab, outside the frame (`<base target="_blank">`; the frame allows popups that escape its
 * sandbox, nothing else), and `hrefOf` may send a link elsewhere (the candidate link through the
 * dashboard, so that following it is not the candidate opening it). Only double-quoted `href`s
 * are read: the kit's templates write them so, and one missed opens unchanged in the new tab.
 */
export function mailPreviewHtml(html: string, hrefOf: (url: string) => string): string {
  const rewritten = html.replace(/(\shref=")([^"]*)"/gi, (_all, attr: string, href: string) => {
    const url = href.replace(/&(amp|lt|gt|quot|#39);/g, (_e, name: string) => ENTITIES[name]!);
    return `${attr}${escapeHtml(hrefOf(url))}"`;
  });
  const base = '<base target="_blank">';
  // Inside <head>, else right after <html> or the doctype (the parser opens the head there itself).
  const at = [/<head\b[^>]*>/i, /<html\b[^>]*>/i, /<!doctype[^>]*>/i].map((tag) => tag.exec(rewritten)).find((m) => m !== null);
  const end = at ? at.index + at[0].length : 0;
  return rewritten.slice(0, end) + base + rewritten.slice(end);
}

/** A JSON text parsed, or undefined when it is not JSON (a non-JSON answer from a proxy, say). */
export function parseJson(text: string | null | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A JSON text indented for reading; other text as it is. */
export function prettyJson(text: string | null | undefined): string {
  if (!text) return '';
  const parsed = parseJson(text);
  return parsed === undefined ? text : JSON.stringify(parsed, null, 2);
}

