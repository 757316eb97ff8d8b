import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { arrangeStatus, bearer, candidateBody, partnerHarness, type PartnerHarness } from '../support/partner.js';

describe('report cancel callback', () => {
  let h: PartnerHarness;
  let c: Awaited<ReturnType<PartnerHarness['customer']>>;
  let body: ReturnType<typeof candidateBody>;
  beforeEach(async () => {
    h = await partnerHarness();
    c = await h.customer('Acme', ['JavaScript'], 3);
    body = candidateBody({ test_id: String(c.testIds[0]) });
    await request(h.app).post('/callbacks/send_candidate').set(bearer(c.token)).send(body);
  });
  afterEach(() => h.close());

  const cancel = (id: string, token = c.token) =>
    request(h.app).post(`/callbacks/reports/${id}/cancel`).set(bearer(token));
  const status = async () => (await h.row('SELECT status FROM invitations WHERE report_id = ?', body.report_id))!.status;

  it('when the platform cancels a sent report, then it answers 200 and the invitation is canceled', async () => {
    const res = await cancel(body.report_id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: body.report_id, status: 'canceled' });
    expect(await status()).toBe('canceled');
  });

  it('when the cancel is repeated, then it answers 200 again', async () => {
    await cancel(body.report_id);
    expect((await cancel(body.report_id)).status).toBe(200);
  });

  it('when the test was already completed, then it answers 409 and the result stays', async () => {
    await arrangeStatus(h.sql, body.report_id, 'completed');
    const res = await cancel(body.report_id);
    expect(res.status).toBe(409);
    expect(await status()).toBe('completed');
  });

  it('when the report is unknown or not a UUID, then it answers 404', async () => {
    expect((await cancel('7d0c8f0e-0f6b-4c55-9a53-ffffffffffff')).status).toBe(404);
    expect((await cancel('not-a-uuid')).status).toBe(404);
  });

  it('when the token is missing, then it answers 401', async () => {
    const res = await request(h.app).post(`/callbacks/reports/${body.report_id}/cancel`);
    expect(res.status).toBe(401);
    expect(await status()).toBe('sent');
  });
});
