import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Customer tokens, the credential the platform sends on every callback.
 *
 *   ptk_ 3F9aK2mQx7Lw 7HcXq…(32)… 0a9ZbQ
 *   └┬─┘ └────┬─────┘ └────┬─────┘ └─┬──┘
 *  prefix   lookup      secret    checksum (CRC32 of everything before it, base62)
 *
 * - The prefix makes a leaked token recognisable (secret scanners, logs, support tickets).
 * - The checksum lets the server refuse a mistyped or made-up token without touching the database.
 * - `lookup` (12 base62 characters, ~71 bits) finds the row; it is not secret on its own.
 * - The whole token carries 44 random base62 characters (~262 bits); only its SHA-256 digest is
 *   stored, and the digest is compared in constant time.
 */
export const TOKEN_PREFIX = 'ptk_';
const LOOKUP_LENGTH = 12;
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TOKEN_LENGTH = TOKEN_PREFIX.length + LOOKUP_LENGTH + SECRET_LENGTH + CHECKSUM_LENGTH;
const TOKEN_SHAPE = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${LOOKUP_LENGTH + SECRET_LENGTH + CHECKSUM_LENGTH}}$`);

export interface IssuedToken {
  token: string;
  lookup: string;
  digest: Buffer;
}

export function issueToken(): IssuedToken {
  let body = '';
  // randomInt draws without modulo bias.
  for (let i = 0; i < LOOKUP_LENGTH + SECRET_LENGTH; i++) body += BASE62[randomInt(62)];
  const unsigned = TOKEN_PREFIX + body;
  const token = unsigned + checksum(unsigned);
  return { token, lookup: body.slice(0, LOOKUP_LENGTH), digest: digestToken(token) };
}

/** The lookup key of a well-formed token, or undefined when the shape or checksum is wrong. */
export function parseToken(token: string): { lookup: string } | undefined {
  if (token.length !== TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) return undefined;
  const unsigned = token.slice(0, -CHECKSUM_LENGTH);
  if (checksum(unsigned) !== token.slice(-CHECKSUM_LENGTH)) return undefined;
  return { lookup: token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + LOOKUP_LENGTH) };
}

export function digestToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Constant-time comparison of a presented token with a stored digest. */
export function tokenMatches(token: string, storedDigest: Buffer): boolean {
  const digest = digestToken(token);
  return digest.length === storedDigest.length && timingSafeEqual(digest, storedDigest);
}

function checksum(text: string): string {
  let n = crc32(text);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}
