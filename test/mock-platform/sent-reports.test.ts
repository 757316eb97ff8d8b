import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACME, ADA, ALAN, EDSGER, GLOBEX, mockPlatform, register, stubPartner, type StubPartner } from './support.js';

/**
 * `POST /_mock/reports`: a send the platform made itself, outside its marketplace (the conformance
 * checker calls send_candidate as the platform). The report is then the platform's: the partner's
 * updates about it are taken, where they were answered 404.
 */

let partner: StubPartner;
let platform: ReturnType<typeof mockPlatform>;
let secret: string;
beforeEach(async () => {
  partner = await stubPartner();
  platform = mockPlatform();
  secret = await register(platform.app, 'skill-check', partner.urls);
});
afterEach(() => partner.close());

const record = (body: Record<string, unknown>) => request(platform.app).post('/_mock/reports').send(body);
const sent = (overrides: Record<string, unknown> = {}) => ({
  report_id: randomUUID(),
  codename: 'skill-check',
  company_id: ACME.id,
  candidate_id: ADA,
  test_id: '7',
  test_name: 'JavaScript',
  ...overrides,
});
const update = (reportId: string, body: object) =>
  request(platform.app).patch(`/api/p/skill-check/reports/${reportId}`).set('rt-partner-secret', secret).send(body);

describe('POST /_mock/reports', () => {
  it("records the report as sent, without calling the partner; the partner's updates about it are then taken", async () => {
    const body = sent();
    await update(body.report_id, { status: 'sent' }).expect(404);

    const res = await record(body).expect(201);
    expect(res.body.report).toMatchObject({ id: body.report_id, status: 'sent', company_id: ACME.id, candidate_id: ADA, test_id: '7', test_name: 'JavaScript' });
    expect(partner.received).toEqual([]);

    await update(body.report_id, { status: 'completed', score: '87%' }).expect(200);
    const shown = await request(platform.app).get(`/api/marketplace/c/${ACME.id}/reports/${body.report_id}`).expect(200);
    expect(shown.body.report).toMatchObject({ status: 'completed', score: '87%' });
  });

  it('the same report again answers 200 and changes nothing; its id for another send answers 409', async () => {
    const body = sent({ test_id: 7 });
    await record(body).expect(201);
    await update(body.report_id, { status: 'completed' }).expect(200);
    const again = await record(body).expect(200);
    expect(again.body.report.status).toBe('completed');
    const other = await record({ ...body, candidate_id: ALAN }).expect(409);
    expect(other.body).toEqual({ error: 'This report id was already used to send another test' });
  });

  it("a partner, company or candidate the platform does not have answers 404; another company's candidate too", async () => {
    expect((await record(sent({ codename: 'nobody' })).expect(404)).body).toEqual({ error: 'Unknown partner' });
    expect((await record(sent({ company_id: 999 })).expect(404)).body).toEqual({ error: 'Unknown company' });
    expect((await record(sent({ candidate_id: 99_999 })).expect(404)).body).toEqual({ error: 'Unknown candidate' });
    expect((await record(sent({ company_id: ACME.id, candidate_id: EDSGER })).expect(404)).body).toEqual({ error: 'Unknown candidate' });
    // Globex's own candidate is fine.
    await record(sent({ company_id: GLOBEX.id, candidate_id: EDSGER })).expect(201);
  });

  it('a body that is not a send answers 422 naming each field', async () => {
    const res = await record({ report_id: 'not-a-uuid', codename: 'skill-check', company_id: ACME.id }).expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['candidate_id', 'report_id', 'test_id']);
  });
});
