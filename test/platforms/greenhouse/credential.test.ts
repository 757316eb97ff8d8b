import { describe, expect, it } from 'vitest';
import { CredentialError, credentialSealer } from '../../../src/partner/platforms/greenhouse/credential.js';

/** The customer key kept to sign the PATCH (docs/greenhouse.md §3): sealed under CANDIDATE_LINK_SECRET. */
const SECRET = 'test-link-secret-0123456789abcdefghijklmnop';
const REPORT = '7d0c8f0e-0f6b-4c55-9a53-2b0d5b8f4e21';
const OTHER_REPORT = '5b8f4e21-2b0d-4c55-9a53-7d0c8f0e0f6b';
const KEY = 'pik_live_0123456789abcdefghijklmnopqrstuvwx';

describe('the sealed customer key', () => {
  const sealer = credentialSealer(SECRET);

  it('opens to the key it sealed, and never shows the key in what is stored', () => {
    const stored = sealer.seal(REPORT, KEY);
    expect(stored).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(stored).not.toContain(KEY);
    expect(Buffer.from(stored.split('.')[2]!, 'base64url').toString('latin1')).not.toContain('pik_live');
    expect(sealer.open(REPORT, stored)).toBe(KEY);
  });

  it('is sealed with a fresh IV each time: the same key twice is stored differently', () => {
    const [a, b] = [sealer.seal(REPORT, KEY), sealer.seal(REPORT, KEY)];
    expect(a).not.toBe(b);
    expect(a.split('.')[1]).not.toBe(b.split('.')[1]);
  });

  it('does not open under another CANDIDATE_LINK_SECRET: a clear CredentialError, not a crash', () => {
    const stored = sealer.seal(REPORT, KEY);
    const rotated = credentialSealer(`${SECRET}-rotated`);
    expect(() => rotated.open(REPORT, stored)).toThrow(CredentialError);
    expect(() => rotated.open(REPORT, stored)).toThrow(/CANDIDATE_LINK_SECRET changed/);
  });

  it("does not open on another invitation's row, nor once altered", () => {
    const stored = sealer.seal(REPORT, KEY);
    expect(() => sealer.open(OTHER_REPORT, stored)).toThrow(CredentialError);
    const [v, iv, body, tag] = stored.split('.') as [string, string, string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[0]! ^= 1;
    expect(() => sealer.open(REPORT, [v, iv, flipped.toString('base64url'), tag].join('.'))).toThrow(CredentialError);
  });

  it.each([undefined, null, 42, '', 'pik_live_plain', 'v2.a.b.c', 'v1.AAAA.AAAA.AAAA'])('refuses %s as a stored key', (stored) => {
    expect(() => sealer.open(REPORT, stored)).toThrow(CredentialError);
  });
});
