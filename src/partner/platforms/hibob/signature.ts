import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header Bob signs its webhooks in. */
export const BOB_SIGNATURE_HEADER = 'bob-signature';

/** The standard Base64 of a 64-byte digest: 86 characters and `==`. */
const BASE64_SHA512 = /^[A-Za-z0-9+/]{86}==$/;

/**
 * [kit decision, from the issue] `Bob-Signature`: the standard Base64 (RFC 4648 §4, padded) of the
 * HMAC-SHA512 of the exact bytes of the body, under HIBOB_WEBHOOK_SECRET. The header's value must be
 * exactly that — surrounding spaces aside, no prefix, no second value — and is compared with the
 * expected digest in constant time. Anything else (missing, repeated, not Base64, another length,
 * another secret, a byte of the body changed) is false.
 */
export function verifyBobSignature(secret: string, raw: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const given = header.trim();
  if (!BASE64_SHA512.test(given)) return false;
  const expected = createHmac('sha512', secret).update(raw).digest();
  return timingSafeEqual(Buffer.from(given, 'base64'), expected);
}

/** What Bob sends in `Bob-Signature` for `raw`: for the tests and the mock, which play Bob. */
export function signBobBody(secret: string, raw: string | Buffer): string {
  return createHmac('sha512', secret).update(raw).digest('base64');
}
