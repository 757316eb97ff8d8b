import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { eventually } from '../support/eventually.js';
import { API_KEY, INITECH, KATHERINE, MARGARET, TAKE_HOME_STAGE, basic, fakeGreenhousePartner, patch, type FakeGreenhousePartner } from './greenhouse-support.js';

/**
 * Initech's recruiter as a script drives it: `/_mock/platforms/greenhouse/…`, JSON, the same calls
 * to the partner as the pages make (docs/greenhouse.md), against a partner that follows it.
 */

let partner: FakeGreenhousePartner;
let mock: RunningMockPlatform;
beforeEach(async () => {
  partner = await fakeGreenhousePartner();
  mock = await startMockPlatform({ port: 0, logLevel: 'silent', webhookWorker: false });
});
afterEach(async () => {
  await mock.close();
  await partner.close();
});

const api = () => request(mock.url);
const connect = () =>
  api().post('/_mock/platforms/greenhouse/connect').send({ partner_url: partner.url, partner_name: 'Skill Check', token: API_KEY });

describe('/_mock/platforms', () => {
  it('lists the platforms the mock plays besides the hiring platform, with their sandbox company and candidates', async () => {
    const res = await api().get('/_mock/platforms').expect(200);
    // Greenhouse first, as the registry lists it; the other platforms have tests of their own.
    expect(res.body.platforms[0]).toEqual({
      name: 'greenhouse',
      label: 'Greenhouse',
      company: { id: String(INITECH), name: 'Initech', page: `/greenhouse/companies/${INITECH}` },
      candidates: [
        { id: String(KATHERINE), name: 'Katherine Johnson', email: 'katherine@example.com' },
        { id: String(MARGARET), name: 'Margaret Hamilton', email: 'margaret@example.com' },
      ],
    });
    expect((await api().get('/_mock/platforms/greenhouse').expect(200)).body.platform).toEqual(res.body.platforms[0]);
    expect((await api().get('/_mock/platforms/workday').expect(404)).body).toEqual({ error: 'Unknown platform' });
    await api().get('/_mock/platforms/workday/tests').expect(404);
  });

  it('connect configures Initech as the partnerships team does: the base URL, the token as the API key, never shown back', async () => {
    const res = await connect().expect(200);
    expect(res.body.connection).toMatchObject({
      name: 'Skill Check',
      api_key_hint: `…${API_KEY.slice(-4)}`,
      urls: { list_tests: `${partner.url}/greenhouse/list_tests`, send_test: `${partner.url}/greenhouse/send_test` },
    });
    expect(JSON.stringify(res.body)).not.toContain(API_KEY);
    // What the page shows is what the script configured.
    expect((await api().get(`/api/greenhouse/companies/${INITECH}/partner`).expect(200)).body.partner).toEqual(res.body.connection);

    const refused = await api()
      .post('/_mock/platforms/greenhouse/connect')
      .send({ partner_url: `${partner.url}/?x=1`, partner_name: 'Skill Check', token: API_KEY })
      .expect(422);
    expect(refused.body.errors.base_url).toEqual(['must be a base URL, without credentials, query or fragment']);
    const missing = await api().post('/_mock/platforms/greenhouse/connect').send({ partner_url: 'not a url' }).expect(422);
    expect(Object.keys(missing.body.errors).sort()).toEqual(['partner_name', 'partner_url', 'token']);
  });

  it('before connect, an action says what to do first', async () => {
    const res = await api().get('/_mock/platforms/greenhouse/tests').expect(422);
    expect(res.body.error).toBe("Enter the partner's API key and base URL first.");
    expect(partner.received).toEqual([]);
  });
});

