import { describe, expect, it } from 'vitest';
import { loadConfig, type ConfigError } from '../../../src/partner/config.js';
import { kitPlatforms } from '../../../src/partner/platforms/index.js';
import { catalogHash, packagesOf } from '../../../src/partner/platforms/hibob/catalog.js';
import { hibobDelivery, statusUpdate } from '../../../src/partner/platforms/hibob/delivery.js';
import { HibobSettings } from '../../../src/partner/platforms/hibob/settings.js';
import { signBobBody, verifyBobSignature } from '../../../src/partner/platforms/hibob/signature.js';
import type { BobTokenKeeper } from '../../../src/partner/platforms/hibob/tokens.js';
import { readDetails, UnusableDetails } from '../../../src/partner/platforms/hibob/wire.js';

/** What the kit decides in HiBob's words (docs/hibob.md), function by function. */

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env, kitPlatforms());
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
};

describe('settings', () => {
  it('take https, or plain http on a loopback address only, whatever PUBLIC_URL is', () => {
    expect(problemsOf({ PUBLIC_URL: 'https://partner.example', CANDIDATE_LINK_SECRET: 'x'.repeat(40), ADMIN_TOKEN: 'y'.repeat(30), HIBOB_API_URL: 'http://127.0.0.1:4000/hibob/v1', HIBOB_TOKEN_URL: 'http://localhost:4000/token' })).toEqual([]);
    expect(problemsOf({ HIBOB_API_URL: 'http://bob.example/v1', HIBOB_TOKEN_URL: 'https://u:p@auth.example/token?x=1' })).toEqual([
      "HIBOB_API_URL: must be https: each company's access token travels with every call (plain http is allowed only on a loopback address)",
      'HIBOB_TOKEN_URL: must not hold a user name or password',
      'HIBOB_TOKEN_URL: must not hold a query or a fragment',
    ]);
    expect(HibobSettings.parse({ HIBOB_API_URL: 'https://bob.example/v1//' }).apiUrl).toBe('https://bob.example/v1');
  });

  it('say which of the three settings HiBob needs are missing', () => {
    expect(HibobSettings.parse({}).missing).toEqual(['HIBOB_CLIENT_ID', 'HIBOB_CLIENT_SECRET', 'HIBOB_WEBHOOK_SECRET']);
    expect(HibobSettings.parse({ HIBOB_CLIENT_ID: 'a', HIBOB_CLIENT_SECRET: ' ', HIBOB_WEBHOOK_SECRET: 'c' }).missing).toEqual(['HIBOB_CLIENT_SECRET']);
  });
});

