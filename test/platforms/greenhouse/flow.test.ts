import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signVendorResult, VENDOR_SIGNATURE_HEADER } from '../../../src/contract/vendor-signature.js';
import { eventually } from '../../support/eventually.js';
import { startKitPartner, type KitPartner } from '../../support/kit-partner.js';
import { dollars } from '../../support/database.js';
import { HARRY_POTTER } from '../../support/greenhouse-candidate.js';

/**
 * Greenhouse's calls to a partner started as `npm start` starts it, over HTTP (docs/greenhouse.md):
 * what Greenhouse is answered, what the partner stores and e-mails, and the PATCH a result sends
 * to a listener standing for Greenhouse.
 */
const RESULTS_SECRET = 'vendor-results-secret-0123456789abcdef';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Greenhouse's side of the PATCH: records each request, answers with the next status queued for its path (200 when none). */
async function greenhouseListener() {
  const received: { method: string; path: string; authorization: string | undefined; body: string; contentLength: string | undefined }[] = [];
  const answers = new Map<string, number[]>();
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body: Buffer.concat(chunks).toString('utf8'), contentLength: req.headers['content-length'] });
      const status = answers.get(path)?.shift() ?? 200;
      // A busy Greenhouse asks for the retry at once: the shortest wait the kit allows (1 s).
      res.writeHead(status, status === 503 ? { 'retry-after': '0' } : {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    /** The statuses the next PATCHes to `path` are answered with, in order. */
    answer: (path: string, ...statuses: number[]) => void answers.set(path, statuses),
    to: (path: string) => received.filter((r) => r.path === path),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
type Listener = Awaited<ReturnType<typeof greenhouseListener>>;

const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

const sendTestBody = (listener: Listener, path: string, fields: Record<string, unknown> = {}) => ({
  partner_test_id: '1',
  candidate: HARRY_POTTER,
  sent_by: 'test_sender@example.org',
  url: `${listener.url}${path}`,
  ...fields,
});

let partner: KitPartner;
let listener: Listener;
let acme: { token: string; tests: { id: number }[] };
let globex: { token: string; tests: { id: number }[] };

beforeAll(async () => {
  listener = await greenhouseListener();
  partner = await startKitPartner({ VENDOR_RESULTS_SECRET: RESULTS_SECRET });
  acme = await partner.customer('Acme Corp', ['JavaScript', 'SQL']);
  globex = await partner.customer('Globex', ['Cobol']);
});
afterAll(async () => {
  await partner?.close();
  await listener?.close();
});

const gh = () => request(partner.url);
const row = (text: string, ...params: unknown[]) => partner.sql.get<Record<string, unknown>>(dollars(text), params);
const rows = (text: string, ...params: unknown[]) => partner.sql.all<Record<string, unknown>>(dollars(text), params);
const invitationCount = async () => Number((await row('SELECT count(*) AS n FROM invitations'))!.n);

/** send_test as Acme; the interview's id. */
async function sendTest(path: string, fields: Record<string, unknown> = {}, token = acme.token): Promise<string> {
  const res = await gh().post('/greenhouse/send_test').set('Authorization', basic(token)).send(sendTestBody(listener, path, fields));
  expect(res.status, res.text).toBe(200);
  expect(res.body).toEqual({ partner_interview_id: expect.stringMatching(UUID) });
  return res.body.partner_interview_id as string;
}

/** The vendor's product posts a result, once the invitation is started in it. */
async function postResult(reportId: string, result: Record<string, unknown>) {
  await eventually(async () => expect((await row('SELECT started_at FROM invitations WHERE report_id = ?', reportId))?.started_at).toBeTruthy(), {
    what: 'the invitation to be started',
  });
  const raw = JSON.stringify(result);
  const res = await gh()
    .post(`/vendor/reports/${reportId}/result`)
    .set('Content-Type', 'application/json')
    .set(VENDOR_SIGNATURE_HEADER, signVendorResult(RESULTS_SECRET, reportId, raw, Math.floor(Date.now() / 1000)))
    .send(raw);
  expect(res.status, res.text).toBe(200);
}

const testStatus = (reportId: string, token = acme.token) =>
  gh().get('/greenhouse/test_status').query({ partner_interview_id: reportId }).set('Authorization', basic(token));

const updatesOf = async (reportId: string) => rows('SELECT status, last_error FROM report_updates WHERE report_id = ? ORDER BY id', reportId);

describe('authentication', () => {
  it.each([
    ['no Authorization header', undefined],
    ['an unknown key', () => basic('ptk_unknown_0123456789abcdef0123456789abcdef0123')],
    ['the right key with a password', () => basic(acme.token, 'secret')],
    ['the right key as a Bearer token', () => `Bearer ${acme.token}`],
  ])('refuses %s: 401 in the kit\'s shape, and nothing is created', async (_what, header) => {
    const before = await invitationCount();
    for (const call of [
      gh().get('/greenhouse/list_tests'),
      gh().post('/greenhouse/send_test').send(sendTestBody(listener, '/refused')),
      gh().get('/greenhouse/test_status').query({ partner_interview_id: '7d0c8f0e-0f6b-4c55-9a53-2b0d5b8f4e21' }),
      gh().post('/greenhouse/response_error').send({ api_call: 'test_status', errors: ['x'] }),
    ]) {
      const res = await (header ? call.set('Authorization', header()) : call);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm=/);
    }
    expect(await invitationCount()).toBe(before);
    expect(listener.to('/refused')).toEqual([]);
  });
});

describe('list_tests', () => {
  it("lists the key's own tests with string ids, and no other customer's", async () => {
    const res = await gh().get('/greenhouse/list_tests').set('Authorization', basic(acme.token)).expect(200);
    expect(res.body).toEqual([
      { partner_test_id: String(acme.tests[0]!.id), partner_test_name: 'JavaScript' },
      { partner_test_id: String(acme.tests[1]!.id), partner_test_name: 'SQL' },
    ]);
    const other = await gh().get('/greenhouse/list_tests').set('Authorization', basic(globex.token)).expect(200);
    expect(other.body).toEqual([{ partner_test_id: String(globex.tests[0]!.id), partner_test_name: 'Cobol' }]);
  });

  it('is [] for an account without tests', async () => {
    const empty = await partner.customer('Initech');
    expect((await gh().get('/greenhouse/list_tests').set('Authorization', basic(empty.token)).expect(200)).body).toEqual([]);
  });
});

describe('send_test', () => {
  it('answers the interview id, stores the invitation with its Greenhouse data and the key sealed, and e-mails the candidate at once', async () => {
    const id = await sendTest('/interviews/1', { partner_test_id: acme.tests[1]!.id });
    const stored = (await row('SELECT * FROM invitations WHERE report_id = ?', id))!;
    expect(stored).toMatchObject({ platform: 'greenhouse', company_id: 0, candidate_id: 0, test_name: 'SQL', first_name: 'Harry', email: 'hpotter@hogwarts.edu' });
    const data = typeof stored.platform_data === 'string' ? JSON.parse(stored.platform_data) : stored.platform_data;
    expect(data).toEqual({
      url: `${listener.url}/interviews/1`,
      key: expect.stringMatching(/^v1\./),
      greenhouse_profile_url: 'https://app.greenhouse.io/people/17681532?application_id=26234709',
      preferred_name: 'Hal',
      resume_url: 'https://hogwarts.com/resume',
      sent_by: 'test_sender@example.org',
    });
    // The key is nowhere in clear: not in the invitation, not in any column.
    expect(JSON.stringify(stored)).not.toContain(acme.token);
    // The dashboard's invitation page links the candidate's Greenhouse profile, and shows no key.
    const page = await request(partner.url).get(`/admin/reports/${id}`).auth('admin', 'admin').expect(200);
    expect(page.text).toContain('href="https://app.greenhouse.io/people/17681532?application_id=26234709"');
    expect(page.text).toContain('Sent through</dt><dd>Greenhouse');
    expect(page.text).not.toContain(data.key);
    // Greenhouse names no company or candidate by number: the page invents none.
    expect(page.text).not.toMatch(/company 0|<dd>0 /);

    // No earlier update for Greenhouse to accept: the e-mail goes without one, greeting by the preferred name.
    const mail = await eventually(
      async () => {
        const m = await row("SELECT recipient, message FROM mail_outbox WHERE report_id = ? AND status = 'sent'", id);
        expect(m).toBeDefined();
        return m!;
      },
      { what: 'the invitation e-mail' },
    );
    expect(mail.recipient).toBe('hpotter@hogwarts.edu');
    expect(JSON.parse(mail.message as string).text).toMatch(/^Hello Hal,/m);
    // The start's update is nothing Greenhouse hears of: settled without a request, in its own loop.
    await eventually(async () => expect(await updatesOf(id)).toEqual([{ status: 'superseded', last_error: null }]), { what: "the start's update settled" });
  });

  it('greets by the first name when the preferred name is no simple name', async () => {
    const id = await sendTest('/interviews/2', {
      candidate: { ...sendTestBody(listener, '').candidate, preferred_name: 'Click https://evil.example' },
    });
    const mail = await eventually(async () => {
      const m = await row("SELECT message FROM mail_outbox WHERE report_id = ? AND status = 'sent'", id);
      expect(m).toBeDefined();
      return m!;
    });
    const text = JSON.parse(mail.message as string).text as string;
    expect(text).toMatch(/^Hello Harry,/m);
    expect(text).not.toContain('evil.example');
  });

  it('refuses an unknown test and a field that breaks the rules with a 422 naming the field, and creates nothing', async () => {
    const before = await invitationCount();
    const unknown = await gh().post('/greenhouse/send_test').set('Authorization', basic(acme.token)).send(sendTestBody(listener, '/x', { partner_test_id: globex.tests[0]!.id }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ partner_test_id: ['is not a test of this account'] });
    const bad = await gh()
      .post('/greenhouse/send_test')
      .set('Authorization', basic(acme.token))
      .send({ ...sendTestBody(listener, '/x'), candidate: { first_name: 'Harry' } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['candidate.email', 'candidate.greenhouse_profile_url', 'candidate.last_name']);
    expect(await invitationCount()).toBe(before);
  });
});

describe('test_status', () => {
  it('is sent for a new interview, and 404 with another customer\'s key, as for an unknown one', async () => {
    const id = await sendTest('/interviews/3');
    expect((await testStatus(id).expect(200)).body.partner_status).toMatch(/^(sent|in_progress)$/);
    const other = await testStatus(id, globex.token);
    expect(other.status).toBe(404);
    const unknown = await testStatus('7d0c8f0e-0f6b-4c55-9a53-2b0d5b8f4e21');
    expect(other.body).toEqual(unknown.body);
    expect(unknown.status).toBe(404);
    expect((await testStatus('not-a-uuid')).status).toBe(404);
    expect((await gh().get('/greenhouse/test_status').set('Authorization', basic(acme.token))).status).toBe(422);
  });
});

describe('the PATCH "the test is complete"', () => {
  it('reaches the url with the key as the Basic user name and no body; test_status then answers the result', async () => {
    const id = await sendTest('/interviews/done');
    await postResult(id, {
      status: 'completed',
      score: '80%',
      subtitle: 'Strong on recursion',
      properties: [{ label: 'Time spent', value: '42 min' }],
    });
    const [patch] = await eventually(() => {
      const got = listener.to('/interviews/done');
      expect(got).toHaveLength(1);
      return got;
    }, { what: 'the PATCH' });
    expect(patch).toMatchObject({ method: 'PATCH', authorization: basic(acme.token), body: '' });
    expect(patch!.contentLength ?? '0').toBe('0');

    const status = await testStatus(id).expect(200);
    expect(status.body).toEqual({
      partner_status: 'complete',
      partner_profile_url: expect.stringMatching(new RegExp(`^${partner.url}/results\\?token=`)),
      partner_score: 80,
      metadata: { Result: 'passed', Score: '80%', Summary: 'Strong on recursion', 'Time spent': '42 min' },
    });
    // The recruiter's link opens the results page.
    await request(status.body.partner_profile_url as string).get('').expect(200);
    // Once delivered, the key is forgotten.
    await eventually(async () => {
      const stored = (await row('SELECT platform_data FROM invitations WHERE report_id = ?', id))!;
      const data = typeof stored.platform_data === 'string' ? JSON.parse(stored.platform_data) : stored.platform_data;
      expect(data.key).toBeUndefined();
    }, { what: 'the key to be forgotten' });
  });

  it('is retried after a 503, and delivered', async () => {
    listener.answer('/interviews/busy', 503);
    const id = await sendTest('/interviews/busy');
    await postResult(id, { status: 'failed', score: '20%' });
    await eventually(() => expect(listener.to('/interviews/busy')).toHaveLength(2), { what: 'the PATCH to be retried' });
    await eventually(async () => expect(await updatesOf(id)).toContainEqual(expect.objectContaining({ status: 'delivered' })));
    expect((await testStatus(id).expect(200)).body).toMatchObject({ partner_status: 'complete', partner_score: 20, metadata: { Result: 'failed' } });
  });

  it('is a dead letter after a 400, shown on the dashboard', async () => {
    listener.answer('/interviews/refused', 400);
    const id = await sendTest('/interviews/refused');
    await postResult(id, { status: 'completed', score: '90' });
    await eventually(async () => expect(await updatesOf(id)).toContainEqual(expect.objectContaining({ status: 'dead' })), { what: 'a dead letter' });
    expect(listener.to('/interviews/refused')).toHaveLength(1);
    const page = await request(partner.url).get('/admin').query({ updates: 'dead' }).auth('admin', 'admin').expect(200);
    expect(page.text).toContain(id.slice(0, 8));
    expect(page.text).toContain('HTTP 400');
  });
});

describe('response_error', () => {
  it('is stored and shown on the dashboard, and answered {"status": 200}', async () => {
    const res = await gh()
      .post('/greenhouse/response_error')
      .set('Authorization', basic(acme.token))
      .send({
        api_call: 'test_status',
        errors: ["partner_status is 'complete' but partner_profile url is missing"],
        partner_test_id: '12345',
        partner_test_name: 'Personality Test',
        partner_interview_id: '299506',
        candidate_email: 'hpotter@hogwarts.edu',
      });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 200 });
    expect(await row('SELECT platform, account_id, summary FROM platform_notices ORDER BY id DESC')).toMatchObject({
      platform: 'greenhouse',
      summary: "Greenhouse found this partner's test_status answer malformed",
    });
    const page = await request(partner.url).get('/admin').auth('admin', 'admin').expect(200);
    expect(page.text).toContain('Reports from platforms');
    expect(page.text).toContain('Greenhouse found this partner&#39;s test_status answer malformed');
    expect(page.text).toContain('partner_status is &#39;complete&#39; but partner_profile url is missing');
  });

  it('refuses a report without api_call or errors: 422, nothing stored', async () => {
    const stored = async () => Number((await row('SELECT count(*) AS n FROM platform_notices'))!.n);
    const before = await stored();
    const res = await gh().post('/greenhouse/response_error').set('Authorization', basic(acme.token)).send({ errors: 'x' });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['api_call', 'errors']);
    expect(await stored()).toBe(before);
  });
});
