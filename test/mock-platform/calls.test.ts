import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { ACME, integrate, mockPlatform, register, send, stubPartner, type StubPartner } from './support.js';

let partner: StubPartner;
let platform: ReturnType<typeof mockPlatform>;
let secret: string;

beforeEach(async () => {
  partner = await stubPartner();
  platform = mockPlatform();
  secret = await register(platform.app, 'skill-check', partner.urls);
});
afterEach(() => partner.close());

const calls = async (query = '') => (await request(platform.app).get(`/_mock/calls${query}`).expect(200)).body.calls;

describe('a known path with a method it does not take', () => {
  it('answers 405 with Allow in the error shape; an unknown path stays 404', async () => {
    const wrong = await request(platform.app).put(`/api/p/skill-check/c/${ACME.id}/partner`).set('authorization', `Bearer ${ACME.token}`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('DELETE, GET, HEAD, PATCH, POST');
    expect(wrong.body).toEqual({ error: 'PUT is not allowed here: use DELETE, GET, HEAD, PATCH, POST' });
    await request(platform.app).delete('/calls').expect(405).expect('allow', 'GET, HEAD');
    await request(platform.app).get('/api/p/skill-check/reports/5e1f0c2a-0000-4000-8000-000000000001').expect(405).expect('allow', 'PATCH');
    await request(platform.app).post('/no-such-path').expect(404);
  });
});

describe('call log', () => {
  it('records an inbound call with its answer, and redacts the API token and the returned secret', async () => {
    const [call] = await calls('?endpoint=partners.create');
    expect(call).toMatchObject({
      direction: 'inbound',
      endpoint: 'partners.create',
      method: 'POST',
      url: `/api/p/skill-check/c/${ACME.id}/partner`,
      codename: 'skill-check',
      company_id: ACME.id,
      response_status: 201,
      created_at: '2026-01-05T09:00:00.000Z',
    });
    expect(call.request_headers.authorization).toBe('Bearer [redacted]');
    expect(JSON.parse(call.response_body).partner.secret).toBe('[redacted]');
    expect(JSON.parse(call.request_body).name).toBe('Skill Check');
    expect(JSON.stringify(call)).not.toContain(secret);
    expect(JSON.stringify(call)).not.toContain(ACME.token);
  });

  it('records refused inbound calls and redacts the partner secret header', async () => {
    await integrate(platform.app, ACME.id, 'skill-check');
    const report = await send(platform.app, 'skill-check');
    await request(platform.app)
      .patch(`/api/p/skill-check/reports/${report.id}`)
      .set('rt-partner-secret', secret)
      .send({ status: 'sent' })
      .expect(200);
    await request(platform.app).patch(`/api/p/skill-check/reports/${report.id}`).set('rt-partner-secret', 'wrong').send({}).expect(401);
    const logged = await calls(`?endpoint=reports.update`);
    expect(logged.map((c: { response_status: number }) => c.response_status)).toEqual([200, 401]);
    expect(logged[0]).toMatchObject({ report_id: report.id, request_headers: { 'rt-partner-secret': '[redacted]' } });
    expect(JSON.stringify(logged)).not.toContain(secret);
  });

  it('records each outbound call: request, status, body, duration and what the user was shown; the token is redacted', async () => {
    partner.answer('/validate_token', 402, { error: 'No credits left' });
    await request(platform.app)
      .post(`/api/marketplace/c/${ACME.id}/partners/skill-check/integration`)
      .send({ token: 'ptk_customer_token_0001' })
      .expect(422);
    const [call] = await calls('?direction=outbound');
    expect(call).toMatchObject({
      direction: 'outbound',
      endpoint: 'validate_token',
      method: 'POST',
      url: partner.urls.validate_token,
      codename: 'skill-check',
      company_id: ACME.id,
      request_body: JSON.stringify({ company_id: ACME.id }),
      response_status: 402,
      response_body: JSON.stringify({ error: 'No credits left' }),
      error: null,
      outcome: 'No credits left',
    });
    expect(call.request_headers).toMatchObject({ authorization: 'Bearer [redacted]', 'content-type': 'application/json' });
    expect(call.duration_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(call)).not.toContain('ptk_customer_token_0001');
  });

  it('records an inbound call dropped by a fault as unanswered, with the fault', async () => {
    await request(platform.app).post('/_mock/faults').send({ endpoint: 'partners.read', drop: true }).expect(201);
    await expect(request(platform.app).get(`/api/p/skill-check/c/${ACME.id}/partner`).set('authorization', `Bearer ${ACME.token}`)).rejects.toThrow();
    // The close is recorded asynchronously after the socket is gone: wait for the record, however long the machine takes.
    await eventually(
      async () => {
        const [call] = await calls('?endpoint=partners.read');
        expect(call).toMatchObject({ response_status: null, error: 'connection closed without an answer', fault: 'drop connection' });
      },
      { what: 'the dropped call to be recorded' },
    );
  });

  it('filters by direction, endpoint, codename, report, status, after_id, and pages with limit and order', async () => {
    await integrate(platform.app, ACME.id, 'skill-check');
    const report = await send(platform.app, 'skill-check');
    const all = await calls();
    expect(all.map((c: { endpoint: string }) => c.endpoint)).toEqual(['partners.create', 'validate_token', 'send_candidate']);
    expect((await calls('?direction=inbound')).map((c: { endpoint: string }) => c.endpoint)).toEqual(['partners.create']);
    expect((await calls(`?report_id=${report.id.toUpperCase()}`)).map((c: { endpoint: string }) => c.endpoint)).toEqual(['send_candidate']);
    expect(await calls('?codename=other')).toEqual([]);
    expect((await calls('?status=201')).map((c: { endpoint: string }) => c.endpoint)).toEqual(['partners.create']);
    expect((await calls(`?after_id=${all[0].id}`)).length).toBe(2);
    expect((await calls('?order=desc&limit=1'))[0].endpoint).toBe('send_candidate');
    expect((await request(platform.app).get(`/_mock/calls/${all[1].id}`).expect(200)).body.call.endpoint).toBe('validate_token');
  });

  it('refuses a malformed filter (422) and answers 404 for an unknown call', async () => {
    const res = await request(platform.app).get('/_mock/calls?direction=sideways&limit=0').expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['direction', 'limit']);
    await request(platform.app).get('/_mock/calls/999').expect(404);
  });

  it('can be cleared', async () => {
    await request(platform.app).delete('/_mock/calls').expect(204);
    expect(await calls()).toEqual([]);
  });
});
