import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signVendorResult, VENDOR_SIGNATURE_HEADER } from '../../../src/contract/vendor-signature.js';
import { systemClock, type Clock } from '../../../src/lib/clock.js';
import { connectionStore } from '../../../src/partner/connections/store.js';
import { signBobBody } from '../../../src/partner/platforms/hibob/signature.js';
import { dollars } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { startKitPartner, type KitPartner } from '../../support/kit-partner.js';
import { stubBob, type StubBob } from './stub-bob.js';

/**
 * HiBob end to end, as Bob plays it against a partner started as `npm start` starts it
 * (docs/hibob.md): installs from the marketplace, catalogs registered, signed orders pushed,
 * details read, results reported — with a stub standing for Bob's token URL and API, each call
 * scoped to the company whose token it carries. The partner's clock runs with real time, moved
 * ahead by the test where Bob's tokens expire or a retry falls due.
 */
const LINK_SECRET = 'hibob-flow-candidate-link-secret-0123456789';
const RESULTS_SECRET = 'hibob-flow-vendor-results-secret-0123456789';
const WEBHOOK_SECRET = 'hibob-webhook-secret-of-the-developer-portal';
const CLIENT = { clientId: 'partner-app-client-id', clientSecret: 'partner-app-client-secret-0123456789' };
const PUBLIC_URL = 'https://partner.example';
const ACME = '620400';
const GLOBEX = '730511';
const INITECH = '840622';

/** The partner's clock: real time, plus what the test moved it ahead by. */
let ahead = 0;
const clock: Clock = { now: () => Date.now() + ahead };
const advance = (ms: number) => void (ahead += ms);

let bob: StubBob;
let partner: KitPartner;
let base: string;
let acme: { id: number; token: string; tests: { id: number }[] };
let globex: { id: number; token: string; tests: { id: number }[] };

const row = (text: string, ...params: unknown[]) => partner.sql.get<Record<string, unknown>>(dollars(text), params);
const count = async (text: string, ...params: unknown[]) => Number((await row(text, ...params))!.n);
const tokensOf = async (accountId: number) =>
  JSON.parse((await connectionStore(partner.sql, systemClock, LINK_SECRET).credential(accountId, 'hibob'))!) as Record<string, string | null>;

/** Bob's browser redirect after an install. */
const callback = (query: Record<string, string>) => request(base).get('/hibob/oauth/callback').query(query);

/** A webhook as Bob sends it: the body's bytes, signed unless told otherwise. */
const webhook = (body: unknown, signature: string | null = signBobBody(WEBHOOK_SECRET, JSON.stringify(body))) => {
  const req = request(base).post('/hibob/webhooks').set('Content-Type', 'application/json');
  return (signature === null ? req : req.set('Bob-Signature', signature)).send(JSON.stringify(body));
};
const event = (type: 'assessment.triggered' | 'assessment.cancelled', companyId: string, assessmentRequestId: string) => ({
  companyId,
  type,
  triggeredBy: 'employee-3332883884',
  triggeredAt: new Date(clock.now()).toISOString(),
  version: 'v2',
  data: { assessmentRequestId },
});

/** Bob's details of an order, in the shape the kit reads first (wire.ts). */
const details = (id: string, packageId: string, who = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }) => ({
  id,
  candidate: who,
  requester: { displayName: 'Grace Hopper', email: 'grace@acme.example' },
  jobOpening: { id: 'JO-77', title: 'Backend Engineer' },
  package: { id: packageId, name: 'JavaScript' },
  requestedAt: '2026-03-01T09:00:00Z',
});

/** The vendor's product reports a result, once the invitation is started in it. */
async function postResult(reportId: string, result: Record<string, unknown>, expected = 200) {
  await eventually(async () => expect((await row('SELECT started_at FROM invitations WHERE report_id = ?', reportId))?.started_at).toBeTruthy(), {
    what: `${reportId} to be started`,
  });
  const raw = JSON.stringify(result);
  const res = await request(base)
    .post(`/vendor/reports/${reportId}/result`)
    .set('Content-Type', 'application/json')
    .set(VENDOR_SIGNATURE_HEADER, signVendorResult(RESULTS_SECRET, reportId, raw, Math.floor(clock.now() / 1000)))
    .send(raw);
  expect(res.status, res.text).toBe(expected);
}

