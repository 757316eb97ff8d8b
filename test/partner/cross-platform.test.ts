import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, candidateBody, partnerHarness, type PartnerHarness } from '../support/partner.js';
import { HARRY_POTTER } from '../support/greenhouse-candidate.js';

/**
 * A platform's routes act only on the invitations that platform created: to the hiring platform's
 * callbacks a Greenhouse interview is a report id that exists nowhere, and to Greenhouse's routes a
 * hiring-platform report is an interview that exists nowhere — for the same customer's credentials
 * too. A send naming a report id already used anywhere answers one 409, whoever used it, and
 * changes nothing (docs/callbacks.md, "Unknown report ids").
 */
describe('report ids across platforms and accounts', () => {
  let h: PartnerHarness;
  let acme: Awaited<ReturnType<PartnerHarness['customer']>>;
  let globex: Awaited<ReturnType<PartnerHarness['customer']>>;
  beforeEach(async () => {
    h = await partnerHarness();
    acme = await h.customer('Acme', ['JavaScript', 'SQL'], 3);
    globex = await h.customer('Globex', ['Cobol'], 4);
  });
  afterEach(() => h.close());

  const basic = (token: string) => ({ Authorization: `Basic ${Buffer.from(`${token}:`, 'utf8').toString('base64')}` });
  const NOWHERE = '7d0c8f0e-0f6b-4c55-9a53-0000deadbeef';

  /** A Greenhouse interview of Acme's, through Greenhouse's send_test; its id. */
  async function greenhouseInterview(): Promise<string> {
    const res = await request(h.app)
      .post('/greenhouse/send_test')
      .set(basic(acme.token))
      .send({ partner_test_id: String(acme.testIds[0]), candidate: HARRY_POTTER, url: 'https://app.greenhouse.io/v1/partner/interviews/1', sent_by: null });
    expect(res.status, res.text).toBe(200);
    return res.body.partner_interview_id as string;
  }

  /** A hiring-platform report, through send_candidate; its body. */
  async function hiringPlatformReport(customer = acme, companyId = 3, testIndex = 0) {
    const body = candidateBody({ company_id: companyId, test_id: String(customer.testIds[testIndex]) });
    const res = await request(h.app).post('/callbacks/send_candidate').set(bearer(customer.token)).send(body);
    expect(res.status, res.text).toBe(201);
    return body;
  }

  /** Everything a route could change about the reports: the invitations, their queued updates and e-mails, the notices. */
  const everything = async () => ({
    invitations: await h.rows('SELECT * FROM invitations ORDER BY report_id'),
    updates: await h.rows('SELECT * FROM report_updates ORDER BY id'),
    mails: await h.rows('SELECT * FROM mail_outbox ORDER BY id'),
    events: await h.rows('SELECT * FROM invitation_events ORDER BY id'),
  });
  const answer = (res: request.Response) => ({ status: res.status, body: res.body as unknown });

  it("when the hiring platform's cancel names a Greenhouse interview of the same customer, then it answers 404 as for an id that exists nowhere, and the interview is unchanged", async () => {
    const interview = await greenhouseInterview();
    const before = await everything();

    const onInterview = await request(h.app).post(`/callbacks/reports/${interview}/cancel`).set(bearer(acme.token));
    const onNothing = await request(h.app).post(`/callbacks/reports/${NOWHERE}/cancel`).set(bearer(acme.token));

    expect(onInterview.status).toBe(404);
    expect(answer(onInterview)).toEqual(answer(onNothing));
    expect(await everything()).toEqual(before);
    expect(await h.row('SELECT status, canceled_by FROM invitations WHERE report_id = ?', interview)).toEqual({ status: 'sent', canceled_by: null });
  });

  it("when Greenhouse's routes name a hiring-platform report of the same customer, then test_status answers 404 as for an unknown interview, a response_error is not linked to it, and the report is unchanged", async () => {
    const report = await hiringPlatformReport();
    const before = await everything();

    const status = (id: string) => request(h.app).get('/greenhouse/test_status').query({ partner_interview_id: id }).set(basic(acme.token));
    const onReport = await status(report.report_id);
    expect(onReport.status).toBe(404);
    expect(answer(onReport)).toEqual(answer(await status(NOWHERE)));

    const notice = await request(h.app)
      .post('/greenhouse/response_error')
      .set(basic(acme.token))
      .send({ api_call: 'test_status', partner_interview_id: report.report_id, errors: ['partner_status is missing'] });
    expect(notice.status).toBe(200);
    expect(await h.rows('SELECT platform, report_id FROM platform_notices')).toEqual([{ platform: 'greenhouse', report_id: null }]);

    expect(await everything()).toEqual(before);
  });

  it("when send_candidate names another account's report id, then it answers exactly as for the account's own report id used for another candidate, and changes nothing", async () => {
    const globexReport = await hiringPlatformReport(globex, 4);
    const acmeReport = await hiringPlatformReport(acme, 3);
    const before = await everything();

    const send = (body: Record<string, unknown>) => request(h.app).post('/callbacks/send_candidate').set(bearer(acme.token)).send(body);
    // The same candidate and a test of Acme's: only the report id is Globex's.
    const onGlobex = await send(candidateBody({ company_id: 3, test_id: String(acme.testIds[0]), report_id: globexReport.report_id }));
    const onOwn = await send(candidateBody({ company_id: 3, test_id: String(acme.testIds[0]), report_id: acmeReport.report_id, candidate_id: 18 }));

    expect(onGlobex.status).toBe(409);
    expect(answer(onGlobex)).toEqual(answer(onOwn));
    expect(JSON.stringify(onGlobex.body)).not.toMatch(/Globex|Cobol|another account/i);
    expect(await everything()).toEqual(before);
    expect(await h.invitations.find(acme.accountId, globexReport.report_id)).toBeUndefined();
  });

  it("when send_candidate names a Greenhouse interview's id, the same customer's, then it answers the same 409 and the interview is unchanged", async () => {
    const interview = await greenhouseInterview();
    const acmeReport = await hiringPlatformReport(acme, 3);
    const before = await everything();

    const send = (body: Record<string, unknown>) => request(h.app).post('/callbacks/send_candidate').set(bearer(acme.token)).send(body);
    const onInterview = await send(candidateBody({ company_id: 3, test_id: String(acme.testIds[0]), report_id: interview }));
    const onOwn = await send(candidateBody({ company_id: 3, test_id: String(acme.testIds[0]), report_id: acmeReport.report_id, candidate_id: 18 }));

    expect(onInterview.status).toBe(409);
    expect(answer(onInterview)).toEqual(answer(onOwn));
    expect(await everything()).toEqual(before);
  });
});
