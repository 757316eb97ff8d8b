import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signWebhookBody, verifyWebhookSignature } from '../../src/contract/signature.js';
import { anyString } from '../support/arbitraries.js';

/**
 * Signature vectors. The expected digests were computed outside this code base, with
 * `printf '%s' "$BODY" | openssl dgst -sha256 -hmac "$SECRET"`, and pasted here as literals.
 */
const SECRET = 'kat-secret-0123456789abcdef';

const KNOWN_ANSWER = {
  body: '{"id":4711,"attempt_count":1,"created_at":"2026-03-02T08:00:00.000Z","event_type":"candidate_deleted","event_subtype":"manual","payload":{"company":{"id":1,"name":"Acme Corp"},"candidate":{"id":17}}}',
  signature: '975e7ca8edba4a37eeee20d2806ffbb8fa9f5edc5374d49e58034dff615186c3',
};

const VECTORS = [
  { name: 'the test request', body: '{"test":true}', bytes: 13, signature: 'e0bed44b59003e5cb24c2d02f9ca71812612c9af32b9e4d94f9df40f41b338df' },
  { name: 'the test request with spaces', body: '{ "test" : true }', bytes: 17, signature: '1b0b74af7b184a2f62fa90dc1853fee0775558ab9860305f567cb4cc8082d09e' },
  { name: 'an emoji and an accent (multi-byte UTF-8)', body: '{"candidate":{"name":"Zoë 🎉 Ng"}}', bytes: 37, signature: 'ad96e5fcd37cfc32c39e5c550e254913f2056e3303c7306287e8156ddacae334' },
  { name: 'a raw U+2028 line separator', body: '{"note":"line\u2028break"}', bytes: 23, signature: '8a6fc5c48caa64abbd439183529a720b7cea811d08c41d1cf43f5ab3ab8f06d4' },
  { name: 'ESC written as the \\u001b escape', body: '{"note":"\\u001b[31mred\\u001b[0m"}', bytes: 33, signature: '4ebb3b1114c6fbf89a646cff669f275d39d5f594d0b34c4346e3883851c20256' },
  { name: 'a raw ESC byte (0x1B)', body: '{"note":"\u001b[31mred"}', bytes: 19, signature: 'defd93eba38e6fbcbc7a125fe6cef279dc9130281bf7ad7da6a376890eb66032' },
  { name: 'spaces a re-serialisation would drop', body: '{"id":4711, "attempt_count":1}', bytes: 30, signature: '41c400ca5c6e235cb3aa19db8ecb556c01d43962a84729ed3da051a1a8c09667' },
];