const bobCalls = (method: string, path: string) => bob.requests.filter((r) => r.method === method && r.path === path);
const companyOfToken = (token: string | undefined) => bob.issued.find((p) => p.access === token)?.company;

beforeAll(async () => {
  bob = await stubBob({ ...CLIENT, redirectUri: `${PUBLIC_URL}/hibob/oauth/callback` });
  partner = await startKitPartner(
    {
      PUBLIC_URL,
      CANDIDATE_LINK_SECRET: LINK_SECRET,
      ADMIN_TOKEN: 'hibob-flow-admin-token-0123456789',
      VENDOR_RESULTS_SECRET: RESULTS_SECRET,
      HIBOB_API_URL: `${bob.url}/v1`,
      HIBOB_TOKEN_URL: `${bob.url}/oauth/token`,
      HIBOB_CLIENT_ID: CLIENT.clientId,
      HIBOB_CLIENT_SECRET: CLIENT.clientSecret,
      HIBOB_WEBHOOK_SECRET: WEBHOOK_SECRET,
    },
    { clock },
  );
  base = `http://127.0.0.1:${partner.port}`;
  // The operator linked Acme's and Globex's Bob companies to their accounts beforehand.
  const connections = connectionStore(partner.sql, systemClock, LINK_SECRET);
  for (const [name, tests, company] of [
    ['Acme Corp', ['JavaScript', 'SQL'], ACME],
    ['Globex', ['Cobol'], GLOBEX],
  ] as const) {
    const made = await partner.customer(name, [...tests]);
    const id = Number((await row('SELECT id FROM accounts WHERE name = ?', name))!.id);
    expect(await connections.connect(id, 'hibob', company)).toBe(true);
    if (company === ACME) acme = { id, ...made };
    else globex = { id, ...made };
  }
});
afterAll(async () => {
  await partner?.close();
  await bob?.close();
});

describe('the install', () => {
  it('connects each company to its account with its own tokens, and registers its catalog with them', async () => {
    // Acme's token answer names the company; Globex's does not, its redirect does.
    const installed = await callback({ code: bob.code(ACME), state: 'opaque-from-bob' });
    expect(installed.status, installed.text).toBe(200);
    expect(installed.type).toBe('text/html');
    expect(installed.text).toContain('Installed');
    expect((await callback({ code: bob.code(GLOBEX, false), companyId: GLOBEX })).status).toBe(200);

    const exchanges = bobCalls('POST', '/oauth/token');
    expect(exchanges.map((r) => r.contentType)).toEqual(['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded']);
    expect(exchanges.map((r) => ({ ...r.body, code: undefined }))).toEqual(
      Array(2).fill({
        grant_type: 'authorization_code',
        code: undefined,
        redirect_uri: `${PUBLIC_URL}/hibob/oauth/callback`,
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret,
      }),
    );
    expect(await tokensOf(acme.id)).toEqual({
      access_token: bob.latest(ACME).access,
      refresh_token: bob.latest(ACME).refresh,
      expires_at: expect.any(String),
      company_id: ACME,
      kind: 'bob-oauth',
    });
    expect((await tokensOf(globex.id)).access_token).toBe(bob.latest(GLOBEX).access);
    // The dashboard's hint of the credential is never a token's characters.
    expect(await row("SELECT credential_hint FROM connections WHERE account_id = ? AND platform = 'hibob'", acme.id)).toEqual({ credential_hint: 'th"}' });

    await eventually(() => expect(bob.packages).toHaveLength(2), { what: 'both catalogs registered' });
    expect(bob.packages.find((p) => p.company === ACME)).toEqual({
      company: ACME,
      token: bob.latest(ACME).access,
      packages: [
        { id: String(acme.tests[0]!.id), name: 'JavaScript' },
        { id: String(acme.tests[1]!.id), name: 'SQL' },
      ],
    });
    expect(bob.packages.find((p) => p.company === GLOBEX)).toEqual({ company: GLOBEX, token: bob.latest(GLOBEX).access, packages: [{ id: String(globex.tests[0]!.id), name: 'Cobol' }] });
  });

  it('connects a company no operator linked to a new account named after it, whose empty catalog is registered', async () => {
    expect((await callback({ code: bob.code(INITECH) })).status).toBe(200);
    const account = await row("SELECT a.id, a.name FROM accounts a JOIN connections c ON c.account_id = a.id WHERE c.platform = 'hibob' AND c.company_id = ?", INITECH);
    expect(account?.name).toBe(`Bob company ${INITECH}`);
    await eventually(() => expect(bob.packages.find((p) => p.company === INITECH)).toEqual({ company: INITECH, token: bob.latest(INITECH).access, packages: [] }), {
      what: "Initech's catalog registered",
    });
  });

  it('answers a code Bob refuses — used, made up — with a 400 page, and changes nothing', async () => {
    const before = await tokensOf(acme.id);
    const code = bob.code(ACME);
    expect((await callback({ code })).status).toBe(200);
    const reinstalled = await tokensOf(acme.id);
    expect(reinstalled.access_token).not.toBe(before.access_token);
    for (const query of [{ code }, { code: 'made-up-code' }]) {
      const res = await callback(query);
      expect(res.status).toBe(400);
      expect(res.type).toBe('text/html');
      expect(res.text).toContain('This install link has expired');
      expect(res.text).not.toContain(query.code);
    }
    expect(await tokensOf(acme.id)).toEqual(reinstalled);
    // A redirect naming another company than the token answer's is refused too.
    const other = await callback({ code: bob.code(ACME), companyId: GLOBEX });
    expect(other.status).toBe(400);
    expect((await tokensOf(globex.id)).company_id).toBe(GLOBEX);
    // And so is Bob's end of a refused consent.
    expect((await callback({ error: 'access_denied' })).status).toBe(400);
    expect(await count("SELECT count(*) AS n FROM connections WHERE platform = 'hibob'")).toBe(3);
  });
});

