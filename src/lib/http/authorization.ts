/**
 * The `Authorization` header, read once for both servers: the callbacks' customer token, the
 * dashboard's Basic and ADMIN_TOKEN, the mock's API tokens.
 *
 * `<scheme> <credentials>` (RFC 9110 §11.6.2, formerly RFC 7235): the scheme is case-insensitive,
 * so `Bearer`, `bearer` and `BEARER` are one, and it is returned in lower case; any run of spaces
 * or tabs may separate it from the credentials, and spaces around both are ignored. Undefined for
 * no header, or a scheme that is not a token (`:abc`, an empty header).
 */
export function parseAuthorization(header: string | undefined): { scheme: string; credentials: string } | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  const gap = text.search(/[ \t]/);
  const scheme = gap === -1 ? text : text.slice(0, gap);
  if (!SCHEME.test(scheme)) return undefined;
  return { scheme: scheme.toLowerCase(), credentials: gap === -1 ? '' : text.slice(gap).trim() };
}

/** The token of `Authorization: Bearer <token>`, the scheme in any case; undefined for anything else. */
export function bearerToken(header: string | undefined): string | undefined {
  const parsed = parseAuthorization(header);
  return parsed?.scheme === 'bearer' && parsed.credentials !== '' ? parsed.credentials : undefined;
}

/** An auth-scheme is an HTTP token (RFC 9110 §5.6.2). */
const SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
