import type { ServerResponse } from 'node:http';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SendCandidateBody } from '../../src/contract/schemas.js';
import { eventually } from '../support/eventually.js';
import { REFUSED_URL } from '../support/net.js';
import { ACME, ADA, ALAN, GLOBEX, mockPlatform, register, send, stubPartner, type StubPartner } from './support.js';

let partner: StubPartner;
let platform: ReturnType<typeof mockPlatform>;

beforeEach(async () => {
  partner = await stubPartner();
  // The contract's callback timeout: a stub partner on a busy machine answers well within it. The
  // timeout's own test gives its platform a short one.
  platform = mockPlatform();
  await register(platform.app, 'skill-check', partner.urls);
});
afterEach(() => partner.close());

const integration = (companyId: number = ACME.id, token = 'ptk_customer_token_0001') =>
  request(platform.app).post(`/api/marketplace/c/${companyId}/partners/skill-check/integration`).send({ token });

const lastCall = async () => {
  const res = await request(platform.app).get('/_mock/calls?direction=outbound&order=desc&limit=1').expect(200);
  return res.body.calls[0];
};

describe('integrate (validate_token)', () => {
  it('POSTs {company_id} with the token as Bearer and stores the integration on a 2xx', async () => {
    const res = await integration().expect(201);
    expect(res.body.integration).toMatchObject({ company_id: ACME.id, codename: 'skill-check', token_hint: '…0001' });
    expect(partner.received).toHaveLength(1);
    expect(partner.received[0]).toMatchObject({
      method: 'POST',
      path: '/validate_token',
      body: { company_id: ACME.id },
      headers: { authorization: 'Bearer ptk_customer_token_0001', 'content-type': 'application/json' },
    });
    const list = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners`).expect(200);
    expect(list.body.partners[0].integration).toMatchObject({ codename: 'skill-check' });
    expect(JSON.stringify(list.body)).not.toContain('ptk_customer_token_0001');
  });

  it('integrating again replaces the token (200)', async () => {
    await integration().expect(201);
    await integration(ACME.id, 'ptk_customer_token_0002').expect(200);
    await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners/skill-check/tests`).expect(200);
    expect(partner.received.at(-1)!.headers.authorization).toBe('Bearer ptk_customer_token_0002');
  });

  it.each([401, 403])('shows "Invalid token" when the partner answers %i, and integrates nothing', async (status) => {
    partner.answer('/validate_token', status, { error: 'This token is already connected to another company' });
    const res = await integration().expect(422);
    expect(res.body).toMatchObject({ error: 'Invalid token', outcome: 'invalid_token' });
    const list = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners`).expect(200);
    expect(list.body.partners[0].integration).toBeNull();
  });

  it('a refused new token leaves the working integration in place', async () => {
    await integration().expect(201);
    partner.answer('/validate_token', 401, { error: 'Invalid token' });
    await integration(ACME.id, 'ptk_wrong').expect(422);
    await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners/skill-check/tests`).expect(200);
    expect(partner.received.at(-1)!.headers.authorization).toBe('Bearer ptk_customer_token_0001');
  });

  it('requires a token (422) without calling the partner', async () => {
    await request(platform.app).post(`/api/marketplace/c/${ACME.id}/partners/skill-check/integration`).send({ token: '  ' }).expect(422);
    expect(partner.received).toHaveLength(0);
  });

  it('answers 404 for an unknown company or partner', async () => {
    await integration(99).expect(404);
    await request(platform.app).post(`/api/marketplace/c/${ACME.id}/partners/nobody/integration`).send({ token: 't' }).expect(404);
  });

  it('disconnecting removes the integration (204), then listing tests needs a new one (409)', async () => {
    await integration().expect(201);
    await request(platform.app).delete(`/api/marketplace/c/${ACME.id}/partners/skill-check/integration`).expect(204);
    const res = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners/skill-check/tests`).expect(409);
    expect(res.body.error).toMatch(/not integrated/);
  });
});

describe('how a failed callback is shown (platform-contract.md §4)', () => {
  beforeEach(async () => {
    await integration().expect(201);
  });

  it("shows the partner's own message for another 4xx", async () => {
    partner.answer('/tests', 402, { error: 'No credits left' });
    const res = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners/skill-check/tests`).expect(422);
    expect(res.body).toMatchObject({ error: 'No credits left', outcome: 'partner_error' });
    expect(await lastCall()).toMatchObject({ endpoint: 'tests', response_status: 402, outcome: 'No credits left' });
  });

  it('shows the generic message for a 4xx without an error message', async () => {
    partner.on('/tests', (_r, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Not found</h1>');
    });
    const res = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners/skill-check/tests`).expect(502);
    expect(res.body).toMatchObject({ error: 'There was a problem with the Skill Check API', outcome: 'problem' });
  });

  it('shows the generic message for a 5xx, even one with an error message', async () => {
    partner.answer('/tests', 503, { error: 'Database on fire' });
    const res = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners/skill-check/tests`).expect(502);
    expect(res.body.error).toBe('There was a problem with the Skill Check API');
  });

  it('gives up after the callback timeout and shows the generic message', async () => {
    // A platform whose callbacks have 300 ms, integrated as the others are. A machine busy enough
    // can take longer than that to answer validate_token: tried again until it answers in time.
    platform = mockPlatform({ callbackTimeoutMs: 300 });
    await register(platform.app, 'skill-check', partner.urls);
    await eventually(() => integration().expect(201), { what: 'the integration, within 300 ms' });
    // The partner holds its answer until the platform has answered the user: only giving up can
    // let the platform answer first.
    const held: ServerResponse[] = [];
    partner.on('/tests', (_r, res) => void held.push(res));
    const res = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners/skill-check/tests`).expect(502);
    expect(held).toHaveLength(1);
    expect(held[0]!.headersSent).toBe(false);
    expect(res.body.error).toBe('There was a problem with the Skill Check API');
    expect(await lastCall()).toMatchObject({ response_status: null, error: 'timed out after 300 ms' });
  });

  it('shows the generic message when the partner drops the connection', async () => {
    partner.on('/tests', (_r, res) => res.socket!.destroy());
    const res = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners/skill-check/tests`).expect(502);
    expect(res.body.error).toBe('There was a problem with the Skill Check API');
    expect((await lastCall()).error).toMatch(/^connection error/);
  });

  it('shows the generic message when nothing listens at the URL', async () => {
    await request(platform.app)
      .patch(`/api/p/skill-check/c/${ACME.id}/partner`)
      .set('authorization', `Bearer ${ACME.token}`)
      .send({ urls: { tests: `${REFUSED_URL}/tests` } })
      .expect(200);
    const res = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners/skill-check/tests`).expect(502);
    expect(res.body.error).toBe('There was a problem with the Skill Check API');
    expect((await lastCall()).error).toMatch(/ECONNREFUSED/);
  });
});

describe('list tests', () => {
  beforeEach(async () => {
    await integration().expect(201);
  });

  it('GETs urls.tests with the token and returns the list (extra fields pass through)', async () => {
    partner.answer('/tests', 200, [
      { id: 1, name: 'JavaScript', duration: 30 },
      { id: 'ruby-2', name: 'Ruby' },
    ]);
    const res = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners/skill-check/tests`).expect(200);
    expect(res.body.tests).toEqual([
      { id: 1, name: 'JavaScript', duration: 30 },
      { id: 'ruby-2', name: 'Ruby' },
    ]);
    expect(partner.received.at(-1)).toMatchObject({ method: 'GET', path: '/tests', headers: { authorization: 'Bearer ptk_customer_token_0001' } });
  });

  it('an empty list is a list', async () => {
    partner.answer('/tests', 200, []);
    const res = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners/skill-check/tests`).expect(200);
    expect(res.body.tests).toEqual([]);
  });

  it('a 200 that is not a list of tests is a problem with the API', async () => {
    partner.answer('/tests', 200, { tests: [{ id: 1, name: 'JavaScript' }] });
    const res = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/partners/skill-check/tests`).expect(502);
    expect(res.body.error).toBe('There was a problem with the Skill Check API');
    expect((await lastCall()).error).toMatch(/unexpected response body/);
  });
});