describe('webhooks', () => {
  it('refuses an unsigned, altered or wrongly signed event with 401, and stores nothing', async () => {
    bob.order('90001', ACME, details('90001', String(acme.tests[0]!.id)));
    const body = event('assessment.triggered', ACME, '90001');
    const altered = { ...body, data: { assessmentRequestId: '90002' } };
    for (const [what, res] of [
      ['unsigned', await webhook(body, null)],
      ['altered', await webhook(altered, signBobBody(WEBHOOK_SECRET, JSON.stringify(body)))],
      ['another secret', await webhook(body, signBobBody('not-the-secret', JSON.stringify(body)))],
      ['the signature twice', await webhook(body, signBobBody(WEBHOOK_SECRET, JSON.stringify(body)).repeat(2))],
      ['the signature with a prefix', await webhook(body, `sha512=${signBobBody(WEBHOOK_SECRET, JSON.stringify(body))}`)],
    ] as const) {
      expect(res.status, what).toBe(401);
      expect(res.body, what).toEqual({ error: 'Invalid signature' });
    }
    expect(await count('SELECT count(*) AS n FROM hibob_inbox')).toBe(0);
    expect(bobCalls('GET', '/v1/hiring/assessments/90001')).toEqual([]);
  });

  it("answers Bob's listener check and ignores a signed event of another type", async () => {
    for (const ping of ['', 'Ping test', '{"text":"Ping test"}']) {
      const res = await request(base).post('/hibob/webhooks').set('Content-Type', 'text/plain').send(ping);
      expect(res.status, ping).toBe(200);
    }
    const other = { companyId: ACME, type: 'employee.created', data: { employeeId: '1' } };
    expect((await webhook(other)).body).toEqual({ ok: true, ignored: true });
    expect(await count('SELECT count(*) AS n FROM hibob_inbox')).toBe(0);
  });
});

