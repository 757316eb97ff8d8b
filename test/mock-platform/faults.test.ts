import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { mockPlatforms } from '../../src/mock-platform/platforms/index.js';
import { ACME, ADA, integrate, mockPlatform, register, send, stubPartner, type StubPartner } from './support.js';

let partner: StubPartner;
let platform: ReturnType<typeof mockPlatform>;
let secret: string;
let reportId: string;

beforeEach(async () => {
  partner = await stubPartner();
  platform = mockPlatform();
  secret = await register(platform.app, 'skill-check', partner.urls);
  await integrate(platform.app, ACME.id, 'skill-check');
  reportId = (await send(platform.app, 'skill-check')).id;
});
afterEach(() => partner.close());

const update = () =>
  request(platform.app).patch(`/api/p/skill-check/reports/${reportId}`).set('rt-partner-secret', secret).send({ status: 'completed' });
const arm = (fault: object) => request(platform.app).post('/_mock/faults').send(fault);

describe('fault injection', () => {
  it('answers the next N calls of an endpoint with the given status, then behaves again', async () => {
    const armed = await arm({ endpoint: 'reports.update', status: 503, times: 2 }).expect(201);
    expect(armed.body.fault).toMatchObject({ endpoint: 'reports.update', status: 503, remaining: 2, drop: false });
    const first = await update().expect(503);
    expect(first.body).toEqual({ error: 'Injected fault: 503 on reports.update' });
    await update().expect(503);
    const third = await update().expect(200);
    expect(third.body.report.status).toBe('completed');
  });

  it('a faulted call changes nothing', async () => {
    await arm({ endpoint: 'reports.update', status: 500 }).expect(201);
    await update().expect(500);
    const list = await request(platform.app)
      .get(`/api/p/skill-check/c/${ACME.id}/candidates/17/reports`)
      .set('rt-partner-secret', secret)
      .expect(200);
    expect(list.body.reports[0].status).toBe('sent');
  });

  it('applies to one endpoint only', async () => {
    await arm({ endpoint: 'partners.read', status: 500 }).expect(201);
    await update().expect(200);
    await request(platform.app).get(`/api/p/skill-check/c/${ACME.id}/partner`).set('authorization', `Bearer ${ACME.token}`).expect(500);
  });

  it('answers even unauthenticated calls, as a broken network would', async () => {
    await arm({ endpoint: 'partners.create', status: 429 }).expect(201);
    await request(platform.app).post(`/api/p/x1/c/${ACME.id}/partner`).send({}).expect(429);
  });

  it('delays the answer by delayMs, then answers normally', async () => {
    await arm({ endpoint: 'reports.update', delayMs: 250 }).expect(201);
    const started = Date.now();
    await update().expect(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
  });

  it('delays, then answers with the status, when both are given', async () => {
    await arm({ endpoint: 'reports.update', delayMs: 100, status: 502 }).expect(201);
    const started = Date.now();
    await update().expect(502);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('drops the connection without an answer', async () => {
    await arm({ endpoint: 'reports.update', drop: true }).expect(201);
    await expect(update()).rejects.toThrow(/socket hang up|ECONNRESET/);
    await update().expect(200);
  });

  it('uses faults on one endpoint in the order they were armed', async () => {
    await arm({ endpoint: 'reports.update', status: 500 }).expect(201);
    await arm({ endpoint: 'reports.update', status: 429 }).expect(201);
    await update().expect(500);
    await update().expect(429);
    await update().expect(200);
  });

  it('lists armed faults with the calls left, and clears them', async () => {
    const a = await arm({ endpoint: 'reports.update', status: 500, times: 3 }).expect(201);
    await arm({ endpoint: 'reports.list', drop: true }).expect(201);
    await update().expect(500);
    const listed = await request(platform.app).get('/_mock/faults').expect(200);
    expect(listed.body.faults.map((f: { endpoint: string; remaining: number }) => [f.endpoint, f.remaining])).toEqual([
      ['reports.update', 2],
      ['reports.list', 1],
    ]);
    expect(listed.body.endpoints).toEqual(
      expect.arrayContaining(['partners.create', 'partners.read', 'partners.update', 'partners.delete', 'reports.update', 'reports.list']),
    );
    await request(platform.app).delete(`/_mock/faults/${a.body.fault.id}`).expect(204);
    await request(platform.app).delete(`/_mock/faults/${a.body.fault.id}`).expect(404);
    await request(platform.app).delete('/_mock/faults').expect(204);
    expect((await request(platform.app).get('/_mock/faults').expect(200)).body.faults).toEqual([]);
    await update().expect(200);
  });

  it.each([
    ['an unknown endpoint', { endpoint: 'reports.delete', status: 500 }, 'endpoint'],
    ['no effect at all', { endpoint: 'reports.update' }, 'status'],
    ['a status that is not an error', { endpoint: 'reports.update', status: 200 }, 'status'],
    ['a drop with a status', { endpoint: 'reports.update', drop: true, status: 500 }, 'drop'],
    ['zero times', { endpoint: 'reports.update', status: 500, times: 0 }, 'times'],
    ['a delay over two minutes', { endpoint: 'reports.update', delayMs: 120_001 }, 'delayMs'],
  ])('refuses %s (422)', async (_what, body, field) => {
    const res = await arm(body).expect(422);
    expect(res.body.errors).toHaveProperty([field]);
    expect((await request(platform.app).get('/_mock/faults').expect(200)).body.faults).toEqual([]);
  });

  it('names the known endpoints when refusing an unknown one', async () => {
    const res = await arm({ endpoint: 'nope', status: 500 }).expect(422);
    expect(res.body.errors.endpoint[0]).toMatch(/must be one of: .*reports\.update/);
  });
});

describe('faults on the callbacks to the partner', () => {
  let demo: StubPartner;
  let mock: ReturnType<typeof mockPlatform>;
  let demoSecret: string;
  beforeEach(async () => {
    demo = await stubPartner();
    // A callback timeout no busy machine reaches, so that only a fault decides how a call ends.
    mock = mockPlatform({ callbackTimeoutMs: 60_000 });
    demoSecret = await register(mock.app, 'demo-assessments', demo.urls, { name: 'Demo Assessments' });
    await integrate(mock.app, ACME.id, 'demo-assessments');
  });
  afterEach(() => demo.close());

  const armCallback = (fault: object) => request(mock.app).post('/_mock/faults').send({ target: 'callback', ...fault });
  const sendTest = () =>
    request(mock.app)
      .post(`/api/marketplace/c/${ACME.id}/partners/demo-assessments/send`)
      .send({ candidate_id: ADA, test_id: 2, test_name: 'Ruby' });
  const sendCalls = () => demo.received.filter((r) => r.path === '/send_candidate');
  const lastCall = async () =>
    (await request(mock.app).get('/_mock/calls?direction=outbound&endpoint=send_candidate&order=desc&limit=1').expect(200)).body.calls[0];

  it('a status on send_candidate: the recruiter sees the problem message, the partner receives no call', async () => {
    const armed = await armCallback({ endpoint: 'send_candidate', status: 500 }).expect(201);
    expect(armed.body.fault).toMatchObject({ target: 'callback', endpoint: 'send_candidate', status: 500, remaining: 1 });
    const res = await sendTest().expect(502);
    expect(res.body).toMatchObject({ error: 'There was a problem with the Demo Assessments API', outcome: 'problem' });
    expect(sendCalls()).toHaveLength(0);
    expect(await lastCall()).toMatchObject({ response_status: 500, fault: 'status 500' });
    // Used up: the next send reaches the partner.
    await sendTest().expect(201);
    expect(sendCalls()).toHaveLength(1);
  });

  it('a dropped connection: the same message, no call, and the call log says the connection closed', async () => {
    await armCallback({ endpoint: 'send_candidate', drop: true }).expect(201);
    const res = await sendTest().expect(502);
    expect(res.body.error).toBe('There was a problem with the Demo Assessments API');
    expect(sendCalls()).toHaveLength(0);
    expect(await lastCall()).toMatchObject({ response_status: null, fault: 'drop connection', error: expect.stringMatching(/other side closed/) });
  });

  it('a delay past the callback timeout: the call times out before reaching the partner', async () => {
    mock = mockPlatform({ callbackTimeoutMs: 300 });
    await register(mock.app, 'demo-assessments', demo.urls, { name: 'Demo Assessments' });
    // Its own callbacks have 300 ms: a machine busy enough can take longer to answer validate_token.
    await eventually(() => integrate(mock.app, ACME.id, 'demo-assessments'), { what: 'the integration, within 300 ms' });
    await armCallback({ endpoint: 'send_candidate', delayMs: 5_000 }).expect(201);
    const res = await sendTest().expect(502);
    expect(res.body.error).toBe('There was a problem with the Demo Assessments API');
    expect(sendCalls()).toHaveLength(0);
    expect(await lastCall()).toMatchObject({ error: 'timed out after 300 ms', fault: 'delay 5000 ms' });
  });

  it('a delay within the timeout: the call goes through late', async () => {
    await armCallback({ endpoint: 'tests', delayMs: 150 }).expect(201);
    const started = Date.now();
    await request(mock.app).get(`/api/marketplace/c/${ACME.id}/partners/demo-assessments/tests`).expect(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(demo.received.filter((r) => r.path === '/tests')).toHaveLength(1);
  });

  it('a 4xx status shows as the partner\'s own refusal; validate_token and cancel take faults too', async () => {
    await armCallback({ endpoint: 'validate_token', status: 401 }).expect(201);
    const refused = await request(mock.app)
      .post(`/api/marketplace/c/${ACME.id}/partners/demo-assessments/integration`)
      .send({ token: 'ptk_customer_token_0002' })
      .expect(422);
    expect(refused.body.error).toBe('Invalid token');
    expect(demo.received.filter((r) => r.path === '/validate_token')).toHaveLength(1);

    const report = (await sendTest().expect(201)).body.report as { id: string };
    await request(mock.app)
      .patch(`/api/p/demo-assessments/reports/${report.id}`)
      .set('rt-partner-secret', demoSecret)
      .send({ urls: { cancel: `${demo.url}/reports/${report.id}/cancel` } })
      .expect(200);
    await armCallback({ endpoint: 'cancel', status: 503 }).expect(201);
    const listed = await request(mock.app).get('/_mock/faults').expect(200);
    // The hiring platform's callbacks, then each platform's the mock plays, as its plugin lists them.
    expect(listed.body.callbacks).toEqual(['cancel', 'send_candidate', 'tests', 'validate_token', ...mockPlatforms().flatMap((p) => p.callbacks ?? [])]);
    expect(listed.body.callbacks).toEqual(expect.arrayContaining(['greenhouse.send_test', 'ashby.assessment.start', 'hibob.webhook']));
    expect(listed.body.faults).toEqual([expect.objectContaining({ target: 'callback', endpoint: 'cancel', status: 503 })]);
    const cancel = await request(mock.app).post(`/api/marketplace/c/${ACME.id}/reports/${report.id}/cancel`).expect(502);
    expect(cancel.body.error).toBe('There was a problem with the Demo Assessments API');
    expect(demo.received.filter((r) => r.path.endsWith('/cancel'))).toHaveLength(0);
  });

  it('platform faults and callback faults do not mix', async () => {
    await arm({ endpoint: 'reports.update', status: 500 }).expect(201);
    await sendTest().expect(201);
    await armCallback({ endpoint: 'reports.update', status: 500 })
      .expect(422)
      .expect((res) => expect(res.body.errors.endpoint[0]).toMatch(/^must be one of: cancel, send_candidate, tests, validate_token, greenhouse\.list_tests/));
    await request(mock.app).post('/_mock/faults').send({ target: 'partner', endpoint: 'tests', status: 500 }).expect(422);
  });
});