describe('webhook signature vectors', () => {
  it('matches the known answer computed with openssl, as text and as bytes', () => {
    expect(signWebhookBody(SECRET, KNOWN_ANSWER.body)).toBe(KNOWN_ANSWER.signature);
    expect(signWebhookBody(SECRET, Buffer.from(KNOWN_ANSWER.body, 'utf8'))).toBe(KNOWN_ANSWER.signature);
    expect(verifyWebhookSignature([SECRET], Buffer.from(KNOWN_ANSWER.body), KNOWN_ANSWER.signature)).toBe(true);
  });

  it.each(VECTORS)('signs and verifies $name', ({ body, bytes, signature }) => {
    const raw = Buffer.from(body, 'utf8');
    expect(raw.length).toBe(bytes);
    expect(signWebhookBody(SECRET, raw)).toBe(signature);
    expect(verifyWebhookSignature([SECRET], raw, signature)).toBe(true);
  });

  it('refuses a body with one bit flipped', () => {
    const raw = Buffer.from(KNOWN_ANSWER.body);
    raw[40]! ^= 0x01;
    expect(verifyWebhookSignature([SECRET], raw, KNOWN_ANSWER.signature)).toBe(false);
  });

  it('refuses a signature made with another secret', () => {
    expect(verifyWebhookSignature(['kat-secret-0123456789abcdeF'], Buffer.from(KNOWN_ANSWER.body), KNOWN_ANSWER.signature)).toBe(false);
    expect(verifyWebhookSignature([], Buffer.from(KNOWN_ANSWER.body), KNOWN_ANSWER.signature)).toBe(false);
    expect(verifyWebhookSignature([''], Buffer.from(KNOWN_ANSWER.body), KNOWN_ANSWER.signature)).toBe(false);
  });

  it('accepts either secret during a rotation, and only those', () => {
    const raw = Buffer.from(KNOWN_ANSWER.body);
    expect(verifyWebhookSignature(['new-secret-after-rotation', SECRET], raw, KNOWN_ANSWER.signature)).toBe(true);
    expect(verifyWebhookSignature([SECRET, 'new-secret-after-rotation'], raw, KNOWN_ANSWER.signature)).toBe(true);
    expect(verifyWebhookSignature(['new-secret-after-rotation', 'another'], raw, KNOWN_ANSWER.signature)).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['63 hex characters', KNOWN_ANSWER.signature.slice(0, 63)],
    ['65 hex characters', `${KNOWN_ANSWER.signature}0`],
    ['uppercase hex', KNOWN_ANSWER.signature.toUpperCase()],
    ['with a sha256= prefix', `sha256=${KNOWN_ANSWER.signature}`],
    ['with surrounding spaces', ` ${KNOWN_ANSWER.signature} `],
    ['non-ASCII', 'é'.repeat(64)],
    ['64 characters that are not hex', 'z'.repeat(64)],
    ['base64 of the digest', Buffer.from(KNOWN_ANSWER.signature, 'hex').toString('base64')],
    ['sent twice (joined by the HTTP parser)', `${KNOWN_ANSWER.signature}, ${KNOWN_ANSWER.signature}`],
    ['sent twice (as an array)', [KNOWN_ANSWER.signature, KNOWN_ANSWER.signature]],
  ] as const)('refuses a header that is %s, without throwing', (_name, header) => {
    expect(() => verifyWebhookSignature([SECRET], Buffer.from(KNOWN_ANSWER.body), header as string | string[] | undefined)).not.toThrow();
    expect(verifyWebhookSignature([SECRET], Buffer.from(KNOWN_ANSWER.body), header as string | string[] | undefined)).toBe(false);
  });

  it('does not verify a body re-serialised by JSON.stringify: only the raw bytes count', () => {
    const spaced = VECTORS.find((v) => v.name.startsWith('spaces'))!;
    const reserialised = JSON.stringify(JSON.parse(spaced.body));
    expect(reserialised).not.toBe(spaced.body);
    expect(verifyWebhookSignature([SECRET], reserialised, spaced.signature)).toBe(false);
    // The known answer happens to be compact JSON already; JSON.stringify keeps its bytes, so it verifies.
    expect(verifyWebhookSignature([SECRET], JSON.stringify(JSON.parse(KNOWN_ANSWER.body)), KNOWN_ANSWER.signature)).toBe(true);
  });
});

describe('webhook signature properties', () => {
  const secret = anyString({ minLength: 1, maxLength: 64 });
  const body = fc.uint8Array({ minLength: 0, maxLength: 2048 }).map((a) => Buffer.from(a));

  it('verify accepts whatever sign produced, for any secret and body', () => {
    fc.assert(
      fc.property(secret, body, (s, b) => verifyWebhookSignature([s], b, signWebhookBody(s, b))),
      { numRuns: 500 },
    );
  });

  it('verify refuses the body with any one byte changed', () => {
    fc.assert(
      fc.property(
        secret,
        body.filter((b) => b.length > 0),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (s, b, index, delta) => {
          const signature = signWebhookBody(s, b);
          const changed = Buffer.from(b);
          const i = index % changed.length;
          changed[i] = (changed[i]! + delta) % 256;
          return !verifyWebhookSignature([s], changed, signature);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('verify never throws, whatever the header, secrets and body', () => {
    const header = fc.oneof(
      fc.constant(undefined),
      anyString({ maxLength: 130 }),
      fc.string({ minLength: 60, maxLength: 70, unit: fc.constantFrom(...'0123456789abcdefABCDEF') }),
      fc.array(fc.string({ maxLength: 70 }), { maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.array(anyString({ maxLength: 40 }), { maxLength: 3 }), body, header, (secrets, b, h) => {
        const result = verifyWebhookSignature(secrets, b, h);
        return typeof result === 'boolean';
      }),
      { numRuns: 1000 },
    );
  });
});