describe('an order', () => {
  it("is read from Bob with its company's token and becomes an invitation; a duplicate delivery makes nothing new", async () => {
    bob.order('90417', ACME, details('90417', String(acme.tests[0]!.id)));
    const body = event('assessment.triggered', ACME, '90417');
    const res = await webhook(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    const invitation = await eventually(async () => (await row('SELECT * FROM invitations WHERE report_id = ?', '90417')) ?? expect.fail('no invitation yet'), {
      what: 'the invitation of order 90417',
    });
    expect(invitation).toMatchObject({ account_id: acme.id, platform: 'hibob', test_id: String(acme.tests[0]!.id), test_name: 'JavaScript', email: 'ada@example.com', first_name: 'Ada' });
    expect(JSON.parse(invitation.platform_data as string)).toEqual({
      company_id: ACME,
      package_id: String(acme.tests[0]!.id),
      job_opening_id: 'JO-77',
      job_opening_title: 'Backend Engineer',
      requester_name: 'Grace Hopper',
      requester_email: 'grace@acme.example',
    });
    expect(bobCalls('GET', '/v1/hiring/assessments/90417').map((r) => r.token)).toEqual([(await tokensOf(acme.id)).access_token]);

    const again = await webhook(body);
    expect(again.body).toEqual({ ok: true, duplicate: true });
    expect(await row("SELECT status, duplicates FROM hibob_inbox WHERE assessment_request_id = '90417'")).toEqual({ status: 'handled', duplicates: 1 });
    expect(await count("SELECT count(*) AS n FROM invitations WHERE report_id = '90417'")).toBe(1);
    expect(bobCalls('GET', '/v1/hiring/assessments/90417')).toHaveLength(1);
  });

  it('is completed in Bob once the result is in: the score as a number and the https results page, once', async () => {
    await postResult('90417', { status: 'completed', score: '87%', subtitle: 'Senior level', properties: [{ label: 'Time', value: '42 min' }] });
    await eventually(() => expect(bob.patches.filter((p) => p.id === '90417')).toHaveLength(1), { what: 'the PATCH of 90417' });
    const [patch] = bob.patches;
    expect(patch).toEqual({
      id: '90417',
      company: ACME,
      token: (await tokensOf(acme.id)).access_token,
      body: { status: 'completed', score: 87, resultUrl: expect.stringMatching(/^https:\/\/partner\.example\/results\?token=/), verdict: 'Senior level', comments: 'Time: 42 min' },
    });
    // Bob delivers the order again hours later: nothing new, no second update.
    advance(3 * 60 * 60_000);
    expect((await webhook(event('assessment.triggered', ACME, '90417'))).body).toEqual({ ok: true, duplicate: true });
    expect(await row("SELECT status FROM report_updates WHERE report_id = '90417' AND status = 'pending'")).toBeUndefined();
    expect(bob.patches.filter((p) => p.id === '90417')).toHaveLength(1);
  });
});

describe("the company's tokens", () => {
  it('are refreshed before they expire: the rotated refresh token replaces the old one', async () => {
    const before = await tokensOf(acme.id);
    advance(60 * 60_000);
    bob.order('90418', ACME, details('90418', String(acme.tests[1]!.id)));
    expect((await webhook(event('assessment.triggered', ACME, '90418'))).status).toBe(200);
    await eventually(async () => expect(await row("SELECT platform FROM invitations WHERE report_id = '90418'")).toEqual({ platform: 'hibob' }), { what: 'order 90418' });
    const refreshes = bobCalls('POST', '/oauth/token').filter((r) => r.body.grant_type === 'refresh_token');
    expect(refreshes.map((r) => r.body.refresh_token)).toEqual([before.refresh_token]);
    const after = await tokensOf(acme.id);
    expect(after).toMatchObject({ access_token: bob.latest(ACME).access, refresh_token: bob.latest(ACME).refresh, company_id: ACME });
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(bobCalls('GET', '/v1/hiring/assessments/90418').map((r) => r.token)).toEqual([after.access_token]);
  });

  it('are refreshed after Bob answers 401, and the update goes with the new one', async () => {
    const revoked = (await tokensOf(acme.id)).access_token!;
    bob.revoke(revoked);
    await postResult('90418', { status: 'failed', score: 'C', subtitle: 'Below the bar' });
    const attempts = () => bob.requests.filter((r) => r.method === 'PATCH' && r.path === '/v1/hiring/assessments/90418');
    await eventually(() => expect(attempts().map((r) => r.status)).toEqual([401]), { what: 'the PATCH refused' });
    await eventually(
      async () => expect(await row("SELECT status, last_status FROM report_updates WHERE report_id = '90418' AND body LIKE '%failed%'")).toEqual({ status: 'pending', last_status: 401 }),
      { what: 'the retry scheduled' },
    );
    // The delivery waits its backoff (at most 10 s for a first retry) before it tries again.
    advance(11_000);
    await eventually(() => expect(attempts().map((r) => r.status)).toEqual([401, 204]), { what: 'the PATCH retried' });
    const fresh = (await tokensOf(acme.id)).access_token;
    expect(attempts().map((r) => r.token)).toEqual([revoked, fresh]);
    expect(fresh).toBe(bob.latest(ACME).access);
    expect(bob.patches.find((p) => p.id === '90418')!.body).toEqual({
      status: 'failed',
      resultUrl: expect.stringMatching(/^https:\/\/partner\.example\/results\?token=/),
      verdict: 'Below the bar',
    });
  });
});

describe('a cancel', () => {
  it('cancels the invitation, and nothing more is sent to Bob about it', async () => {
    bob.order('90419', GLOBEX, details('90419', String(globex.tests[0]!.id)));
    await webhook(event('assessment.triggered', GLOBEX, '90419'));
    await eventually(async () => expect((await row("SELECT started_at FROM invitations WHERE report_id = '90419'"))?.started_at).toBeTruthy(), {
      what: 'order 90419 started',
    });
    expect((await webhook(event('assessment.cancelled', GLOBEX, '90419'))).body).toEqual({ ok: true });
    await eventually(
      async () =>
        expect(await row("SELECT status, canceled_by, cancel_reason FROM invitations WHERE report_id = '90419'")).toEqual({
          status: 'canceled',
          canceled_by: 'platform',
          cancel_reason: 'Canceled in Bob',
        }),
      { what: 'order 90419 canceled' },
    );
    await postResult('90419', { status: 'completed', score: '99%' }, 409);
    await eventually(async () => expect(await count("SELECT count(*) AS n FROM report_updates WHERE report_id = '90419' AND status = 'pending'")).toBe(0), {
      what: 'the updates of 90419 settled',
    });
    expect(bob.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/90419'))).toEqual([]);
  });

  it('that arrives before its order is remembered: the order makes nothing', async () => {
    bob.order('90420', GLOBEX, details('90420', String(globex.tests[0]!.id)));
    await webhook(event('assessment.cancelled', GLOBEX, '90420'));
    await eventually(async () => expect(await row("SELECT status FROM hibob_inbox WHERE assessment_request_id = '90420'")).toEqual({ status: 'handled' }), {
      what: 'the cancel handled',
    });
    await webhook(event('assessment.triggered', GLOBEX, '90420'));
    await eventually(
      async () =>
        expect(await row("SELECT status, outcome FROM hibob_inbox WHERE assessment_request_id = '90420' AND event_type = 'assessment.triggered'")).toEqual({
          status: 'handled',
          outcome: 'canceled in Bob before it was handled: no invitation made',
        }),
      { what: 'the trigger handled' },
    );
    expect(await row("SELECT report_id FROM invitations WHERE report_id = '90420'")).toBeUndefined();
    expect(bobCalls('GET', '/v1/hiring/assessments/90420')).toEqual([]);
  });
});

describe('companies apart', () => {
  it("never reads or cancels another company's order", async () => {
    // Globex's event names an order of Acme's: read with Globex's token, Bob does not know it.
    bob.order('90421', ACME, details('90421', String(acme.tests[0]!.id)));
    await webhook(event('assessment.triggered', GLOBEX, '90421'));
    await eventually(async () => expect((await row("SELECT status FROM hibob_inbox WHERE assessment_request_id = '90421'"))?.status).toBe('failed'), {
      what: 'the event given up',
    });
    expect(bobCalls('GET', '/v1/hiring/assessments/90421').map((r) => [companyOfToken(r.token), r.status])).toEqual([[GLOBEX, 404]]);
    expect(await row("SELECT report_id FROM invitations WHERE report_id = '90421'")).toBeUndefined();
    // Globex cancels an order of Acme's: nothing happens to it.
    bob.order('90422', ACME, details('90422', String(acme.tests[0]!.id)));
    await webhook(event('assessment.triggered', ACME, '90422'));
    await eventually(async () => expect(await row("SELECT status FROM invitations WHERE report_id = '90422'")).toEqual({ status: 'sent' }), { what: 'order 90422' });
    await webhook(event('assessment.cancelled', GLOBEX, '90422'));
    await eventually(
      async () =>
        expect(await row("SELECT outcome FROM hibob_inbox WHERE assessment_request_id = '90422' AND event_type = 'assessment.cancelled'")).toEqual({
          outcome: "not an order of this company's: nothing canceled",
        }),
      { what: "Globex's cancel handled" },
    );
    expect(await row("SELECT status FROM invitations WHERE report_id = '90422'")).toEqual({ status: 'sent' });
    // Every call to Bob's API about an order carried the token of the company Bob knows the order for.
    const orders: Record<string, string> = { '90417': ACME, '90418': ACME, '90422': ACME, '90419': GLOBEX, '90420': GLOBEX };
    const calls = bob.requests.filter((r) => Object.keys(orders).some((id) => r.path === `/v1/hiring/assessments/${id}`));
    expect(calls.length).toBeGreaterThanOrEqual(6);
    expect(calls.map((c) => [c.path, companyOfToken(c.token)])).toEqual(calls.map((c) => [c.path, orders[c.path.split('/').at(-1)!]]));
  });
});

describe('the catalog', () => {
  it('is registered again when the listing changes, and retried later while Bob is down', async () => {
    bob.down.add(ACME);
    const registered = () => bob.packages.filter((p) => p.company === ACME).length;
    const before = registered();
    await partner.sql.run(dollars('INSERT INTO tests (account_id, name, created_at) VALUES (?, ?, ?)'), [acme.id, 'Go', new Date(clock.now()).toISOString()]);
    // The next check (every 5 minutes) finds the listing changed; Bob is down.
    advance(5 * 60_000);
    await eventually(async () => expect(await row('SELECT attempts, last_error FROM hibob_catalog WHERE account_id = ?', acme.id)).toEqual({
      attempts: 1,
      last_error: expect.stringContaining('HTTP 503'),
    }), { what: 'the registration to fail' });
    bob.down.delete(ACME);
    advance(60 * 60_000);
    await eventually(() => expect(registered()).toBe(before + 1), { what: 'the registration retried' });
    expect(bob.packages.filter((p) => p.company === ACME).at(-1)!.packages).toEqual([
      { id: String(acme.tests[0]!.id), name: 'JavaScript' },
      { id: String(acme.tests[1]!.id), name: 'SQL' },
      { id: expect.any(String), name: 'Go' },
    ]);
    await eventually(async () => expect(await row('SELECT attempts, last_error FROM hibob_catalog WHERE account_id = ?', acme.id)).toEqual({ attempts: 0, last_error: null }), {
      what: 'the row settled',
    });
  });
});

describe('a partner where HiBob is not configured', () => {
  let bare: KitPartner;
  beforeAll(async () => {
    bare = await startKitPartner({ HIBOB_CLIENT_ID: 'only-the-client-id' });
  });
  afterAll(() => bare?.close());

  it('answers 503 naming the settings to set, and stores nothing', async () => {
    const url = `http://127.0.0.1:${bare.port}`;
    const installed = await request(url).get('/hibob/oauth/callback').query({ code: 'a-code' });
    expect(installed.status).toBe(503);
    expect(installed.body).toEqual({ error: 'HiBob is not configured on this partner: set HIBOB_CLIENT_SECRET, HIBOB_WEBHOOK_SECRET (docs/hibob.md)' });
    const body = JSON.stringify(event('assessment.triggered', ACME, '1'));
    const pushed = await request(url).post('/hibob/webhooks').set('Content-Type', 'application/json').set('Bob-Signature', signBobBody('x', body)).send(body);
    expect(pushed.status).toBe(503);
    expect(pushed.body.error).toMatch(/^HiBob is not configured on this partner: set HIBOB_CLIENT_SECRET, HIBOB_WEBHOOK_SECRET/);
    expect(Number((await bare.sql.get<{ n: number }>('SELECT count(*) AS n FROM hibob_inbox'))!.n)).toBe(0);
    // What needs no configuration still answers: the page without a code, Bob's listener check.
    expect((await request(url).get('/hibob/oauth/callback')).status).toBe(200);
    expect((await request(url).post('/hibob/webhooks').send('')).status).toBe(200);
  });
});
