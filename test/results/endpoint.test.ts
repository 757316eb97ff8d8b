import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { PartnerKind } from '../../src/contract/decisions.js';
import type { Sql } from '../../src/lib/sql.js';
import type { ProviderSource } from '../../src/partner/provider/types.js';
import { signVendorResult, verifyVendorSignature, VENDOR_SIGNATURE_HEADER } from '../../src/contract/vendor-signature.js';
import { ADMIN, flowHarness, sendBody, type FlowHarness } from '../invitations/support.js';

const SECRET = 'vendor-results-secret-0123456789abcdef';
const OTHER_SECRET = 'another-vendor-secret-0123456789abcdef';

let h: FlowHarness | undefined;
afterEach(async () => {
  if (h !== shared?.h) await h?.close();
  h = undefined;
});
afterAll(() => shared?.h.close());

/** A partner (as assembled, fake clock) with an invitation started in the vendor's product; returns its report id. */
async function invited(
  options: { kind?: PartnerKind; secret?: string | null; provider?: ProviderSource } = {},
): Promise<{ h: FlowHarness; reportId: string }> {
  h = await flowHarness({
    kind: options.kind,
    provider: options.provider,
    env: options.secret === null ? {} : { VENDOR_RESULTS_SECRET: options.secret ?? SECRET },
  });
  let c: Customer;
  if (options.provider) {
    const { account, token } = await h.accounts.create('Acme Corp');
    await h.accounts.bindCompany(account, 3);
    c = { token, tests: [{ id: 'js' }] };
  } else {
    c = await h.customer('Acme Corp', ['JavaScript fundamentals']);
  }
  customer = c;
  return { h, reportId: await sendAnother() };
}

type Customer = { token: string; tests: { id: number | string }[] };
let customer: Customer;

/** The partner (as `invited` starts it) the cases of the tables below share, and its customer. */
let shared: { h: FlowHarness; customer: Customer } | undefined;

/**
 * A report of its own, started, on the partner the cases of a table share: each case sends a
 * request that must change nothing, and reads its own report's state before and after. A partner
 * of its own for each (`invited`) cost a database and a harness a case.
 */
async function reportOfItsOwn(): Promise<string> {
  if (!shared) {
    await invited();
    shared = { h: h!, customer };
  }
  ({ h, customer } = shared);
  return sendAnother();
}

/** One more invitation of the same customer, started in the product; its report id. */
async function sendAnother(): Promise<string> {
  const body = sendBody(customer.tests[0]!.id);
  expect((await h!.send(customer.token, body)).status).toBe(201);
  await h!.starter.runOnce();
  return body.report_id;
}

const now = (): number => Math.floor(h!.clock.now() / 1000);

/** POST /vendor/reports/{id}/result with `raw` as the exact bytes, signed unless `signature` says otherwise. */
function post(reportId: string, body: unknown, signature?: string | null) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const req = request(h!.app).post(`/vendor/reports/${reportId}/result`).set('Content-Type', 'application/json');
  if (signature !== null) req.set(VENDOR_SIGNATURE_HEADER, signature ?? signVendorResult(SECRET, reportId, raw, now()));
  return req.send(raw);
}

/** What the partner holds about a report: the invitation's status and result, its queued updates, its progress. */
async function state(reportId: string) {
  return {
    invitation: await h!.row('SELECT status, score, subtitle, properties, completed_at, details FROM invitations WHERE report_id = ?', reportId),
    updates: (await h!.rows('SELECT body FROM report_updates WHERE report_id = ? ORDER BY id', reportId)).map((r) => JSON.parse(r.body as string)),
    events: (await h!.rows('SELECT stage FROM invitation_events WHERE report_id = ? ORDER BY id', reportId)).map((r) => r.stage),
  };
}

/**
 * Makes every insert into report_updates fail with "disk full", on either database (a trigger:
 * SQLite's on this connection, PostgreSQL's for every connection of the pool); returns the undo.
 */
