import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signVendorResult, VENDOR_SIGNATURE_HEADER } from '../../../src/contract/vendor-signature.js';
import { systemClock } from '../../../src/lib/clock.js';
import { connectionStore } from '../../../src/partner/connections/store.js';
import { dollars } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { startKitPartner, type KitPartner } from '../../support/kit-partner.js';

/**
 * Ashby's calls to a partner started as `npm start` starts it, over HTTP (docs/ashby.md): what
 * Ashby is answered, what the partner stores, and the `assessment.update` requests a listener
 * standing for Ashby's API receives, with the customer's Ashby API key.
 */
const RESULTS_SECRET = 'vendor-results-secret-0123456789abcdef';
const LINK_SECRET = 'ashby-flow-candidate-link-secret-0123456789';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ACME_ASHBY_KEY = 'acme-ashby-api-key-0123456789';
const GLOBEX_ASHBY_KEY = 'globex-ashby-api-key-9876543210';

interface Received {
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: Record<string, unknown>;
}
interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Ashby's API: records each request, answers each assessment with the next answer queued for it ({success: true} when none). */
async function ashbyListener() {
  const received: Received[] = [];
  const answers = new Map<string, Answer[]>();
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      received.push({ path: req.url ?? '', authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
      const answer = answers.get(String(body.assessment_id))?.shift() ?? { status: 200, body: { success: true, results: {} } };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The updates Ashby received about one assessment, in order. */
    of: (assessmentId: string) => received.filter((r) => r.body.assessment_id === assessmentId),
    /** How the next requests about `assessmentId` are answered, in order. */
    answer: (assessmentId: string, ...queued: Answer[]) => void answers.set(assessmentId, queued),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

let partner: KitPartner;
let ashby: Awaited<ReturnType<typeof ashbyListener>>;
interface Customer {
  id: number;
  token: string;
  tests: { id: number }[];
  types: { assessment_type_id: string; name: string }[];
}
let acme: Customer;
let globex: Customer;
let initech: Customer;

const row = (text: string, ...params: unknown[]) => partner.sql.get<Record<string, unknown>>(dollars(text), params);
const rows = (text: string, ...params: unknown[]) => partner.sql.all<Record<string, unknown>>(dollars(text), params);
const count = async (text: string, ...params: unknown[]) => Number((await row(text, ...params))!.n);
const invitationCount = () => count('SELECT count(*) AS n FROM invitations');
const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;

const call = (path: string, token: string | undefined, body: unknown) => {
  const req = request(partner.url).post(`/ashby/${path}`);
  return (token === undefined ? req : req.set('Authorization', basic(token))).send(body as object);
};

/** An account with these tests, its Ashby API key set when given, and its types as assessment.list lists them. */
async function customer(name: string, tests: string[], ashbyKey?: string): Promise<Customer> {
  const { token, tests: created } = await partner.customer(name, tests);
  const id = Number((await row('SELECT id FROM accounts WHERE name = ?', name))!.id);
  if (ashbyKey) await connectionStore(partner.sql, systemClock, LINK_SECRET).setCredential(id, 'ashby', ashbyKey);
  const listed = await call('assessment.list', token, {});
  expect(listed.status, listed.text).toBe(200);
  return { id, token, tests: created, types: listed.body.results };
}

beforeAll(async () => {
  ashby = await ashbyListener();
  partner = await startKitPartner({ VENDOR_RESULTS_SECRET: RESULTS_SECRET, CANDIDATE_LINK_SECRET: LINK_SECRET, ASHBY_API_URL: ashby.url });
  acme = await customer('Acme Corp', ['JavaScript', 'SQL'], ACME_ASHBY_KEY);
  globex = await customer('Globex', ['Cobol'], GLOBEX_ASHBY_KEY);
  initech = await customer('Initech', ['Fortran']);
});
afterAll(async () => {
  await partner?.close();
  await ashby?.close();
});

/** Ashby's start body: Ada, a new application each call unless named. */
const startBody = (typeId: string, application = randomUUID()) => ({
  assessment_type_id: typeId,
  candidate: {
    ashby_id: 'cand-ada',
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    ashby_profile_url: 'https://app.ashbyhq.com/candidates/cand-ada',
  },
  application: { ashby_id: application, status: 'Active' },
  job: { ashby_id: 'job-7', name: 'Backend Engineer', ashby_job_url: 'https://app.ashbyhq.com/jobs/job-7', req_id: 'ENG-42', hiringTeam: [] },
});

const outboxOf = (reportId: string) => rows('SELECT body, status, last_error FROM report_updates WHERE report_id = ? ORDER BY id', reportId);

/** A start that succeeds; the assessment's id. */
async function start(who: Customer = acme, body: unknown = startBody(who.types[0]!.assessment_type_id)): Promise<string> {
  const res = await call('assessment.start', who.token, body);
  expect(res.status, res.text).toBe(200);
  return res.body.results.assessment_id as string;
}

/**
 * The vendor's product posts a result or a stage, once the invitation is started in it and the
 * updates queued before are settled: each of a test's updates is then a request of its own (pending
 * ones would be merged into one).
 */
async function postResult(reportId: string, result: Record<string, unknown>) {
  await eventually(async () => expect((await row('SELECT started_at FROM invitations WHERE report_id = ?', reportId))?.started_at).toBeTruthy(), {
    what: 'the invitation to be started',
  });
  await eventually(async () => expect((await outboxOf(reportId)).filter((u) => u.status === 'pending')).toEqual([]), { what: 'the updates queued before settled' });
  const raw = JSON.stringify(result);
  const res = await request(partner.url)
    .post(`/vendor/reports/${reportId}/result`)
    .set('Content-Type', 'application/json')
    .set(VENDOR_SIGNATURE_HEADER, signVendorResult(RESULTS_SECRET, reportId, raw, Math.floor(Date.now() / 1000)))
    .send(raw);
  expect(res.status, res.text).toBe(200);
}

/** The n updates Ashby received about an assessment, once it has them. */
const updatesReceived = (assessmentId: string, n: number) =>
  eventually(
    () => {
      const got = ashby.of(assessmentId);
      expect(got).toHaveLength(n);
      return got;
    },
    { what: `${n} assessment.update of ${assessmentId}` },
  );


describe('authentication', () => {
  it.each([
    ['no Authorization header', () => undefined],
    ['an unknown key', () => basic('ptk_unknown_0123456789abcdef0123456789abcdef0123')],
    ['the right key with a password', () => basic(acme.token, 'secret')],
    ['the right key as a Bearer token', () => `Bearer ${acme.token}`],
    ['the right key with no scheme', () => Buffer.from(`${acme.token}:`).toString('base64')],
    ['the right key in bad base64', () => `Basic ${Buffer.from(`${acme.token}:`).toString('base64')}!!`],
    ['the right key without its colon', () => `Basic ${Buffer.from(acme.token).toString('base64')}`],
  ])("refuses %s: 401 in Ashby's envelope, and nothing is created or canceled", async (_what, header) => {
    const before = await invitationCount();
    const assessment = await start();
    for (const [path, body] of [
      ['assessment.list', {}],
      ['assessment.start', startBody(acme.types[0]!.assessment_type_id)],
      ['assessment.cancel', { assessment_id: assessment }],
    ] as const) {
      const req = request(partner.url).post(`/ashby/${path}`);
      const value = header();
      const res = await (value === undefined ? req : req.set('Authorization', value)).send(body);
      expect(res.status, `${path}: ${res.text}`).toBe(401);
      expect(res.body).toEqual({
        success: false,
        message: expect.any(String),
        errors: ['unauthorized'],
        errorInfo: { code: 'unauthorized', message: res.body.message },
      });
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="ashby"/);
    }
    expect(await invitationCount()).toBe(before + 1);
    expect((await row('SELECT status FROM invitations WHERE report_id = ?', assessment))!.status).toBe('sent');
  });
});

describe('assessment.list', () => {
  it("lists the key's own tests as assessment types with UUID ids, and no other customer's", () => {
    expect(acme.types).toEqual([
      { assessment_type_id: expect.stringMatching(UUID), name: 'JavaScript', description: expect.stringContaining('JavaScript') },
      { assessment_type_id: expect.stringMatching(UUID), name: 'SQL', description: expect.stringContaining('SQL') },
    ]);
    expect(new Set(acme.types.map((t) => t.assessment_type_id)).size).toBe(2);
    expect(globex.types.map((t) => t.name)).toEqual(['Cobol']);
    expect(acme.types.map((t) => t.assessment_type_id)).not.toContain(globex.types[0]!.assessment_type_id);
  });

  it('is what the home page gives Ashby: the base URL and each call, and the API the updates go to', async () => {
    const home = await request(partner.url).get('/').set('Accept', 'application/json').expect(200);
    expect(home.body.platforms.ashby).toEqual({
      label: 'Ashby',
      endpoints: {
        base_url: `${partner.url}/ashby`,
        'assessment.list': `${partner.url}/ashby/assessment.list`,
        'assessment.start': `${partner.url}/ashby/assessment.start`,
        'assessment.cancel': `${partner.url}/ashby/assessment.cancel`,
      },
      settings: { api_url: ashby.url },
    });
  });

  it('answers {success, results: []} for an account without tests, whatever the body holds', async () => {
    const { token } = await partner.customer('Empty Inc');
    const res = await call('assessment.list', token, { anything: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, results: [] });
  });
});

describe('assessment.start', () => {
  it('answers the assessment id and Invited, stores the invitation with its Ashby data, e-mails the candidate at once, and shows the profile on the dashboard', async () => {
    const application = randomUUID();
    const before = Date.now();
    const res = await call('assessment.start', acme.token, startBody(acme.types[1]!.assessment_type_id, application));
    expect(res.status, res.text).toBe(200);
    const id = res.body.results.assessment_id as string;
    expect(res.body).toEqual({
      success: true,
      results: {
        assessment_id: expect.stringMatching(UUID),
        update_request: {
          assessment_id: id,
          timestamp: expect.any(Number),
          assessment_status: { identifier: 'status', label: 'Status', type: 'string', value: 'Invited' },
        },
      },
    });
    expect(Number.isInteger(res.body.results.update_request.timestamp)).toBe(true);
    expect(res.body.results.update_request.timestamp).toBeGreaterThanOrEqual(before);

    const stored = (await row('SELECT * FROM invitations WHERE report_id = ?', id))!;
    expect(stored).toMatchObject({ platform: 'ashby', account_id: acme.id, test_name: 'SQL', first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' });
    expect(json(stored.platform_data)).toEqual({
      assessment_type_id: acme.types[1]!.assessment_type_id,
      candidate_ashby_id: 'cand-ada',
      ashby_profile_url: 'https://app.ashbyhq.com/candidates/cand-ada',
      application_ashby_id: application,
      application_status: 'Active',
      job_ashby_id: 'job-7',
      job_name: 'Backend Engineer',
      ashby_job_url: 'https://app.ashbyhq.com/jobs/job-7',
      req_id: 'ENG-42',
    });
    // Ashby learnt the id from the answer: the e-mail goes without an update to accept.
    await eventually(async () => expect(await row("SELECT recipient FROM mail_outbox WHERE report_id = ? AND status = 'sent'", id)).toEqual({ recipient: 'ada@example.com' }), {
      what: 'the invitation e-mail',
    });
    // The invitation's start is nothing more for Ashby (it was told Invited): settled without a request.
    await eventually(async () => expect((await outboxOf(id)).map((u) => u.status)).toEqual(['superseded']), { what: "the start's update settled" });
    expect(ashby.of(id)).toEqual([]);

    const page = await request(partner.url).get(`/admin/reports/${id}`).auth('admin', 'admin').expect(200);
    expect(page.text).toContain('Sent through</dt><dd>Ashby');
    expect(page.text).toContain('href="https://app.ashbyhq.com/candidates/cand-ada"');
    expect(page.text).toContain('Backend Engineer');
    expect(page.text).not.toContain(ACME_ASHBY_KEY);
  });

  it('answers 409 to the same start while the first is under way, once the first is canceled starts anew, and never makes two of a burst', async () => {
    const application = randomUUID();
    const body = startBody(acme.types[0]!.assessment_type_id, application);
    const first = await start(acme, body);
    const before = await invitationCount();
    const again = await call('assessment.start', acme.token, body);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, errorInfo: { code: 'already_assessed' } });
    expect(again.body.message).toContain(first);
    // Another type for the same application, or the same type for another application, is another assessment.
    const other = await start(acme, startBody(acme.types[1]!.assessment_type_id, application));
    expect(other).not.toBe(first);
    expect(await invitationCount()).toBe(before + 1);

    expect((await call('assessment.cancel', acme.token, { assessment_id: first })).body.success).toBe(true);
    const restarted = await start(acme, body);
    expect(restarted).not.toBe(first);
    expect((await call('assessment.start', acme.token, body)).status).toBe(409);

    // Eight identical starts at once: one assessment.
    const burst = startBody(acme.types[0]!.assessment_type_id);
    const beforeBurst = await invitationCount();
    const answers = await Promise.all(Array.from({ length: 8 }, () => call('assessment.start', acme.token, burst)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect(await invitationCount()).toBe(beforeBurst + 1);
  });

  it("refuses another customer's or an unknown type with a 422 message that names nothing of the other customer, and creates nothing", async () => {
    const before = await invitationCount();
    const other = await call('assessment.start', acme.token, startBody(globex.types[0]!.assessment_type_id));
    const unknown = await call('assessment.start', acme.token, startBody(randomUUID()));
    expect(other.status).toBe(422);
    expect(other.body).toEqual(unknown.body);
    expect(other.body).toMatchObject({ success: false, message: expect.stringContaining('assessment_type_id'), errorInfo: { code: 'unknown_assessment_type' } });
    expect(other.text).not.toContain('Cobol');
    expect(other.text).not.toContain(globex.types[0]!.assessment_type_id);
    expect(await invitationCount()).toBe(before);
  });

  it('refuses a start for an account without an Ashby API key, saying how to set one, and creates nothing', async () => {
    const before = await invitationCount();
    const res = await call('assessment.start', initech.token, startBody(initech.types[0]!.assessment_type_id));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, errorInfo: { code: 'missing_api_key' } });
    expect(res.body.message).toContain(`npm run accounts -- credential set ${initech.id} ashby <key>`);
    expect(await invitationCount()).toBe(before);
    // The vendor's operator, who sets the key, reads it on the dashboard.
    const page = await request(partner.url).get('/admin').auth('admin', 'admin').expect(200);
    expect(page.text).toContain('Ashby asked to start an assessment, refused: this account has no Ashby API key');
    expect(page.text).toContain(`npm run accounts -- credential set ${initech.id} ashby &lt;key&gt;`);
  });

  it('refuses a body that breaks the rules with a 422 naming each field', async () => {
    const before = await invitationCount();
    const good = startBody(acme.types[0]!.assessment_type_id);
    const res = await call('assessment.start', acme.token, { ...good, candidate: { first_name: 'Ada' }, job: { ...good.job, ashby_job_url: 'javascript:alert(1)' } });
    expect(res.status).toBe(422);
    expect(res.body.errorInfo.code).toBe('invalid_input');
    expect(Object.keys(res.body.errorInfo.meta.fields).sort()).toEqual([
      'candidate.ashby_id',
      'candidate.ashby_profile_url',
      'candidate.email',
      'candidate.last_name',
      'job.ashby_job_url',
    ]);
    const malformed = await request(partner.url).post('/ashby/assessment.start').set('Authorization', basic(acme.token)).set('Content-Type', 'application/json').send('{"a":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ success: false, errorInfo: { code: 'invalid_input' } });
    expect(await invitationCount()).toBe(before);
  });
});

describe('assessment.cancel', () => {
  it("cancels the key's own assessment, repeated alike, and tells Ashby nothing it asked for itself", async () => {
    const id = await start();
    const res = await call('assessment.cancel', acme.token, { assessment_id: id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, results: { assessment_id: id } });
    expect(await row('SELECT status, canceled_by, cancel_reason FROM invitations WHERE report_id = ?', id)).toEqual({
      status: 'canceled',
      canceled_by: 'platform',
      cancel_reason: 'Canceled in Ashby',
    });
    expect((await call('assessment.cancel', acme.token, { assessment_id: id.toUpperCase() })).body).toEqual({ success: true, results: { assessment_id: id } });
    // The cancel's update (and the start's, when the invitation started before it) settled without a request.
    const settled = await eventually(
      async () => {
        const updates = await outboxOf(id);
        expect(updates.map((u) => u.status)).toEqual(updates.map(() => 'superseded'));
        return updates;
      },
      { what: 'the updates settled' },
    );
    expect(json(settled.at(-1)!.body)).toMatchObject({ status: 'canceled', canceled_by: 'platform' });
    expect(ashby.of(id)).toEqual([]);
  });

  it("refuses B's cancel of A's assessment, and a cancel of another platform's report, exactly as an unknown one, and leaves them as they were", async () => {
    const id = await start(acme);
    const unknown = await call('assessment.cancel', globex.token, { assessment_id: randomUUID() });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ success: false, errorInfo: { code: 'assessment_not_found' } });
    expect((await call('assessment.cancel', globex.token, { assessment_id: id })).body).toEqual(unknown.body);
    expect((await call('assessment.cancel', globex.token, { assessment_id: 'not-a-uuid' })).body).toEqual(unknown.body);
    expect((await row('SELECT status FROM invitations WHERE report_id = ?', id))!.status).toBe('sent');
    // B cannot start with A's type either (above); nor see A's assessment through a start of its own.
    const greenhouse = await request(partner.url)
      .post('/greenhouse/send_test')
      .set('Authorization', basic(acme.token))
      .send({
        partner_test_id: acme.tests[0]!.id,
        candidate: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', greenhouse_profile_url: 'https://app.greenhouse.io/people/1' },
        url: 'http://127.0.0.1:9/never',
      });
    expect(greenhouse.status, greenhouse.text).toBe(200);
    const theirs = greenhouse.body.partner_interview_id as string;
    expect((await call('assessment.cancel', acme.token, { assessment_id: theirs })).body).toEqual(unknown.body);
    expect((await row('SELECT status FROM invitations WHERE report_id = ?', theirs))!.status).toBe('sent');
  });

  it('refuses to cancel a complete assessment', async () => {
    const id = await start();
    await postResult(id, { status: 'completed', score: '90' });
    const res = await call('assessment.cancel', acme.token, { assessment_id: id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, errorInfo: { code: 'assessment_complete' } });
    expect((await row('SELECT status FROM invitations WHERE report_id = ?', id))!.status).toBe('completed');
  });
});

describe('assessment.update', () => {
  it("sends Started when the candidate starts, then the result: the customer's key, a typed numeric score, the results page, metadata and millisecond timestamps", async () => {
    const id = await start();
    await postResult(id, { status: 'started' });
    const [started] = await updatesReceived(id, 1);
    expect(started).toMatchObject({ path: '/assessment.update', authorization: basic(ACME_ASHBY_KEY), contentType: 'application/json' });
    expect(started!.body).toEqual({
      assessment_id: id,
      timestamp: expect.any(Number),
      assessment_status: { identifier: 'status', label: 'Status', type: 'string', value: 'Started' },
    });

    await postResult(id, { status: 'completed', score: '87%', subtitle: '13 of 15 right', properties: [{ label: 'Time taken', value: '24 min' }] });
    const [, result] = await updatesReceived(id, 2);
    expect(result!.authorization).toBe(basic(ACME_ASHBY_KEY));
    expect(result!.body).toEqual({
      assessment_id: id,
      timestamp: expect.any(Number),
      assessment_status: { identifier: 'status', label: 'Status', type: 'string', value: 'Completed' },
      assessment_result: { identifier: 'score', label: 'Score', type: 'numeric_score', value: 87 },
      assessment_profile_url: { identifier: 'profile', label: 'Results', type: 'url', value: expect.stringMatching(new RegExp(`^${partner.url}/results\\?token=`)) },
      metadata: [
        { identifier: 'metadata:Summary', label: 'Summary', type: 'string', value: '13 of 15 right' },
        { identifier: 'metadata:Time taken', label: 'Time taken', type: 'string', value: '24 min' },
      ],
    });
    // Each carries when its change happened, in integer milliseconds: the update's own time.
    const queued = (await outboxOf(id)).map((u) => json(u.body));
    const times = [started!, result!].map((r) => r.body.timestamp as number);
    expect(times.every(Number.isInteger)).toBe(true);
    expect(times).toEqual([Date.parse(queued[1]!.at as string), Date.parse(queued[2]!.at as string)]);
    expect(times[1]).toBeGreaterThanOrEqual(times[0]!);
    // The recruiter's link opens the results page.
    await request((result!.body.assessment_profile_url as { value: string }).value).get('').expect(200);
    await eventually(async () => expect((await outboxOf(id)).map((u) => u.status)).toEqual(['superseded', 'delivered', 'delivered']));
  });

  it('sends a failed result as Failed with the score as text when it is no number', async () => {
    const id = await start(globex);
    await postResult(id, { status: 'failed', score: 'E' });
    const [update] = await updatesReceived(id, 1);
    expect(update!.authorization).toBe(basic(GLOBEX_ASHBY_KEY));
    expect(update!.body).toMatchObject({
      assessment_status: { value: 'Failed' },
      assessment_result: { identifier: 'score', label: 'Score', type: 'string', value: 'E' },
      assessment_profile_url: { type: 'url' },
    });
    expect(update!.body).not.toHaveProperty('metadata');
  });

  it("sends the vendor's cancel as cancelled_reason", async () => {
    const id = await start();
    await postResult(id, { status: 'canceled' });
    const [update] = await updatesReceived(id, 1);
    expect(update!.body).toEqual({
      assessment_id: id,
      timestamp: expect.any(Number),
      cancelled_reason: { identifier: 'cancelled_reason', label: 'Cancelled', type: 'string', value: "Canceled in the assessment provider's product" },
    });
  });

  it('makes a 200 with success: false and a code of a bad request a dead letter at once, shown with its code on the dashboard', async () => {
    const id = await start();
    ashby.answer(id, { status: 200, body: { success: false, errors: ['invalid_input'], errorInfo: { code: 'invalid_input', message: 'Request payload is malformed' } } });
    await postResult(id, { status: 'completed', score: '50' });
    await eventually(async () => expect((await outboxOf(id)).map((u) => u.status)).toEqual(['superseded', 'dead']), { what: 'a dead letter' });
    expect(ashby.of(id)).toHaveLength(1);
    expect((await outboxOf(id))[1]!.last_error).toContain('invalid_input: Request payload is malformed');
    const page = await request(partner.url).get('/admin').query({ updates: 'dead' }).auth('admin', 'admin').expect(200);
    expect(page.text).toContain(id.slice(0, 8));
    expect(page.text).toContain('invalid_input');
  });

  it('retries a 200 with success: false whose code it cannot place, and delivers', async () => {
    const id = await start();
    // Asked to retry at once: the shortest wait the kit allows (1 s).
    ashby.answer(id, { status: 200, body: { success: false, errorInfo: { code: 'assessment_not_ready' } }, headers: { 'retry-after': '0' } });
    await postResult(id, { status: 'completed', score: '70%' });
    await eventually(async () => expect((await outboxOf(id)).map((u) => u.status)).toEqual(['superseded', 'delivered']), { what: 'the retry delivered' });
    expect(ashby.of(id).map((r) => (r.body.assessment_result as { value: unknown }).value)).toEqual([70, 70]);
  });

  it('makes an update a dead letter, saying how to set the key, when the key was removed since the start', async () => {
    const { token } = await partner.customer('Hooli', ['Go']);
    const id = Number((await row('SELECT id FROM accounts WHERE name = ?', 'Hooli'))!.id);
    const connections = connectionStore(partner.sql, systemClock, LINK_SECRET);
    await connections.setCredential(id, 'ashby', 'hooli-ashby-api-key-000000');
    const type = (await call('assessment.list', token, {})).body.results[0].assessment_type_id as string;
    const assessment = await start({ id, token, tests: [], types: [] }, startBody(type));
    expect(await connections.removeCredential(id, 'ashby')).toBe(true);
    await postResult(assessment, { status: 'completed', score: '60' });
    await eventually(async () => expect((await outboxOf(assessment)).map((u) => u.status)).toEqual(['superseded', 'dead']), { what: 'a dead letter' });
    expect((await outboxOf(assessment))[1]!.last_error).toContain(`npm run accounts -- credential set ${id} ashby <key>`);
    expect(ashby.of(assessment)).toEqual([]);
  });
});
