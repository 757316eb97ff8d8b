import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, candidateBody, partnerHarness, type PartnerHarness } from '../support/partner.js';

/** Account A's token must never read or change B's data, and must learn nothing about it. */
describe('tenant isolation', () => {
  let h: PartnerHarness;
  let a: ReturnType<PartnerHarness['customer']>;
  let b: ReturnType<PartnerHarness['customer']>;
  beforeEach(() => {
    h = partnerHarness();
    a = h.customer('A', ['A test'], 3);
    b = h.customer('B', ['B secret test'], 4);
  });
  afterEach(() => h.close());

  it("when A lists tests, then it sees only its own, never B's", async () => {
    const res = await request(h.app).get('/callbacks/tests').set(bearer(a.token));
    expect(res.body).toEqual([{ id: a.testIds[0], name: 'A test' }]);
  });

  it("when A sends a candidate to B's test, then the answer is the same as for a test that does not exist", async () => {
    const toB = await request(h.app)
      .post('/callbacks/send_candidate')
      .set(bearer(a.token))
      .send(candidateBody({ test_id: String(b.testIds[0]) }));
    const toNothing = await request(h.app)
      .post('/callbacks/send_candidate')
      .set(bearer(a.token))
      .send(candidateBody({ test_id: '987654' }));
    expect(toB.status).toBe(422);
    expect({ status: toB.status, body: toB.body }).toEqual({ status: toNothing.status, body: toNothing.body });
    expect(h.db.prepare('SELECT count(*) AS n FROM invitations').get()).toEqual({ n: 0 });
  });

  it("when A cancels B's report, then the answer is the same as for an unknown report and B's report stays sent", async () => {
    const bReport = candidateBody({ company_id: 4, test_id: String(b.testIds[0]) });
    await request(h.app).post('/callbacks/send_candidate').set(bearer(b.token)).send(bReport);
    const onB = await request(h.app).post(`/callbacks/reports/${bReport.report_id}/cancel`).set(bearer(a.token));
    const onNothing = await request(h.app)
      .post('/callbacks/reports/7d0c8f0e-0f6b-4c55-9a53-eeeeeeeeeeee/cancel')
      .set(bearer(a.token));
    expect({ status: onB.status, body: onB.body }).toEqual({ status: onNothing.status, body: onNothing.body });
    expect(onB.status).toBe(404);
    expect(h.invitations.find(b.accountId, bReport.report_id)?.status).toBe('sent');
  });

  it("when A posts validate_token for B's company, then B's binding is untouched", async () => {
    const res = await request(h.app).post('/callbacks/validate_token').set(bearer(a.token)).send({ company_id: 4 });
    expect(res.status).toBe(403);
    const rows = h.db.prepare('SELECT id, company_id FROM accounts ORDER BY id').all();
    expect(rows).toEqual([
      { id: a.accountId, company_id: 3 },
      { id: b.accountId, company_id: 4 },
    ]);
  });
});