async function refuseUpdates(sql: Sql): Promise<() => Promise<void>> {
  if (sql.dialect === 'sqlite') {
    await sql.exec("CREATE TEMP TRIGGER refuse_updates BEFORE INSERT ON report_updates BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    return () => sql.exec('DROP TRIGGER refuse_updates');
  }
  await sql.exec(`
    CREATE FUNCTION refuse_updates() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
    CREATE TRIGGER refuse_updates BEFORE INSERT ON report_updates FOR EACH ROW EXECUTE FUNCTION refuse_updates();`);
  return () => sql.exec('DROP TRIGGER refuse_updates ON report_updates; DROP FUNCTION refuse_updates()');
}

const COMPLETED = { status: 'completed', score: '87%', subtitle: 'JavaScript fundamentals: 13 of 15', properties: [{ label: 'Time taken', value: '24 min' }] };

describe('POST /vendor/reports/{report_id}/result — signature vectors', () => {
  it('valid: 200 {id, status}, the invitation completes and one report update is queued in the same transaction', async () => {
    const { reportId } = await invited();
    const res = await post(reportId, COMPLETED);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: reportId, status: 'completed' });
    const s = await state(reportId);
    expect(s.invitation).toMatchObject({ status: 'completed', score: '87%', subtitle: COMPLETED.subtitle, completed_at: new Date(h!.clock.now()).toISOString() });
    expect(s.updates.at(-1)).toMatchObject({ status: 'completed', score: '87%', subtitle: COMPLETED.subtitle, properties: COMPLETED.properties });
  });

  it.each<[string, ((reportId: string) => string) | null, string]>([
    ['signed with another secret', (id) => signVendorResult(OTHER_SECRET, id, JSON.stringify(COMPLETED), now()), 'Invalid signature'],
    ['a timestamp 5 minutes and 1 second old', (id) => signVendorResult(SECRET, id, JSON.stringify(COMPLETED), now() - 301), 'more than 5 minutes'],
    ['a timestamp 5 minutes and 1 second ahead', (id) => signVendorResult(SECRET, id, JSON.stringify(COMPLETED), now() + 301), 'more than 5 minutes'],
    ['no header', null, 'Missing X-Vendor-Signature'],
    ['an empty header', () => '', 'Missing X-Vendor-Signature'],
    ['only a signature (no t=)', () => `v1=${'a'.repeat(64)}`, 'Malformed'],
    ['only a timestamp (no v1=)', () => `t=${now()}`, 'Malformed'],
    ['a timestamp that is not a number', (id) => signVendorResult(SECRET, id, JSON.stringify(COMPLETED), now()).replace(/^t=\d+/, 't=soon'), 'Malformed'],
    ['two timestamps', (id) => `t=${now()},${signVendorResult(SECRET, id, JSON.stringify(COMPLETED), now())}`, 'Malformed'],
    ['a part without "="', (id) => `${signVendorResult(SECRET, id, JSON.stringify(COMPLETED), now())},garbage`, 'Malformed'],
    ['the GitHub style sha256=<hex>', () => `sha256=${'a'.repeat(64)}`, 'Malformed'],
    ['hex of the wrong length (62)', (id) => signVendorResult(SECRET, id, JSON.stringify(COMPLETED), now()).slice(0, -2), 'Invalid signature'],
    ['hex of the wrong length (66)', (id) => `${signVendorResult(SECRET, id, JSON.stringify(COMPLETED), now())}ab`, 'Invalid signature'],
    ['64 characters that are not hex', () => `t=${now()},v1=${'z'.repeat(64)}`, 'Invalid signature'],
    ['the digest in base64', (id) => {
      const header = signVendorResult(SECRET, id, JSON.stringify(COMPLETED), now());
      return header.replace(/v1=([0-9a-f]+)/, (_m, hex: string) => `v1=${Buffer.from(hex, 'hex').toString('base64')}`);
    }, 'Invalid signature'],
  ])('%s: 401, nothing changes', async (_name, signature, message) => {
    const reportId = await reportOfItsOwn();
    const before = await state(reportId);
    const res = await post(reportId, COMPLETED, typeof signature === 'function' ? signature(reportId) : signature);
    expect(res.status).toBe(401);
    expect(res.body.error).toContain(message);
    expect(await state(reportId)).toEqual(before);
  });

  it('the body altered by one byte after signing: 401, nothing changes', async () => {
    const { reportId } = await invited();
    const raw = JSON.stringify(COMPLETED);
    const header = signVendorResult(SECRET, reportId, raw, now());
    const before = await state(reportId);
    const res = await post(reportId, raw.replace('87%', '97%'), header);
    expect(res.status).toBe(401);
    expect(await state(reportId)).toEqual(before);
  });

  it('the identical signed request replayed within the tolerance: the same 200, nothing new (idempotent)', async () => {
    const { reportId } = await invited();
    const raw = JSON.stringify(COMPLETED);
    const header = signVendorResult(SECRET, reportId, raw, now());
    const first = await post(reportId, raw, header);
    const updates = (await state(reportId)).updates.length;
    h!.clock.advance(4 * 60_000);
    const replay = await post(reportId, raw, header);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect((await state(reportId)).updates).toHaveLength(updates);
    // Past the tolerance, the replay is refused.
    h!.clock.advance(2 * 60_000);
    expect((await post(reportId, raw, header)).status).toBe(401);
  });

  it('a request signed for one report, sent unchanged to another: 401, and neither report changes', async () => {
    const { reportId: signedFor } = await invited();
    const other = await sendAnother();
    const raw = JSON.stringify(COMPLETED);
    const header = signVendorResult(SECRET, signedFor, raw, now());
    const before = { signedFor: await state(signedFor), other: await state(other) };
    const res = await post(other, raw, header);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: expect.stringContaining('"<t>.<report_id>.<raw body>"') });
    expect({ signedFor: await state(signedFor), other: await state(other) }).toEqual(before);
    // Where it was signed for, the same request is recorded.
    expect((await post(signedFor, raw, header)).status).toBe(200);
    expect(await state(other)).toEqual(before.other);
  });

  it('signed the old way, over "<t>.<raw body>" without the report id: 401 saying what is signed now, nothing changes', async () => {
    const { reportId } = await invited();
    const raw = JSON.stringify(COMPLETED);
    const t = now();
    const before = await state(reportId);
    const res = await post(reportId, raw, `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${raw}`).digest('hex')}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: 'Invalid signature: v1 must be the hex HMAC-SHA256 of "<t>.<report_id>.<raw body>" keyed with VENDOR_RESULTS_SECRET',
    });
    expect(await state(reportId)).toEqual(before);
  });

  it('a report id percent-encoded in the path, every character of it: the signature over the decoded id is the one that holds, over the encoded text 401', async () => {
    const { reportId } = await invited();
    // A UUID needs no encoding; a client or proxy may encode it anyway. The path reaches the server as written here.
    const encoded = [...reportId].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
    expect(encoded).toMatch(/^(%[0-9A-F]{2}){36}$/);
    const raw = JSON.stringify(COMPLETED);
    const postEncoded = (signedOver: string) =>
      request(h!.app)
        .post(`/vendor/reports/${encoded}/result`)
        .set('Content-Type', 'application/json')
        .set(VENDOR_SIGNATURE_HEADER, signVendorResult(SECRET, signedOver, raw, now()))
        .send(raw);
    const before = await state(reportId);

    const overEncoded = await postEncoded(encoded);
    expect(overEncoded.status).toBe(401);
    expect(overEncoded.body.error).toMatch(/^Invalid signature/);
    expect(await state(reportId)).toEqual(before);

    const overDecoded = await postEncoded(reportId);
    expect(overDecoded.status).toBe(200);
    expect(overDecoded.body).toEqual({ id: reportId, status: 'completed' });
    expect((await state(reportId)).invitation).toMatchObject({ status: 'completed', score: '87%' });
  });

  it('a report id in capitals names the same report, compared letter for letter: signed in capitals 200, signed as given 401', async () => {
    const { reportId } = await invited();
    const raw = JSON.stringify(COMPLETED);
    const upper = reportId.toUpperCase();
    expect((await post(upper, raw, signVendorResult(SECRET, reportId, raw, now()))).status).toBe(401);
    const res = await post(upper, raw, signVendorResult(SECRET, upper, raw, now()));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: reportId, status: 'completed' });
  });

  it('several v1 (a secret being rotated): any one that matches is enough', async () => {
    const { reportId } = await invited();
    const raw = JSON.stringify(COMPLETED);
    const old = signVendorResult(OTHER_SECRET, reportId, raw, now()).split(',')[1]!;
    // The hex in upper case is the same signature.
    const current = signVendorResult(SECRET, reportId, raw, now()).replace(/v1=(\w+)/, (_m, hex: string) => `v1=${hex.toUpperCase()}`);
    const res = await post(reportId, raw, `${current},${old},v0=ignored`);
    expect(res.status).toBe(200);
  });

  it('an unknown report: 401 without a valid signature (never 404), 404 {"error":"Unknown report"} with one', async () => {
    await invited();
    const unknown = '5e1f0c2a-0000-4000-8000-ffffffffffff';
    expect((await post(unknown, COMPLETED, null)).status).toBe(401);
    expect((await post(unknown, COMPLETED, signVendorResult(OTHER_SECRET, unknown, JSON.stringify(COMPLETED), now()))).status).toBe(401);
    expect((await post('not-a-uuid', COMPLETED, null)).status).toBe(401);
    const res = await post(unknown, COMPLETED);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Unknown report' });
    expect((await post('not-a-uuid', COMPLETED)).body).toEqual({ error: 'Unknown report' });
  });

  it('without VENDOR_RESULTS_SECRET: 401 "results endpoint not configured", even for a request signed with anything', async () => {
    const { reportId } = await invited({ secret: null });
    const res = await post(reportId, COMPLETED);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/^results endpoint not configured/);
    expect((await state(reportId)).invitation).toMatchObject({ status: 'sent' });
  });
});