describe('send (send_candidate)', () => {
  beforeEach(async () => {
    await integration().expect(201);
    partner.answer('/send_candidate', 201, { id: 'x', status: 'sent' });
  });

  it('creates the report (sent, fresh UUID) and POSTs the §4.3 body with test_id as a string', async () => {
    const res = await request(platform.app)
      .post(`/api/marketplace/c/${ACME.id}/partners/skill-check/send`)
      .send({ candidate_id: ADA, test_id: 2, test_name: 'Ruby' })
      .expect(201);
    const report = res.body.report;
    expect(report).toMatchObject({
      status: 'sent',
      codename: 'skill-check',
      company_id: ACME.id,
      candidate_id: ADA,
      test_id: '2',
      test_name: 'Ruby',
      delivery: 'delivered',
    });
    expect(report.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const sent = partner.received.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer ptk_customer_token_0001');
    expect(sent.body).toEqual({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      candidate_id: ADA,
      company_id: ACME.id,
      report_id: report.id,
      test_id: '2',
      test_name: 'Ruby',
    });
    expect(SendCandidateBody.safeParse(sent.body).success).toBe(true);
    const candidates = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/candidates`).expect(200);
    const ada = candidates.body.candidates.find((c: { id: number }) => c.id === ADA);
    expect(ada.reports.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([[report.id, 'sent']]);
  });

  it('adds a key per configured extra input: phone, and admin as the sending member', async () => {
    await request(platform.app)
      .patch(`/api/p/skill-check/c/${ACME.id}/partner`)
      .set('authorization', `Bearer ${ACME.token}`)
      .send({ inputs: [{ kind: 'first_name', required: true }, { kind: 'phone', name: 'mobile', required: true }, { kind: 'admin' }] })
      .expect(200);
    await send(platform.app, 'skill-check', { user_id: 2 });
    expect(partner.received.at(-1)!.body).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      mobile: '+44 20 7946 0000',
      admin: { id: 2, name: 'Hana Hiring', email: 'hana@acme.example' },
    });
  });

  it('refuses to send (422) when a required input has no value, before any report exists', async () => {
    await request(platform.app)
      .patch(`/api/p/skill-check/c/${ACME.id}/partner`)
      .set('authorization', `Bearer ${ACME.token}`)
      .send({ inputs: [{ kind: 'phone', required: true }] })
      .expect(200);
    const before = partner.received.length;
    const res = await request(platform.app)
      .post(`/api/marketplace/c/${ACME.id}/partners/skill-check/send`)
      .send({ candidate_id: ALAN, test_id: 2, test_name: 'Ruby' })
      .expect(422);
    expect(res.body.error).toBe("Skill Check needs the candidate's phone number, and Alan Turing has none");
    expect(partner.received.length).toBe(before);
    expect(platform.db.prepare('SELECT count(*) AS n FROM reports').get()).toEqual({ n: 0 });
  });

  it('a failed send hides the report: no badge, and the error is kept on the report', async () => {
    partner.answer('/send_candidate', 422, { error: 'Unknown test' });
    const res = await request(platform.app)
      .post(`/api/marketplace/c/${ACME.id}/partners/skill-check/send`)
      .send({ candidate_id: ADA, test_id: 99, test_name: 'Ghost', report_id: '0b7e3f5c-1a2b-4c3d-8e9f-001122334455' })
      .expect(422);
    expect(res.body).toMatchObject({ error: 'Unknown test', outcome: 'partner_error' });
    const candidates = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/candidates`).expect(200);
    expect(candidates.body.candidates.find((c: { id: number }) => c.id === ADA).reports).toEqual([]);
    const report = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/reports/0b7e3f5c-1a2b-4c3d-8e9f-001122334455`).expect(200);
    expect(report.body.report).toMatchObject({ delivery: 'failed', delivery_error: 'Unknown test' });
  });

  it('the same report sent twice (a double click) is one report, delivered twice with the same body', async () => {
    const reportId = '5f1e2d3c-4b5a-4968-8776-655443322110';
    const body = { candidate_id: ADA, test_id: 2, test_name: 'Ruby', report_id: reportId };
    const [a, b] = await Promise.all([
      request(platform.app).post(`/api/marketplace/c/${ACME.id}/partners/skill-check/send`).send(body),
      request(platform.app).post(`/api/marketplace/c/${ACME.id}/partners/skill-check/send`).send(body),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.body.report.id).toBe(reportId);
    expect(b.body.report.id).toBe(reportId);
    const sends = partner.received.filter((r) => r.path === '/send_candidate');
    expect(sends).toHaveLength(2);
    expect(sends[0]!.body).toEqual(sends[1]!.body);
    expect(platform.db.prepare('SELECT count(*) AS n FROM reports').get()).toEqual({ n: 1 });
  });

  it('a report id already used for another candidate is refused (409) without a call', async () => {
    const report = await send(platform.app, 'skill-check');
    const before = partner.received.length;
    const res = await request(platform.app)
      .post(`/api/marketplace/c/${ACME.id}/partners/skill-check/send`)
      .send({ candidate_id: ALAN, test_id: 2, test_name: 'Ruby', report_id: report.id })
      .expect(409);
    expect(res.body.error).toMatch(/already used/);
    expect(partner.received.length).toBe(before);
  });

  it('answers 404 for a candidate of another company, 422 for a bad body, 409 when not integrated', async () => {
    await request(platform.app)
      .post(`/api/marketplace/c/${ACME.id}/partners/skill-check/send`)
      .send({ candidate_id: 31, test_id: 2, test_name: 'Ruby' })
      .expect(404);
    const bad = await request(platform.app)
      .post(`/api/marketplace/c/${ACME.id}/partners/skill-check/send`)
      .send({ candidate_id: 'ada', test_name: '' })
      .expect(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['candidate_id', 'test_id', 'test_name']);
    await request(platform.app)
      .post(`/api/marketplace/c/${GLOBEX.id}/partners/skill-check/send`)
      .send({ candidate_id: 31, test_id: 2, test_name: 'Ruby' })
      .expect(409);
  });
});

describe('cancel (report.urls.cancel)', () => {
  let secret: string;
  beforeEach(async () => {
    await partner.close();
    partner = await stubPartner();
    platform = mockPlatform();
    secret = await register(platform.app, 'skill-check', partner.urls);
    await integration().expect(201);
  });

  it('refuses clearly (409) when the report carries no cancel link', async () => {
    const report = await send(platform.app, 'skill-check');
    const res = await request(platform.app).post(`/api/marketplace/c/${ACME.id}/reports/${report.id}/cancel`).expect(409);
    expect(res.body.error).toBe('Skill Check gave this report no cancel link (urls.cancel); it can only be canceled by Skill Check');
  });

  it('POSTs to urls.cancel with the token; the report shows the request until the partner PATCHes canceled', async () => {
    const report = await send(platform.app, 'skill-check');
    await request(platform.app)
      .patch(`/api/p/skill-check/reports/${report.id}`)
      .set('rt-partner-secret', secret)
      .send({ urls: { cancel: `${partner.url}/reports/${report.id}/cancel` } })
      .expect(200);
    partner.answer(`/reports/${report.id}/cancel`, 200, { id: report.id, status: 'canceled' });
    const res = await request(platform.app).post(`/api/marketplace/c/${ACME.id}/reports/${report.id}/cancel`).expect(202);
    expect(res.body.report).toMatchObject({ status: 'sent', cancel_requested_at: '2026-01-05T09:00:00.000Z' });
    expect(partner.received.at(-1)).toMatchObject({
      method: 'POST',
      path: `/reports/${report.id}/cancel`,
      headers: { authorization: 'Bearer ptk_customer_token_0001' },
    });
    await request(platform.app)
      .patch(`/api/p/skill-check/reports/${report.id}`)
      .set('rt-partner-secret', secret)
      .send({ status: 'canceled' })
      .expect(200);
    const again = await request(platform.app).post(`/api/marketplace/c/${ACME.id}/reports/${report.id}/cancel`).expect(409);
    expect(again.body.error).toBe('This report is already canceled');
  });

  it("shows the partner's message when it refuses to cancel", async () => {
    const report = await send(platform.app, 'skill-check');
    await request(platform.app)
      .patch(`/api/p/skill-check/reports/${report.id}`)
      .set('rt-partner-secret', secret)
      .send({ urls: { cancel: `${partner.url}/cancel/${report.id}` } })
      .expect(200);
    partner.answer(`/cancel/${report.id}`, 409, { error: 'The test was already completed and can no longer be canceled' });
    const res = await request(platform.app).post(`/api/marketplace/c/${ACME.id}/reports/${report.id}/cancel`).expect(422);
    expect(res.body.error).toBe('The test was already completed and can no longer be canceled');
    const after = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/reports/${report.id}`).expect(200);
    expect(after.body.report.cancel_requested_at).toBeNull();
  });

  it("answers 404 for an unknown report or another company's report", async () => {
    const report = await send(platform.app, 'skill-check');
    await request(platform.app).post(`/api/marketplace/c/${GLOBEX.id}/reports/${report.id}/cancel`).expect(404);
    await request(platform.app).post(`/api/marketplace/c/${ACME.id}/reports/not-a-uuid/cancel`).expect(404);
  });
});
