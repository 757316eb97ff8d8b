import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/partner/accounts/tokens.js';
import type { Report } from '../../src/contract/schemas.js';
import type { RunningMockPlatform } from '../../src/mock-platform/server.js';
import { ACME, ADA, CODENAME, GLOBEX, marketplace, registerKitPartner, startMock, startPartner, type RunningPartner } from './support.js';

/**
 * The partner server and the mock platform as two real servers on their own ports, talking the
 * contract over HTTP: register → integrate → list tests → send → report → cancel.
 */
let partner: RunningPartner;
let mock: RunningMockPlatform;
let secret: string;

beforeEach(async () => {
  [partner, mock] = await Promise.all([startPartner(), startMock()]);
  secret = (await registerKitPartner(mock, partner)).partner.secret;
});
afterEach(async () => {
  await Promise.all([partner.close(), mock.close()]);
});

const integrate = (companyId: number, token: string) =>
  marketplace(mock).post(`/api/marketplace/c/${companyId}/partners/${CODENAME}/integration`).send({ token });
const partnerRow = (sql: string, ...params: unknown[]) => partner.row(sql, ...params);

describe('the whole flow between partner and platform', () => {
  it('integrate → list tests → send: the report shows sent on the platform and the partner holds the invitation', async () => {
    const customer = await partner.customer('Acme on our side', ['JavaScript fundamentals', 'SQL basics']);

    const integrated = await integrate(ACME.id, customer.token).expect(201);
    expect(integrated.body.integration).toMatchObject({ company_id: ACME.id, codename: CODENAME });
    expect(await partnerRow('SELECT company_id FROM accounts WHERE id = ?', customer.accountId)).toEqual({ company_id: ACME.id });

    const tests = await marketplace(mock).get(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/tests`).expect(200);
    expect(tests.body.tests).toEqual(customer.tests);

    const sql = customer.tests[1]!;
    const sent = await marketplace(mock)
      .post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/send`)
      .send({ candidate_id: ADA, test_id: sql.id, test_name: sql.name })
      .expect(201);
    const reportId: string = sent.body.report.id;
    expect(sent.body.report).toMatchObject({ status: 'sent', delivery: 'delivered', test_id: String(sql.id) });

    expect(await partnerRow('SELECT * FROM invitations WHERE report_id = ?', reportId)).toMatchObject({
      account_id: customer.accountId,
      company_id: ACME.id,
      candidate_id: ADA,
      test_id: String(sql.id),
      test_name: 'SQL basics',
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      status: 'sent',
    });

    const reports = await marketplace(mock)
      .get(`/api/p/${CODENAME}/c/${ACME.id}/candidates/${ADA}/reports`)
      .set('rt-partner-secret', secret)
      .expect(200);
    expect(reports.body.reports.map((r: Report) => [r.id, r.status])).toEqual([[reportId, 'sent']]);

    const calls = await marketplace(mock).get('/_mock/calls?direction=outbound').expect(200);
    expect(calls.body.calls.map((c: { endpoint: string; response_status: number }) => [c.endpoint, c.response_status])).toEqual([
      ['validate_token', 200],
      ['tests', 200],
      ['send_candidate', 201],
    ]);
  });

  it('a double click sends the same report twice: both succeed, the partner creates one invitation', async () => {
    const customer = await partner.customer('Acme', ['Ruby']);
    await integrate(ACME.id, customer.token).expect(201);
    const reportId = crypto.randomUUID();
    const body = { candidate_id: ADA, test_id: customer.tests[0]!.id, test_name: 'Ruby', report_id: reportId };
    const answers = await Promise.all([
      marketplace(mock).post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/send`).send(body),
      marketplace(mock).post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/send`).send(body),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 201]);
    expect(await partnerRow('SELECT count(*) AS n FROM invitations')).toEqual({ n: 1 });
    expect(await partnerRow('SELECT report_id FROM invitations')).toEqual({ report_id: reportId });

    const calls = await marketplace(mock).get(`/_mock/calls?endpoint=send_candidate&report_id=${reportId}`).expect(200);
    expect(calls.body.calls.map((c: { response_status: number }) => c.response_status)).toEqual([201, 201]);
    const candidates = await marketplace(mock).get(`/api/marketplace/c/${ACME.id}/candidates`).expect(200);
    expect(candidates.body.candidates.find((c: { id: number }) => c.id === ADA).reports).toHaveLength(1);
  });

  it("an unknown test shows the partner's own message, and no report appears", async () => {
    const customer = await partner.customer('Acme', ['Ruby']);
    await integrate(ACME.id, customer.token).expect(201);
    const res = await marketplace(mock)
      .post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/send`)
      .send({ candidate_id: ADA, test_id: 9999, test_name: 'Ghost' })
      .expect(422);
    expect(res.body).toMatchObject({ error: 'Unknown test', outcome: 'partner_error' });
    expect(await partnerRow('SELECT count(*) AS n FROM invitations')).toEqual({ n: 0 });
    const candidates = await marketplace(mock).get(`/api/marketplace/c/${ACME.id}/candidates`).expect(200);
    expect(candidates.body.candidates.find((c: { id: number }) => c.id === ADA).reports).toEqual([]);
  });

  it('cancel goes through report.urls.cancel: the partner cancels its invitation', async () => {
    const customer = await partner.customer('Acme', ['Ruby']);
    await integrate(ACME.id, customer.token).expect(201);
    const sent = await marketplace(mock)
      .post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/send`)
      .send({ candidate_id: ADA, test_id: customer.tests[0]!.id, test_name: 'Ruby' })
      .expect(201);
    const reportId: string = sent.body.report.id;

    // Without a cancel link the platform cannot cancel; the partner gives one through the reports API.
    await marketplace(mock).post(`/api/marketplace/c/${ACME.id}/reports/${reportId}/cancel`).expect(409);
    await marketplace(mock)
      .patch(`/api/p/${CODENAME}/reports/${reportId}`)
      .set('rt-partner-secret', secret)
      .send({ urls: { cancel: `${partner.url}/callbacks/reports/${reportId}/cancel` } })
      .expect(200);

    const canceled = await marketplace(mock).post(`/api/marketplace/c/${ACME.id}/reports/${reportId}/cancel`).expect(202);
    expect(canceled.body.report.cancel_requested_at).not.toBeNull();
    expect(await partnerRow('SELECT status FROM invitations WHERE report_id = ?', reportId)).toEqual({ status: 'canceled' });
    const calls = await marketplace(mock).get(`/_mock/calls?endpoint=cancel`).expect(200);
    expect(calls.body.calls).toHaveLength(1);
    expect(calls.body.calls[0]).toMatchObject({ response_status: 200, outcome: 'success', report_id: reportId });
  });
});