describe('POST /vendor/reports/{report_id}/result — what a signed request may say', () => {
  it.each([
    ['no status', { score: '87%' }, 'status'],
    ['an unknown status', { status: 'passed', score: '87%' }, 'status'],
    ['completed without a score', { status: 'completed' }, 'score'],
    ['failed without a score', { status: 'failed' }, 'score'],
    ['an empty score', { status: 'completed', score: '  ' }, 'score'],
    ['a score over the badge\'s 5 characters', { status: 'completed', score: '87 of 100' }, 'score'],
    ['a score that is not text', { status: 'completed', score: 87 }, 'score'],
    ['a property without a label', { status: 'completed', score: '87%', properties: [{ value: 'x' }] }, 'properties.0.label'],
    ['a completed_at that is not a date-time', { status: 'completed', score: '87%', completed_at: 'yesterday' }, 'completed_at'],
    ['a score with a progress stage', { status: 'started', score: '87%' }, 'score'],
    ['a subtitle with a cancel', { status: 'canceled', subtitle: 'why' }, 'subtitle'],
  ])('%s: 422 {error, errors} naming the field, nothing changes', async (_name, body, field) => {
    const reportId = await reportOfItsOwn();
    const before = await state(reportId);
    const res = await post(reportId, body);
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty([field]);
    expect(typeof res.body.error).toBe('string');
    expect(await state(reportId)).toEqual(before);
  });

  it.each(['background_check', 'reference_check'] as const)(
    '%s: "Adverse" is refused with why (the badge shows 5 characters, for checks too) and what fits; a failed check with "Alert" is recorded',
    async (kind) => {
      const { reportId } = await invited({ kind });
      const before = await state(reportId);
      const res = await post(reportId, { status: 'failed', score: 'Adverse' });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe(
        'score must be at most 5 characters: the platform\'s badge shows no more, for checks too ' +
          '(e.g. "76%", "12/15", "Clear"; for an adverse check, status failed with a score such as "Alert", not "Adverse")',
      );
      expect(await state(reportId)).toEqual(before);
      expect((await post(reportId, { status: 'failed', score: 'Alert' })).status).toBe(200);
      expect((await state(reportId)).invitation).toMatchObject({ status: 'failed', score: 'Alert' });
    },
  );

  it('a completed_at in the future: 422; one with an offset is stored in UTC', async () => {
    const { reportId } = await invited();
    const future = new Date(h!.clock.now() + 60 * 60_000).toISOString();
    expect((await post(reportId, { ...COMPLETED, completed_at: future })).body.errors).toHaveProperty(['completed_at']);
    expect((await post(reportId, { ...COMPLETED, completed_at: '2026-11-01T10:30:00+02:00' })).status).toBe(200);
    expect((await state(reportId)).invitation).toMatchObject({ completed_at: '2026-11-01T08:30:00.000Z' });
    expect((await state(reportId)).updates.at(-1)).toMatchObject({ completed_at: '2026-11-01T08:30:00.000Z' });
  });

  it('malformed JSON, correctly signed: 400', async () => {
    const { reportId } = await invited();
    const res = await post(reportId, '{"status": "completed", ');
    expect(res.status).toBe(400);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
    ['no Content-Type', undefined],
  ])('a JSON body declared %s, correctly signed: 415 as on the callbacks, nothing recorded', async (_name, type) => {
    const reportId = await reportOfItsOwn();
    const raw = Buffer.from(JSON.stringify(COMPLETED));
    const before = await state(reportId);
    const req = request(h!.app).post(`/vendor/reports/${reportId}/result`).set(VENDOR_SIGNATURE_HEADER, signVendorResult(SECRET, reportId, raw, now()));
    // The bytes as they are: superagent would otherwise encode them for the type (a Buffer with no type is sent as is).
    const res = await (type === undefined ? req : req.set('Content-Type', type).serialize((b) => b as string)).send(raw);
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: 'Content-Type must be application/json' });
    expect(await state(reportId)).toEqual(before);
  });

  it('another result for a finished report: 409, the first stands; the same again: 200, nothing new', async () => {
    const { reportId } = await invited();
    expect((await post(reportId, COMPLETED)).status).toBe(200);
    const after = await state(reportId);
    const other = await post(reportId, { ...COMPLETED, score: '12%', status: 'failed' });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('Report already completed with another result');
    expect((await post(reportId, { ...COMPLETED, score: '88%' })).status).toBe(409);
    // The same result, its properties' keys in another order and a later completed_at: the same result.
    const again = await post(reportId, { ...COMPLETED, properties: [{ value: '24 min', label: 'Time taken' }], completed_at: '2026-11-01T09:00:00Z' });
    expect(again.status).toBe(200);
    expect(await state(reportId)).toEqual(after);
    // A progress stage after the result: 409 — a status never moves backwards.
    expect((await post(reportId, { status: 'in_review' })).status).toBe(409);
  });

  it('a canceled report: 409 for a result; a cancel from the vendor is 200 and again 200', async () => {
    const { reportId } = await invited();
    await h!.lifecycle.cancel(reportId, 'platform');
    const res = await post(reportId, COMPLETED);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'Report was canceled' });
    expect((await post(reportId, { status: 'canceled' })).body).toEqual({ id: reportId, status: 'canceled' });
    expect((await state(reportId)).updates.filter((u) => u.status === 'canceled')).toHaveLength(1);
  });

  it('a cancel from the vendor: the invitation is canceled by the vendor and the platform is told once', async () => {
    const { reportId } = await invited();
    expect((await post(reportId, { status: 'canceled' })).status).toBe(200);
    expect((await post(reportId, { status: 'canceled' })).status).toBe(200);
    expect(await h!.row('SELECT status, canceled_by FROM invitations WHERE report_id = ?', reportId)).toEqual({ status: 'canceled', canceled_by: 'vendor' });
    expect((await state(reportId)).updates.filter((u) => u.status === 'canceled')).toHaveLength(1);
    expect((await post(reportId, COMPLETED)).status).toBe(409);
  });

  it('progress stages: recorded once each and shown in the dashboard; the platform\'s report does not change', async () => {
    const { reportId } = await invited();
    const updates = (await state(reportId)).updates.length;
    for (const stage of ['opened', 'started', 'started', 'in_review']) {
      const res = await post(reportId, { status: stage });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: reportId, status: stage });
      h!.clock.advance(60_000);
    }
    expect((await state(reportId)).events).toEqual(['opened', 'started', 'in_review']);
    expect((await state(reportId)).updates).toHaveLength(updates);
    expect((await state(reportId)).invitation).toMatchObject({ status: 'sent' });
    expect(await h!.row('SELECT opened_at FROM invitations WHERE report_id = ?', reportId)).toEqual({ opened_at: '2026-11-01T09:00:00.000Z' });
    const page = await h!.http().get(`/admin/reports/${reportId}`).auth(ADMIN.username, ADMIN.password);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/opened 09:00<\/time>, <time[^>]*>started 09:01<\/time>, <time[^>]*>in review 09:03/);
  });

  it('details pushed with the result are shown on the recruiter\'s results page when the provider keeps none', async () => {
    // A product that hosts its tests: no candidate page, no details of its own.
    const hosted: ProviderSource = (kit) => ({
      kind: kit.kind,
      listTests: async () => [{ id: 'js', name: 'JavaScript fundamentals' }],
      startInvitation: async (invitation) => ({ candidateUrl: `https://product.example/t/${invitation.reportId}` }),
    });
    const { reportId } = await invited({ provider: hosted });
    expect(await h!.row('SELECT candidate_url FROM invitations WHERE report_id = ?', reportId)).toEqual({ candidate_url: `https://product.example/t/${reportId}` });
    const details = [{ label: 'Closures', value: '5 of 5', ok: true }];
    expect((await post(reportId, { ...COMPLETED, details })).status).toBe(200);
    expect(JSON.parse((await state(reportId)).invitation!.details as string)).toEqual(details);
    const page = await h!.http().get(new URL(h!.links.resultsUrl(reportId)).pathname + new URL(h!.links.resultsUrl(reportId)).search);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Closures');
    expect(page.text).toContain('5 of 5');
    // The kit's candidate page has nothing to show for a test taken in the product: a friendly page, not an error.
    const take = new URL(h!.links.candidateUrl(reportId));
    const taken = await h!.http().get(take.pathname + take.search);
    expect(taken.status).toBe(200); // finished: the thank-you page
    const open = await sendAnother();
    const link = new URL(h!.links.candidateUrl(open));
    const unavailable = await h!.http().get(link.pathname + link.search);
    expect(unavailable.status).toBe(410);
    expect(unavailable.text).toContain('not taken on this page');
  });

  it('for a check: completed or failed with its score and details, kept for the platforms that show them', async () => {
    const { reportId } = await invited({ kind: 'background_check' });
    const result = { status: 'failed', score: 'Alert', subtitle: 'Two records found', properties: [{ label: 'County', value: 'Kent' }] };
    const res = await post(reportId, result);
    expect(res.status).toBe(200);
    const s = await state(reportId);
    expect(s.invitation).toMatchObject({ status: 'failed', score: 'Alert', subtitle: 'Two records found', properties: '[{"label":"County","value":"Kent"}]' });
    expect(s.updates.at(-1)).toMatchObject({ subtitle: 'Two records found', properties: [{ label: 'County', value: 'Kent' }] });
    // The same result again is the same result; other details are another result.
    expect((await post(reportId, result)).status).toBe(200);
    expect((await post(reportId, { ...result, subtitle: 'Other words' })).status).toBe(409);
  });

  it('nothing is half-written: when queueing the report update fails, the invitation does not change either', async () => {
    const { reportId } = await invited();
    const undo = await refuseUpdates(h!.sql);
    const before = await state(reportId);
    const res = await post(reportId, COMPLETED);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Internal Server Error' });
    expect(await state(reportId)).toEqual(before);
    await undo();
    expect((await post(reportId, COMPLETED)).status).toBe(200);
  });
});