describe('Bob-Signature', () => {
  const raw = Buffer.from('{"companyId":"1","type":"assessment.triggered","data":{"assessmentRequestId":"2"}}');
  const good = signBobBody('secret', raw);

  it('is the standard Base64 of the HMAC-SHA512 of the exact bytes', () => {
    expect(good).toBe('iM1SzXxQlU83HBj6EWe0nrjITH1omUHNQXrdF+VjsCALzNes9ZXwsi6JKMFLI/5wnv1d7UtZohekX5Lem+ZXiw==');
    expect(verifyBobSignature('secret', raw, good)).toBe(true);
    expect(verifyBobSignature('secret', raw, ` ${good} `)).toBe(true);
  });

  it.each([
    ['missing', undefined],
    ['repeated', [good, good]],
    ['URL-safe Base64', good.replace(/\+/g, '-').replace(/\//g, '_')],
    ['without its padding', good.replace(/=+$/, '')],
    ['hex', Buffer.from(good, 'base64').toString('hex')],
    ['of another secret', signBobBody('other', raw)],
    ['of other bytes', signBobBody('secret', Buffer.concat([raw, Buffer.from(' ')]))],
  ])('refuses a signature %s', (_what, header) => {
    expect(verifyBobSignature('secret', raw, header)).toBe(false);
  });
});

describe("an order's details", () => {
  it('are read under the names they most likely have, and kept short', () => {
    expect(
      readDetails({
        data: {
          candidate: { first_name: ' Ada ', last_name: 'Lovelace', workEmail: 'ADA@example.com' },
          requestedBy: { firstName: 'Grace', lastName: 'Hopper' },
          job: { id: 12, name: 'Engineer' },
          package: { packageId: 'pkg-1' },
        },
      }),
    ).toEqual({
      candidate: { firstName: 'Ada', lastName: 'Lovelace', email: 'ADA@example.com' },
      packageId: 'pkg-1',
      requester: { name: 'Grace Hopper' },
      jobOpening: { id: '12', title: 'Engineer' },
    });
    expect(readDetails({ candidate: { email: 'solo@example.com' }, package_id: '3' }).candidate).toEqual({ firstName: 'solo', lastName: '', email: 'solo@example.com' });
  });

  it.each([
    ['no e-mail', { candidate: { firstName: 'Ada' }, packageId: '1' }, 'no valid candidate e-mail'],
    ['a bad e-mail', { candidate: { email: 'not an address' }, packageId: '1' }, 'no valid candidate e-mail'],
    ['no package', { candidate: { email: 'ada@example.com' } }, 'name no package'],
    ['no object', ['a'], 'no object'],
  ])('with %s make no invitation', (_what, body, message) => {
    expect(() => readDetails(body)).toThrow(UnusableDetails);
    expect(() => readDetails(body)).toThrow(message);
  });
});

describe('the update-status PATCH', () => {
  it("says a result in Bob's words: the status, the score's number, the results page, the subtitle and the properties", () => {
    expect(
      statusUpdate({
        status: 'completed',
        score: '87%',
        score_value: 87,
        subtitle: 'Senior',
        properties: [
          { label: 'Time', value: '42 min' },
          { label: 'Level', value: 'B2' },
        ],
        urls: { show: 'https://partner.example/results?token=t' },
        completed_at: '2026-03-01T10:00:00.000Z',
        at: '2026-03-01T10:00:00.000Z',
      }),
    ).toEqual({ status: 'completed', score: 87, resultUrl: 'https://partner.example/results?token=t', verdict: 'Senior', comments: 'Time: 42 min\nLevel: B2' });
    expect(statusUpdate({ status: 'failed', score: 'C', score_value: null })).toEqual({ status: 'failed' });
  });

  it('says nothing of the start, progress or a cancel', () => {
    expect(statusUpdate({ started: true, urls: { show: 'https://partner.example/results?token=t' } })).toBeUndefined();
    expect(statusUpdate({ stage: 'started' })).toBeUndefined();
    expect(statusUpdate({ status: 'canceled', canceled_by: 'vendor', cancel_reason: null })).toBeUndefined();
  });

  const tokens = { accessToken: async () => 'access-token', markRefused: async () => undefined } as unknown as BobTokenKeeper;
  const settings = HibobSettings.parse({ HIBOB_CLIENT_ID: 'a', HIBOB_CLIENT_SECRET: 'b', HIBOB_WEBHOOK_SECRET: 'c' });
  const target = (data: Record<string, unknown>) => ({ reportId: '90417', accountId: 1, data, credential: async () => undefined });
  const result = { status: 'completed' as const, score_value: 80, urls: { show: 'http://partner.example/results?token=t' } };

  it('is a dead letter rather than a results page Bob would refuse: http, while the partner is reachable from elsewhere', async () => {
    const elsewhere = hibobDelivery({ settings, tokens, localOnly: false });
    await expect(elsewhere.deliveryRequest(target({ company_id: '1' }), result)).rejects.toThrow(
      'the results page http://partner.example is not https, and Bob refuses a resultUrl that is not HTTPS: set PUBLIC_URL to the partner\'s https address, then retry',
    );
    const local = hibobDelivery({ settings, tokens, localOnly: true });
    expect(await local.deliveryRequest(target({ company_id: '1' }), result)).toEqual({
      url: 'https://api.hibob.com/v1/hiring/assessments/90417',
      method: 'PATCH',
      headers: { authorization: 'Bearer access-token', 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'completed', score: 80, resultUrl: 'http://partner.example/results?token=t' }),
    });
  });

  it('is a dead letter naming what is missing when HiBob is not configured, or the order names no company', async () => {
    const bare = hibobDelivery({ settings: HibobSettings.parse({}), tokens, localOnly: true });
    await expect(bare.deliveryRequest(target({ company_id: '1' }), result)).rejects.toThrow(/^HiBob is not configured on this partner: set HIBOB_CLIENT_ID/);
    await expect(hibobDelivery({ settings, tokens, localOnly: true }).deliveryRequest(target({}), result)).rejects.toThrow('the invitation names no Bob company');
  });
});

describe('the catalog', () => {
  it("is the account's tests as packages: ids as text, blank and repeated ones left out; its hash follows them", () => {
    const packages = packagesOf([
      { id: 1, name: ' JavaScript ' },
      { id: '2', name: '  ' },
      { id: 1, name: 'Again' },
      { id: 'sql', name: 'SQL' },
    ]);
    expect(packages).toEqual([
      { id: '1', name: 'JavaScript' },
      { id: 'sql', name: 'SQL' },
    ]);
    expect(catalogHash(packages)).toBe(catalogHash([...packages]));
    expect(catalogHash(packages)).not.toBe(catalogHash(packages.slice(1)));
  });
});
