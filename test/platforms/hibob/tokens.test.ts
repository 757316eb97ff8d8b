import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/http/logger.js';
import { bobApi } from '../../../src/partner/platforms/hibob/api-client.js';
import { HibobSettings } from '../../../src/partner/platforms/hibob/settings.js';
import { bobTokens, HIBOB } from '../../../src/partner/platforms/hibob/tokens.js';
import { partnerHarness, type PartnerHarness } from '../../support/partner.js';
import { stubBob, type StubBob } from './stub-bob.js';

/**
 * A company's tokens as the partner keeps them (docs/hibob.md §3): refreshed once for callers at
 * once, the rotated refresh token stored, a refresh refused because another instance used the
 * token first settled with that instance's pair, a 401 answered by one refresh and one more try.
 */
const CLIENT = { clientId: 'client-id', clientSecret: 'client-secret-0123456789' };
const REDIRECT = 'https://partner.example/hibob/oauth/callback';
const COMPANY = '620400';

let bob: StubBob;
let h: PartnerHarness;
let accountId: number;
let keeper: ReturnType<typeof bobTokens>;

beforeAll(async () => {
  bob = await stubBob({ ...CLIENT, redirectUri: REDIRECT });
});
afterAll(() => bob.close());
beforeEach(async () => {
  h = await partnerHarness();
  const settings = HibobSettings.parse({
    HIBOB_API_URL: `${bob.url}/v1`,
    HIBOB_TOKEN_URL: `${bob.url}/oauth/token`,
    HIBOB_CLIENT_ID: CLIENT.clientId,
    HIBOB_CLIENT_SECRET: CLIENT.clientSecret,
    HIBOB_WEBHOOK_SECRET: 'webhook-secret',
  });
  keeper = bobTokens({ settings, connections: h.core.connections, clock: h.clock, logger: createLogger('silent'), redirectUri: REDIRECT });
  keeper.bind(h.sql);
  accountId = (await h.customer('Acme')).accountId;
  await h.core.connections.connect(accountId, HIBOB, COMPANY);
  const installed = await keeper.install(bob.code(COMPANY));
  await h.core.connections.setCredential(accountId, HIBOB, keeper.credentialOf(installed.tokens, COMPANY));
  bob.requests.length = 0;
});
afterEach(() => h.close());

const stored = async () => JSON.parse((await h.core.connections.credential(accountId, HIBOB))!) as Record<string, string>;
const refreshes = () => bob.requests.filter((r) => r.path === '/oauth/token' && r.body.grant_type === 'refresh_token');

it('is used as it is until it nears its expiry, then refreshed once for every caller at once', async () => {
  const first = await stored();
  expect(await keeper.accessToken(accountId)).toBe(first.access_token);
  // Five minutes before the hour Bob gave it.
  h.clock.advance(55 * 60_000 + 1);
  const tokens = await Promise.all([1, 2, 3].map(() => keeper.accessToken(accountId, { companyId: COMPANY })));
  expect(refreshes().map((r) => r.body.refresh_token)).toEqual([first.refresh_token]);
  expect(new Set(tokens)).toEqual(new Set([bob.latest(COMPANY).access]));
  expect(await stored()).toMatchObject({ access_token: bob.latest(COMPANY).access, refresh_token: bob.latest(COMPANY).refresh });
});

it("is never handed out for another company's order", async () => {
  await expect(keeper.accessToken(accountId, { companyId: '730511' })).rejects.toThrow(`the account's Bob install is company ${COMPANY}, not 730511`);
});

it('takes the pair another instance stored when that instance used the refresh token first', async () => {
  const first = await stored();
  h.clock.advance(60 * 60_000);
  // While this partner's refresh is on its way, another instance refreshes with the same token and stores its pair.
  bob.hooks.beforeToken = async () => {
    const res = await fetch(`${bob.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret }),
    });
    const pair = (await res.json()) as { access_token: string; refresh_token: string };
    await h.core.connections.setCredential(
      accountId,
      HIBOB,
      JSON.stringify({ ...first, access_token: pair.access_token, refresh_token: pair.refresh_token, expires_at: new Date(h.clock.now() + 3_600_000).toISOString() }),
    );
  };
  const token = await keeper.accessToken(accountId);
  // This partner's refresh, refused; the other instance's, made while it waited.
  expect(refreshes().map((r) => r.status)).toEqual([400, 200]);
  expect(token).toBe(bob.latest(COMPANY).access);
  expect((await stored()).refresh_token).toBe(bob.latest(COMPANY).refresh);
});

it('after a 401 from Bob, is refreshed and the call made once more; a 401 for a token already replaced changes nothing', async () => {
  const api = bobApi({ settings: HibobSettings.parse({ HIBOB_API_URL: `${bob.url}/v1` }), tokens: keeper });
  bob.order('77', COMPANY, { candidate: { fullName: 'Ada King Lovelace', emailAddress: 'ada@example.com' }, packageId: 7 });
  const revoked = (await stored()).access_token!;
  bob.revoke(revoked);
  expect(await api.details(accountId, COMPANY, '77')).toEqual({ candidate: { firstName: 'Ada King', lastName: 'Lovelace', email: 'ada@example.com' }, packageId: '7' });
  expect(bob.requests.filter((r) => r.path === '/v1/hiring/assessments/77').map((r) => [r.token, r.status])).toEqual([
    [revoked, 401],
    [bob.latest(COMPANY).access, 200],
  ]);
  expect(refreshes()).toHaveLength(1);
  // A late 401 about the revoked token: the new one stays as it is.
  const now = await stored();
  await keeper.markRefused(accountId, revoked);
  expect(await stored()).toEqual(now);
});

it('a refresh token Bob refuses is said as such, and the stored tokens stay', async () => {
  const first = await stored();
  bob.revoke(first.access_token!);
  await h.core.connections.setCredential(accountId, HIBOB, JSON.stringify({ ...first, refresh_token: 'revoked-refresh-token', expires_at: new Date(0).toISOString() }));
  await expect(keeper.accessToken(accountId)).rejects.toMatchObject({ kind: 'refused', message: "Bob's token URL answered 400 invalid_grant" });
  expect((await stored()).refresh_token).toBe('revoked-refresh-token');
});
