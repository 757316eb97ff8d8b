import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/partner/config.js';
import { credentialSealer } from '../../../src/partner/platforms/greenhouse/credential.js';
import { UndeliverableError, greenhouseDeliveryRequest } from '../../../src/partner/platforms/greenhouse/delivery.js';
import { basicKey } from '../../../src/lib/http/basic-key.js';

/** The PATCH "the test is complete" (docs/greenhouse.md §3), and the Basic key Greenhouse calls with. */
const SECRET = 'test-link-secret-0123456789abcdefghijklmnop';
const REPORT = '7d0c8f0e-0f6b-4c55-9a53-2b0d5b8f4e21';
const KEY = 'ptk_0123456789abcdef_0123456789abcdef0123456789abcdef';
const URL_ = 'https://app.greenhouse.io/integrations/testing_partners/take_home_tests/12345';
const sealer = credentialSealer(SECRET);
const rules = { patchHosts: [], loopback: false };
const target = (data: Record<string, unknown> = {}) => ({
  reportId: REPORT,
  accountId: 1,
  data: { url: URL_, key: sealer.seal(REPORT, KEY), ...data },
  credential: async () => undefined,
});
const basic = (text: string) => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;

describe('the PATCH', () => {
  it.each(['completed', 'failed'] as const)('is sent for a %s result: to the url, with the key as the Basic user name, without a body; the key is then forgotten', (status) => {
    const request = greenhouseDeliveryRequest(target({ sent_by: 'x' }), { status, score: '80%' }, { sealer, rules });
    expect(request).toEqual({ url: URL_, method: 'PATCH', headers: { authorization: basic(`${KEY}:`) }, platformDataAfter: { url: URL_, sent_by: 'x' } });
  });

  it.each([{ started: true as const, urls: { show: 'https://partner.example/results?token=x' } }, { status: 'canceled' as const }, { status: 'sent' as const }])(
    'is not sent for %j: Greenhouse has no word for it',
    (update) => {
      expect(greenhouseDeliveryRequest(target(), update, { sealer, rules })).toBeUndefined();
    },
  );

  it('is undeliverable, with the reason, when the key no longer opens (CANDIDATE_LINK_SECRET rotated)', () => {
    const rotated = credentialSealer(`${SECRET}-rotated`);
    expect(() => greenhouseDeliveryRequest(target(), { status: 'completed' }, { sealer: rotated, rules })).toThrow(UndeliverableError);
    expect(() => greenhouseDeliveryRequest(target(), { status: 'completed' }, { sealer: rotated, rules })).toThrow(/CANDIDATE_LINK_SECRET changed/);
  });

  it('is undeliverable when its url is no longer allowed: no request reaches a host since refused', () => {
    const local = loadConfig({});
    const stored = target({ url: 'http://127.0.0.1:9/patch' });
    expect(greenhouseDeliveryRequest(stored, { status: 'completed' }, { sealer, rules: { patchHosts: [], loopback: local.localOnly } })).toMatchObject({ method: 'PATCH' });
    expect(() => greenhouseDeliveryRequest(stored, { status: 'completed' }, { sealer, rules })).toThrow(/no longer allowed: it must not be a loopback address/);
  });
});

describe('the Basic key', () => {
  it('is the user name of a Basic header with an empty password, the scheme in any case', () => {
    expect(basicKey(basic(`${KEY}:`))).toBe(KEY);
    expect(basicKey(basic(`${KEY}:`).replace('Basic', 'bASIC'))).toBe(KEY);
  });

  it.each([
    ['no header', undefined],
    ['a Bearer token', `Bearer ${KEY}`],
    ['a password', basic(`${KEY}:secret`)],
    ['no colon', basic(KEY)],
    ['an empty user name', basic(':')],
    ['a colon in the password', basic(`${KEY}::`)],
    ['not base64', 'Basic not*base64'],
    ['nothing after the scheme', 'Basic'],
  ])('is refused with %s', (_what, header) => {
    expect(basicKey(header)).toBeUndefined();
  });
});