describe('POST /vendor/reports/{report_id}/result — any request', () => {
  const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 120 });
  const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 0, maxLength: 70 });
  const header = fc.oneof(
    fc.constant(undefined),
    printable,
    fc.tuple(fc.integer({ min: -1e6, max: 1e12 }), fc.array(hex, { maxLength: 4 })).map(([t, sigs]) => [`t=${t}`, ...sigs.map((s) => `v1=${s}`)].join(',')),
  );
  const body = fc.oneof(
    fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
    fc.json().map((j) => Buffer.from(j)),
    fc
      .record({
        status: fc.constantFrom('completed', 'failed', 'canceled', 'opened', 'started', 'in_review', 'sent', 'x'),
        score: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
        subtitle: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        completed_at: fc.option(fc.oneof(fc.string(), fc.date({ noInvalidDate: true }).map((d) => d.toISOString())), { nil: undefined }),
      })
      .map((r) => Buffer.from(JSON.stringify(r))),
  );

  it('never answers 5xx, and never changes anything without a valid signature', async () => {
    const { reportId } = await invited();
    const ids = fc.oneof(fc.constant(reportId), fc.uuid(), fc.string({ unit: fc.constantFrom(...'abcdef0123456789-'), minLength: 1, maxLength: 40 }));
    const before = await state(reportId);
    await fc.assert(
      fc.asyncProperty(ids, body, header, async (id, raw, signature) => {
        // The bytes as they are, declared JSON whatever they hold (superagent would serialise a Buffer).
        const req = request(h!.app).post(`/vendor/reports/${id}/result`).set('Content-Type', 'application/json').serialize((b) => b as string);
        if (signature !== undefined) req.set(VENDOR_SIGNATURE_HEADER, signature);
        const res = await req.send(raw);
        expect(res.status).toBeLessThan(500);
        // Random headers are never a valid signature (checked, not assumed): always 401, and nothing moved.
        expect(verifyVendorSignature(SECRET, id, raw, signature, h!.clock.now()).ok).toBe(false);
        expect(res.status).toBe(401);
        expect(await state(reportId)).toEqual(before);
      }),
      { numRuns: 150 },
    );
  });

  it('signed, with any body: never 5xx; the report moves only forward', async () => {
    const { reportId } = await invited();
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        const res = await request(h!.app)
          .post(`/vendor/reports/${reportId}/result`)
          // The bytes as they are: superagent would serialise a Buffer declared JSON as {"type":"Buffer",…}.
          .set('Content-Type', 'application/json')
          .serialize((b) => b as string)
          .set(VENDOR_SIGNATURE_HEADER, signVendorResult(SECRET, reportId, raw, now()))
          .send(raw);
        expect([200, 400, 409, 422]).toContain(res.status);
      }),
      { numRuns: 150 },
    );
    // However many results arrived, the platform heard of at most one.
    expect((await state(reportId)).updates.filter((u) => u.status !== undefined).length).toBeLessThanOrEqual(1);
  });
});
