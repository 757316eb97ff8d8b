import { PARTNER_SECRET_HEADER } from '../../contract/decisions.js';

/**
 * Credentials never reach the call log: the Authorization header keeps only its scheme, the
 * partner-secret header and cookies are replaced, and `secret`/`token` keys in JSON bodies (the
 * partner record carries its secret) are masked.
 */
const REDACTED = '[redacted]';
const SECRET_HEADERS = new Set([PARTNER_SECRET_HEADER, 'cookie', 'set-cookie', 'proxy-authorization']);
const SECRET_KEYS = new Set(['secret', 'token', 'password']);

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (key === 'authorization') {
      const scheme = /^(\S+)\s/.exec(text)?.[1];
      out[key] = scheme ? `${scheme} ${REDACTED}` : REDACTED;
    } else {
      out[key] = SECRET_HEADERS.has(key) ? REDACTED : text;
    }
  }
  return out;
}

/**
 * A JSON text with credential-named keys masked, at any depth. Text without such keys (or that is
 * not JSON) is returned byte for byte, so the log shows what was really on the wire.
 */
export function redactBody(body: string | null | undefined): string | null {
  if (body === undefined || body === null || body === '') return body ?? null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  let masked = false;
  const text = JSON.stringify(parsed, (key, value: unknown) => {
    if (!SECRET_KEYS.has(key.toLowerCase()) || typeof value !== 'string') return value;
    masked = true;
    return REDACTED;
  });
  return masked ? text : body;
}
