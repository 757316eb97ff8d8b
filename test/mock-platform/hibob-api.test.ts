import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningMockPlatform } from '../../src/mock-platform/server.js';
import { VANDELAY, api, bobSandbox, exchange, fakeVendor, installKramerica, order, register, type FakeVendor } from './hibob-support.js';

/**
 * Bob's Assessments API on the mock as the vendor calls it with a company's token (docs/hibob.md
 * §4–§6): the catalog replaced and deleted by Bob's rules, an order's details, its update-status
 * PATCH — each scoped to the token's company (another company's order is a 404), refused with an
 * expired or unknown token (401), and after a cancel (409).
 */

let vendor: FakeVendor;
let mock: RunningMockPlatform;
let vandelay: { access: string; refresh: string };
let kramerica: { access: string; refresh: string };
beforeEach(async () => {
  vendor = await fakeVendor();
  let code: string;
  ({ mock, code } = await bobSandbox(vendor));
  vandelay = await exchange(mock, code);
  kramerica = await exchange(mock, await installKramerica(mock));
});
afterEach(async () => {
  await mock.close();
  await vendor.close();
});

const packagesOf = (companyId: string) =>
  mock.db.prepare('SELECT id, name, description, status FROM hibob_packages WHERE company_id = ? ORDER BY status, position').all(companyId);

/** Vandelay's catalog with JavaScript and SQL, and an order of JavaScript for Barbara: its assessmentRequestId. */
async function ordered(): Promise<string> {
  await register(mock, vandelay.access, [
    { id: 'js', name: 'JavaScript', description: 'Two hours' },
    { id: 'sql', name: 'SQL' },
  ]).expect(201);
  return (await order(mock, 'js')).requestId;
}

describe('the catalog', () => {
  it("replaces the company's catalog: packages left out are archived, and come back when registered again", async () => {
    await register(mock, vandelay.access, [
      { id: 'js', name: 'JavaScript', description: 'Two hours' },
      { id: 'sql', name: 'SQL' },
    ]).expect(201);
    expect(packagesOf(VANDELAY)).toEqual([
      { id: 'js', name: 'JavaScript', description: 'Two hours', status: 'active' },
      { id: 'sql', name: 'SQL', description: null, status: 'active' },
    ]);
    await register(mock, vandelay.access, [{ id: 'sql', name: 'SQL basics' }]).expect(201);
    expect(packagesOf(VANDELAY)).toEqual([
      { id: 'sql', name: 'SQL basics', description: null, status: 'active' },
      { id: 'js', name: 'JavaScript', description: 'Two hours', status: 'archived' },
    ]);
    await register(mock, vandelay.access, []).expect(201);
    expect(packagesOf(VANDELAY).map((p) => (p as { status: string }).status)).toEqual(['archived', 'archived']);
    await register(mock, vandelay.access, [{ id: 'js', name: 'JavaScript' }]).expect(201);
    expect(packagesOf(VANDELAY)).toEqual([
      { id: 'js', name: 'JavaScript', description: null, status: 'active' },
      { id: 'sql', name: 'SQL basics', description: null, status: 'archived' },
    ]);
    // Each company's token registers its own catalog only.
    await register(mock, kramerica.access, [{ id: 'ux', name: 'UX' }]).expect(201);
    expect(packagesOf(VANDELAY)).toHaveLength(2);
  });

  it('refuses the whole catalog (400) for a blank id or name, a duplicate id, or no packages array, keeping the one before', async () => {
    await register(mock, vandelay.access, [{ id: 'js', name: 'JavaScript' }]).expect(201);
    const duplicate = await register(mock, vandelay.access, [
      { id: 'sql', name: 'SQL' },
      { id: 'sql', name: 'SQL again' },
    ]).expect(400);
    expect(duplicate.body).toEqual({ error: 'packages.1.id "sql" is given twice', errors: { 'packages.1.id': ['"sql" is given twice'] } });
    const blank = await register(mock, vandelay.access, [
      { id: 'sql', name: 'SQL' },
      { id: ' ', name: 'Nothing' },
      { id: 'x', name: '' },
    ]).expect(400);
    expect(blank.body.errors).toEqual({ 'packages.1.id': ['id must not be blank'], 'packages.2.name': ['name must not be blank'] });
    await api(mock, 'post', '/hiring/assessments/packages', vandelay.access, { catalog: [] }).expect(400);
    expect(packagesOf(VANDELAY)).toEqual([{ id: 'js', name: 'JavaScript', description: null, status: 'active' }]);
  });

  it('deletes packages for good (204), ignoring unknown ids; an empty or blank list is a 400', async () => {
    await register(mock, vandelay.access, [
      { id: 'js', name: 'JavaScript' },
      { id: 'sql', name: 'SQL' },
    ]).expect(201);
    await api(mock, 'post', '/hiring/assessments/packages/delete', vandelay.access, { packageIds: ['js', 'nope'] }).expect(204);
    expect(packagesOf(VANDELAY)).toEqual([{ id: 'sql', name: 'SQL', description: null, status: 'active' }]);
    await api(mock, 'post', '/hiring/assessments/packages/delete', vandelay.access, { packageIds: [] }).expect(400);
    await api(mock, 'post', '/hiring/assessments/packages/delete', vandelay.access, { packageIds: [''] }).expect(400);
    // Kramerica's token deletes nothing of Vandelay's.
    await api(mock, 'post', '/hiring/assessments/packages/delete', kramerica.access, { packageIds: ['sql'] }).expect(204);
    expect(packagesOf(VANDELAY)).toHaveLength(1);
  });
});