describe('the scripted recruiter of Initech', () => {
  beforeEach(async () => {
    await connect().expect(200);
  });

  it('lists the tests the partner lists, calling list_tests with the Basic key', async () => {
    const res = await api().get('/_mock/platforms/greenhouse/tests').expect(200);
    expect(res.body.tests).toEqual([
      { id: '12345', name: 'JavaScript fundamentals' },
      { id: '12346', name: 'SQL basics' },
    ]);
    expect(partner.calls('list_tests')).toEqual([expect.objectContaining({ method: 'GET', authorization: basic(API_KEY) })]);
  });

  it('sends a test to Katherine at the Take-Home Test stage; its status is "sent" until the partner PATCHes, then what test_status said', async () => {
    const sent = await api().post('/_mock/platforms/greenhouse/sends').send({ test_id: '12346' }).expect(201);
    // Without a name, Greenhouse sends only a test it listed: list_tests, then send_test.
    expect(partner.received.map((r) => r.path)).toEqual(['/greenhouse/list_tests', '/greenhouse/send_test']);
    const [sendTest] = partner.calls('send_test');
    expect(sendTest!.body).toMatchObject({ partner_test_id: '12346', candidate: { first_name: 'Katherine', email: 'katherine@example.com' } });
    const interviewId = sent.body.report.id as string;
    expect(interviewId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.body.report).toMatchObject({
      test: { id: '12346', name: 'SQL basics' },
      candidate: { id: String(KATHERINE), name: 'Katherine Johnson' },
      status: 'sent',
      complete: false,
      score: null,
      results_url: null,
      details: {},
      problem: null,
    });
    expect(sent.body.report.page).toMatch(new RegExp(`^/greenhouse/companies/${INITECH}/candidates/${KATHERINE}#test-\\d+$`));
    // The stage now sends that test, as the recruiter's page shows it.
    const company = await api().get(`/greenhouse/companies/${INITECH}`).expect(200);
    expect(company.text).toMatch(/Take-Home Test<\/td>\s*<td>SQL basics/);
    expect((await api().get(`/_mock/platforms/greenhouse/reports/${interviewId}`).expect(200)).body.report).toEqual(sent.body.report);

    // The partner PATCHes the url it was given; Greenhouse reads test_status.
    expect(await patch((sendTest!.body as { url: string }).url, API_KEY)).toBe(200);
    const report = await eventually(
      async () => {
        const res = await api().get(`/_mock/platforms/greenhouse/reports/${interviewId}`).expect(200);
        expect(res.body.report.complete).toBe(true);
        return res.body.report;
      },
      { what: 'the status read after the PATCH' },
    );
    expect(report).toMatchObject({
      id: interviewId,
      status: 'complete',
      score: 80,
      results_url: 'https://partner.example/results?token=abc',
      details: { Result: 'passed', Summary: 'Strong on recursion', 'Time spent': '42 min' },
    });
  });

  it('sends to the candidate named, with the name given (no list_tests), at the stage that sends that test', async () => {
    const sent = await api()
      .post('/_mock/platforms/greenhouse/sends')
      .send({ test_id: 12345, test_name: 'JavaScript fundamentals', candidate_id: MARGARET })
      .expect(201);
    expect(partner.received.map((r) => r.path)).toEqual(['/greenhouse/send_test']);
    expect(sent.body.report).toMatchObject({ test: { id: '12345', name: 'JavaScript fundamentals' }, candidate: { id: String(MARGARET) } });
    const stage = mock.db.prepare('SELECT partner_test_id FROM greenhouse_stages WHERE id = ?').get(TAKE_HOME_STAGE) as { partner_test_id: string };
    expect(stage.partner_test_id).toBe('12345');
  });

  it('refuses a test the partner does not list, an unknown candidate, and a body it cannot read, calling send_test for none', async () => {
    const unlisted = await api().post('/_mock/platforms/greenhouse/sends').send({ test_id: 'nope' }).expect(422);
    expect(unlisted.body.error).toBe('The partner lists no test "nope" to Initech.');
    expect((await api().post('/_mock/platforms/greenhouse/sends').send({ test_id: '12345', test_name: 'X', candidate_id: '99' }).expect(404)).body).toEqual({
      error: 'Unknown candidate',
    });
    await api().post('/_mock/platforms/greenhouse/sends').send({ test_id: '12345', test_name: 'X', candidate_id: 'abc' }).expect(404);
    const invalid = await api().post('/_mock/platforms/greenhouse/sends').send({ test_id: '', test_name: '' }).expect(422);
    expect(Object.keys(invalid.body.errors).sort()).toEqual(['test_id', 'test_name']);
    await api().post('/_mock/platforms/greenhouse/sends').set('content-type', 'application/json').send('{').expect(400);
    expect(partner.calls('send_test')).toEqual([]);
  });

  it('a partner that fails answers 502 with what the recruiter is shown; one that refuses, 422; neither leaves a report', async () => {
    await api().post('/_mock/faults').send({ target: 'callback', endpoint: 'greenhouse.send_test', status: 503 }).expect(201);
    const failed = await api().post('/_mock/platforms/greenhouse/sends').send({ test_id: '12345', test_name: 'JavaScript fundamentals' }).expect(502);
    expect(failed.body.error).toMatch(/^Skill Check answered HTTP 503/);

    await api().post('/_mock/faults').send({ target: 'callback', endpoint: 'greenhouse.list_tests', status: 401 }).expect(201);
    const refused = await api().get('/_mock/platforms/greenhouse/tests').expect(422);
    expect(refused.body.error).toBe('Skill Check refused the API key (HTTP 401).');

    partner.state.tests = [{ partner_test_id: 12345 }];
    const malformed = await api().get('/_mock/platforms/greenhouse/tests').expect(502);
    expect(malformed.body.error).toMatch(/malformed answer/);
    expect(partner.received.map((r) => r.path)).toEqual(['/greenhouse/list_tests', '/greenhouse/response_error']);
  });

  it('a report id no test was given is a 404', async () => {
    expect((await api().get('/_mock/platforms/greenhouse/reports/00000000-0000-4000-8000-000000000000').expect(404)).body).toEqual({
      error: 'Unknown report',
    });
    await api().get(`/_mock/platforms/greenhouse/reports/${'x'.repeat(300)}`).expect(404);
  });
});
