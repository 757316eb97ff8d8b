import { parseAuthorization } from './authorization.js';

/**
 * The key of `Authorization: Basic base64("<key>:")`, the scheme in any case: how Greenhouse and
 * Ashby send the key a partner gave its customer (RFC 7617, the key as user name, the password
 * empty). undefined for another scheme, a malformed value, no colon, or a password that is not
 * empty [kit decision: strict] — which a platform's routes answer 401.
 */
export function basicKey(header: string | undefined): string | undefined {
  const parsed = parseAuthorization(header);
  if (parsed?.scheme !== 'basic' || !/^[A-Za-z0-9+/]+={0,2}$/.test(parsed.credentials)) return undefined;
  const decoded = Buffer.from(parsed.credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon !== decoded.length - 1) return undefined;
  return decoded.slice(0, colon);
}

/** `Basic base64("<key>:")`: how the partner authenticates with a platform's key of the customer's. */
export function basicHeader(key: string): string {
  return `Basic ${Buffer.from(`${key}:`, 'utf8').toString('base64')}`;
}