describe('integration refusals, shown as "Invalid token"', () => {
  const expectRefused = async (companyId: number, token: string, partnerStatus: number) => {
    const res = await integrate(companyId, token).expect(422);
    expect(res.body).toMatchObject({ error: 'Invalid token', outcome: 'invalid_token' });
    const call = await marketplace(mock).get(`/_mock/calls/${res.body.call_id}`).expect(200);
    expect(call.body.call.response_status).toBe(partnerStatus);
    const list = await marketplace(mock).get(`/api/marketplace/c/${companyId}/partners`).expect(200);
    expect(list.body.partners[0].integration).toBeNull();
  };

  it('a malformed token', async () => {
    await expectRefused(ACME.id, 'not-a-token', 401);
  });

  it('a well-formed token the partner never issued', async () => {
    await expectRefused(ACME.id, issueToken().token, 401);
  });

  it('a revoked token', async () => {
    const customer = await partner.customer('Acme');
    await partner.accounts.revokeTokens(customer.accountId);
    await expectRefused(ACME.id, customer.token, 401);
  });

  it('a token already bound to another company', async () => {
    const customer = await partner.customer('Globex on our side');
    await integrate(GLOBEX.id, customer.token).expect(201);
    await expectRefused(ACME.id, customer.token, 403);
    expect(await partnerRow('SELECT company_id FROM accounts WHERE id = ?', customer.accountId)).toEqual({ company_id: GLOBEX.id });
  });
});
