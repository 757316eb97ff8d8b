import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures [seed, platform-contract.md §1.1]: `X-Service-Signature` is the lowercase hex HMAC-SHA256 of the exact
 * bytes of the request body, keyed with the webhook secret. Sign and verify the raw bytes, never a
 * re-serialised object: `JSON.stringify` of the parsed body is not the same bytes.
 */
export function signWebhookBody(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/**
 * True when `signature` is the signature of `body` under one of `secrets` (two during a rotation).
 * Anything that is not exactly 64 lowercase hex characters is refused before any comparison, so a
 * wrong length can never reach `timingSafeEqual` (which throws on unequal lengths).
 */
export function verifyWebhookSignature(
  secrets: readonly string[],
  body: Buffer | string,
  signature: string | string[] | undefined,
): boolean {
  if (typeof signature !== 'string' || !HEX_SHA256.test(signature)) return false;
  const given = Buffer.from(signature, 'hex');
  let ok = false;
  // Check every secret (no early exit) so the time taken does not tell which one matched.
  for (const secret of secrets) {
    if (!secret) continue;
    const expected = createHmac('sha256', secret).update(body).digest();
    ok = timingSafeEqual(expected, given) || ok;
  }
  return ok;
}
