import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACME, integrate, mockPlatform, register, send, stubPartner, type StubPartner } from './support.js';

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
