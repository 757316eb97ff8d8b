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

/** Plain text (an e-mail's text part) with its URLs made links: escaped first, then each URL wrapped. */
export function linkify(text: string): string {
  return text
    .split(/(\bhttps?:\/\/[^\s<>"']+)/)
    .map((part, i) => (i % 2 === 1 ? `<a href="${escapeHtml(part)}">${escapeHtml(part)}</a>` : escapeHtml(part)))
    .join('');
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

