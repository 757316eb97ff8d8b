import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { BARBARA, EDSGER, VANDELAY, api, bobSandbox, exchange, fakeVendor, register, type FakeVendor } from './hibob-support.js';

/**
 * Vandelay's recruiter as scripts and the harness drive it, `/_mock/platforms/hibob/…`: connect is
 * the app's install, the tests are the catalog the vendor registered (waited for right after an
 * install), a send orders an assessment and is refused or failed as the listener answered its
 * webhook, and a report is what the vendor's PATCHes said.
 */

let vendor: FakeVendor;
let mock: RunningMockPlatform;
let access: string;
beforeEach(async () => {
  vendor = await fakeVendor();
  let code: string;
  ({ mock, code } = await bobSandbox(vendor));
  ({ access } = await exchange(mock, code));
});
afterEach(async () => {
  await mock.close();
  await vendor.close();
});

const script = (path: string) => `/_mock/platforms/hibob${path}`;

describe('the platform', () => {
  it('names Vandelay Industries by its Bob company id, and its candidates', async () => {
    const res = await request(mock.url).get(script('')).expect(200);
    expect(res.body.platform).toEqual({
      name: 'hibob',
      label: 'HiBob',
      company: { id: VANDELAY, name: 'Vandelay Industries', page: `/hibob/companies/${VANDELAY}` },
      candidates: [
        { id: '1', name: 'Barbara Liskov', email: 'barbara@example.com' },
        { id: '2', name: 'Edsger Dijkstra', email: 'edsger@example.com' },
      ],
    });
  });

  it('connects by installing the app: the connection says where Bob sends the browser and the webhooks, and hands back no credential', async () => {
    const res = await request(mock.url).post(script('/connect')).send({ partner_url: `${vendor.url}/`, partner_name: 'Skill Check', token: 'ptk_x' }).expect(200);
    expect(res.body).toEqual({
      connection: {
        company_id: VANDELAY,
        app: 'Skill Check',
        redirect_uri: `${vendor.url}/hibob/oauth/callback`,
        webhook_url: `${vendor.url}/hibob/webhooks`,
        installed_at: expect.any(String),
      },
    });
    expect(vendor.installs).toHaveLength(2);
  });
});

describe('tests, sends and reports', () => {
  it('lists the catalog once the vendor registers it after the install, sends one, and reports its PATCHes', async () => {
    // Asked right after the install, before the vendor registered anything: Bob's answer waits for it.
    const listing = request(mock.url)
      .get(script('/tests'))
      .then((res) => res);
    await register(mock, access, [
      { id: 'js', name: 'JavaScript' },
      { id: 'sql', name: 'SQL' },
    ]).expect(201);
    const listed = await listing;
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      tests: [
        { id: 'js', name: 'JavaScript' },
        { id: 'sql', name: 'SQL' },
      ],
    });

    const sent = await request(mock.url).post(script('/sends')).send({ test_id: 'sql', candidate_id: String(EDSGER) }).expect(201);
    const id: string = sent.body.report.id;
    expect(sent.body.report).toMatchObject({
      test: { id: 'sql', name: 'SQL' },
      candidate: { id: '2', name: 'Edsger Dijkstra' },
      status: 'ordered',
      complete: false,
      score: null,
      results_url: null,
      problem: null,
      page: `/hibob/companies/${VANDELAY}/candidates/${EDSGER}#assessment-${id}`,
    });
    expect(JSON.parse(vendor.webhooks[0]!.body).data).toEqual({ assessmentRequestId: id });

    await api(mock, 'patch', `/hiring/assessments/${id}`, access, { status: 'failed', score: 12.5, resultUrl: 'https://vendor.example/r', verdict: 'Too slow' }).expect(204);
    const report = await request(mock.url).get(script(`/reports/${id}`)).expect(200);
    expect(report.body.report).toMatchObject({ id, status: 'failed', complete: true, score: 12.5, results_url: 'https://vendor.example/r', details: { verdict: 'Too slow' } });
  });

  it('refuses a package not in the catalog (422) and an unknown candidate or report (404)', async () => {
    await register(mock, access, [{ id: 'js', name: 'JavaScript' }]).expect(201);
    const res = await request(mock.url).post(script('/sends')).send({ test_id: 'cobol' }).expect(422);
    expect(res.body.error).toBe('Skill Check has no active package "cobol" in Vandelay Industries\'s catalog.');
    await request(mock.url).post(script('/sends')).send({ test_id: 'js', candidate_id: '3' }).expect(404);
    await request(mock.url).get(script('/reports/1234567890')).expect(404);
  });

  it("a send whose webhook the listener refuses is a 422, one it fails a 502, each naming Bob's next attempt", async () => {
    await register(mock, access, [{ id: 'js', name: 'JavaScript' }]).expect(201);
    vendor.state.webhookStatus = 401;
    const refused = await request(mock.url).post(script('/sends')).send({ test_id: 'js', candidate_id: String(BARBARA) }).expect(422);
    expect(refused.body.error).toMatch(/^Bob ordered it \(assessmentRequestId \d{10}\), but: The assessment.triggered webhook was not delivered \(HTTP 401; attempt 1 of 7\): Bob tries again at /);
    vendor.state.webhookStatus = 500;
    await request(mock.url).post(script('/sends')).send({ test_id: 'js' }).expect(502);
    // The order exists all the same, with its problem.
    const id = /assessmentRequestId (\d+)/.exec(refused.body.error as string)![1];
    expect((await request(mock.url).get(script(`/reports/${id}`)).expect(200)).body.report.problem).toMatch(/^The assessment.triggered webhook was not delivered \(HTTP 401; attempt 1\)/);
  });

  it('a catalog never registered is a 502 once the wait is over, and nothing is installed before connect is a 422', async () => {
    const quick = await startMockPlatform({ port: 0, logLevel: 'silent', webhookWorker: false, callbackTimeoutMs: 200 });
    try {
      expect((await request(quick.url).get(script('/tests')).expect(422)).body.error).toBe("Vandelay Industries has not installed the vendor's app: connect first.");
      await request(quick.url).post(script('/connect')).send({ partner_url: vendor.url, partner_name: 'Skill Check', token: 'x' }).expect(200);
      const res = await request(quick.url).get(script('/tests')).expect(502);
      expect(res.body.error).toBe('Skill Check has registered no catalog for Vandelay Industries since the install (POST /hiring/assessments/packages with its token).');
    } finally {
      await quick.close();
    }
  });
});