describe('an order', () => {
  it('has its details for its own company: the candidate, who ordered it, the job opening and the package', async () => {
    const id = await ordered();
    const res = await api(mock, 'get', `/hiring/assessments/${id}`, vandelay.access).expect(200);
    expect(res.body).toEqual({
      id,
      companyId: VANDELAY,
      status: 'ordered',
      requestedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      candidate: { id: '7100001', firstName: 'Barbara', lastName: 'Liskov', email: 'barbara@example.com' },
      requester: { id: '3332883884', firstName: 'Elaine', lastName: 'Benes', displayName: 'Elaine Benes', email: 'elaine@vandelay.example' },
      jobOpening: { id: '58001', title: 'Backend Engineer' },
      package: { id: 'js', name: 'JavaScript' },
    });
    // The package as ordered, whatever the catalog becomes.
    await register(mock, vandelay.access, []).expect(201);
    expect((await api(mock, 'get', `/hiring/assessments/${id}`, vandelay.access).expect(200)).body.package).toEqual({ id: 'js', name: 'JavaScript' });
  });

  it("is unknown (404) to another company's token, to its details and its PATCH, and the PATCH changes nothing", async () => {
    const id = await ordered();
    expect((await api(mock, 'get', `/hiring/assessments/${id}`, kramerica.access).expect(404)).body).toEqual({ error: 'Assessment not found' });
    await api(mock, 'patch', `/hiring/assessments/${id}`, kramerica.access, { status: 'completed', score: 1 }).expect(404);
    await api(mock, 'get', '/hiring/assessments/1234567890', vandelay.access).expect(404);
    const row = mock.db.prepare('SELECT status, score, details_reads FROM hibob_assessments WHERE request_id = ?').get(id);
    expect(row).toEqual({ status: null, score: null, details_reads: 0 });
  });

  it('refuses a missing, made-up or expired token (401, with WWW-Authenticate), and takes the refreshed one', async () => {
    const id = await ordered();
    const none = await api(mock, 'get', `/hiring/assessments/${id}`, undefined).expect(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="Bob"');
    await api(mock, 'get', `/hiring/assessments/${id}`, 'bob_at_made_up').expect(401);
    // A refresh token is not an access token.
    await api(mock, 'get', `/hiring/assessments/${id}`, vandelay.refresh).expect(401);

    mock.clock.advance(60 * 60_000);
    const expired = await api(mock, 'get', `/hiring/assessments/${id}`, vandelay.access).expect(401);
    expect(expired.body).toEqual({ error: 'The access token expired: refresh it at the token URL' });
    expect(expired.headers['www-authenticate']).toBe('Bearer realm="Bob", error="invalid_token", error_description="The access token expired: refresh it at the token URL"');
    await api(mock, 'post', '/hiring/assessments/packages', vandelay.access, { packages: [] }).expect(401);

    const refreshed = await request(mock.url)
      .post('/hibob/oauth2/v1/apps/token')
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: vandelay.refresh, client_id: 'bob-sandbox-app', client_secret: 'bob-sandbox-client-secret-not-for-production' })
      .expect(200);
    await api(mock, 'get', `/hiring/assessments/${id}`, refreshed.body.access_token).expect(200);
  });

  it('takes a PATCH (204): status, score, result link, verdict and comments shown; an omitted field keeps its value', async () => {
    const id = await ordered();
    await api(mock, 'patch', `/hiring/assessments/${id}`, vandelay.access, {
      status: 'completed',
      score: 87,
      resultUrl: 'https://vendor.example/results/1',
      verdict: 'Fast and careful',
    }).expect(204);
    await api(mock, 'patch', `/hiring/assessments/${id}`, vandelay.access, { status: 'passed', comments: 'Correctness: 9/10' }).expect(204);
    const report = (await request(mock.url).get(`/_mock/platforms/hibob/reports/${id}`).expect(200)).body.report;
    expect(report).toMatchObject({
      id,
      status: 'passed',
      complete: true,
      score: 87,
      results_url: 'https://vendor.example/results/1',
      details: { verdict: 'Fast and careful', comments: 'Correctness: 9/10' },
      problem: null,
    });
    // A loopback http link, as the kit's local partner sends it, is taken too.
    await api(mock, 'patch', `/hiring/assessments/${id}`, vandelay.access, { status: 'completed', resultUrl: 'http://127.0.0.1:3000/results?token=x' }).expect(204);
  });

  it('refuses a PATCH (400) without a status, with one Bob does not name, a result link that is not https, the id in the body, or a key Bob does not name', async () => {
    const id = await ordered();
    const patch = (body: unknown) => api(mock, 'patch', `/hiring/assessments/${id}`, vandelay.access, body).expect(400);
    expect((await patch({ score: 3 })).body.errors).toEqual({ status: ['is required'] });
    expect((await patch({ status: 'in_progress' })).body.errors).toEqual({ status: ['must be one of completed, passed, failed'] });
    expect((await patch({ status: 'completed', resultUrl: 'http://vendor.example/results/1' })).body.errors).toEqual({ resultUrl: ['must be a valid HTTPS URL'] });
    expect((await patch({ status: 'completed', score: '87' })).body.errors).toEqual({ score: ['must be a number'] });
    expect((await patch({ status: 'completed', assessmentRequestId: id })).body.error).toBe(
      'assessmentRequestId is not accepted in the body: the assessment id is in the path',
    );
    expect(Object.keys((await patch({ status: 'completed', scores: 3 })).body.errors)).toEqual(['body']);
    const row = mock.db.prepare('SELECT status FROM hibob_assessments WHERE request_id = ?').get(id);
    expect(row).toEqual({ status: null });
    expect(mock.db.prepare('SELECT count(*) AS n FROM hibob_assessment_updates WHERE applied = 0').get()).toEqual({ n: 6 });
  });

  it('refuses every PATCH after the recruiter cancelled (409), and shows it as cancelled', async () => {
    const id = await ordered();
    const a = mock.db.prepare('SELECT id FROM hibob_assessments WHERE request_id = ?').get(id) as { id: number };
    await request(mock.url).post(`/hibob/companies/${VANDELAY}/assessments/${a.id}/cancel`).type('form').send({}).expect(303);
    const refused = await api(mock, 'patch', `/hiring/assessments/${id}`, vandelay.access, { status: 'completed', score: 90 }).expect(409);
    expect(refused.body).toEqual({ error: 'The assessment was cancelled: Bob takes no more updates for it' });
    expect((await api(mock, 'get', `/hiring/assessments/${id}`, vandelay.access).expect(200)).body.status).toBe('cancelled');
    const report = (await request(mock.url).get(`/_mock/platforms/hibob/reports/${id}`).expect(200)).body.report;
    expect(report).toMatchObject({ status: 'cancelled', complete: false, score: null });
  });

  it('answers 5xx and 401 faults armed on its endpoints before it authenticates, and logs each call with the order', async () => {
    const id = await ordered();
    await request(mock.url).post('/_mock/faults').send({ endpoint: 'hibob.assessments.get', status: 503, times: 1 }).expect(201);
    await request(mock.url).post('/_mock/faults').send({ endpoint: 'hibob.assessments.update', status: 401, times: 1 }).expect(201);
    await api(mock, 'get', `/hiring/assessments/${id}`, vandelay.access).expect(503);
    await api(mock, 'get', `/hiring/assessments/${id}`, vandelay.access).expect(200);
    await api(mock, 'patch', `/hiring/assessments/${id}`, vandelay.access, { status: 'completed' }).expect(401);
    const calls = await request(mock.url).get(`/_mock/calls?report_id=${id}&direction=inbound&order=asc`).expect(200);
    expect(calls.body.calls.map((c: { endpoint: string; response_status: number; fault: string | null }) => [c.endpoint, c.response_status, c.fault !== null])).toEqual([
      ['hibob.assessments.get', 503, true],
      ['hibob.assessments.get', 200, false],
      ['hibob.assessments.update', 401, true],
    ]);
    expect(JSON.stringify(calls.body.calls)).not.toContain(vandelay.access);
  });
});
