import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * [kit decision] How the vendor's product signs a result it posts to
 * `POST /vendor/reports/{report_id}/result` (docs/results-endpoint.md):
 *
 *   X-Vendor-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<report_id>.<raw body>" keyed with VENDOR_RESULTS_SECRET>
 *
 * The timestamp is inside the signed bytes, so a captured request cannot be replayed after the
 * tolerance; the report id of the path is too, so it cannot be sent to another report (a report id
 * is a UUID, which holds no dot: the three parts cannot be told apart otherwise); the body is
 * signed byte for byte, so nothing in it can be changed; only the shared secret's holder can sign.
 * Several `v1=` are accepted (any one matching is enough), so the sender can sign with the old and
 * the new secret while the secret is rotated.
 */
export const VENDOR_SIGNATURE_HEADER = 'x-vendor-signature';
/** How far the signed timestamp may be from this server's clock, either way. */
export const VENDOR_SIGNATURE_TOLERANCE_MS = 5 * 60_000;
/** The shortest secret accepted (VENDOR_RESULTS_SECRET), as for the link secret. */
export const VENDOR_SECRET_MIN_LENGTH = 32;

const MAX_HEADER_LENGTH = 1024;
const MAX_SIGNATURES = 8;
const HEX_SHA256 = /^[0-9a-f]{64}$/;

/**
 * The `X-Vendor-Signature` value for `body` posted to `/vendor/reports/{reportId}/result` at
 * `timestampSeconds` (now by default).
 */
export function signVendorResult(secret: string, reportId: string, body: Buffer | string, timestampSeconds = Math.floor(Date.now() / 1000)): string {
  return `t=${timestampSeconds},v1=${vendorSignature(secret, timestampSeconds, reportId, body)}`;
}

function vendorSignature(secret: string, timestampSeconds: number | string, reportId: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${reportId}.`).update(body).digest('hex');
}

export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing' | 'malformed' | 'stale' | 'mismatch' };

/**
 * Checks `header` against the report id of the path as sent, `body` and `secret` at `nowMs`.
 * Never throws: a header of any shape, a signature of the wrong length or not hex, is an answer
 * (`ok: false`), not an error. Every `v1` of the right shape (hex, either case) is compared in
 * constant time, all of them (no early exit).
 */
export function verifyVendorSignature(secret: string, reportId: string, body: Buffer, header: unknown, nowMs: number): SignatureCheck {
  if (header === undefined || header === '') return { ok: false, reason: 'missing' };
  if (typeof header !== 'string' || header.length > MAX_HEADER_LENGTH) return { ok: false, reason: 'malformed' };
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return { ok: false, reason: 'malformed' };
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return { ok: false, reason: 'malformed' };
      timestamp = value;
    } else if (key === 'v1') {
      signatures.push(value);
    }
    // Other schemes (v0, a future v2) are ignored, as Stripe's receivers do.
  }
  if (timestamp === undefined || signatures.length === 0 || signatures.length > MAX_SIGNATURES) return { ok: false, reason: 'malformed' };
  if (Math.abs(nowMs - Number(timestamp) * 1000) > VENDOR_SIGNATURE_TOLERANCE_MS) return { ok: false, reason: 'stale' };

  const expected = Buffer.from(vendorSignature(secret, timestamp, reportId, body), 'hex');
  let ok = false;
  for (const signature of signatures) {
    // Only 64 hex characters can be a signature: anything else (wrong length, not hex) never
    // reaches timingSafeEqual, which throws on buffers of unequal length.
    const given = HEX_SHA256.test(signature.toLowerCase()) ? Buffer.from(signature, 'hex') : undefined;
    if (given?.length === expected.length) ok = timingSafeEqual(expected, given) || ok;
  }
  return ok ? { ok: true } : { ok: false, reason: 'mismatch' };
}
