import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { JAVASCRIPT, PARTNER_KEY, SQL, basic, blob, fakeAshbyPartner, postUpdate, type FakeAshbyPartner } from './ashby-support.js';

/**
 * Hooli's recruiter as a script drives it: `/_mock/platforms/ashby/…`, JSON, the same calls to the
 * partner as the pages make (docs/ashby.md), against a partner that follows it.
 */

let partner: FakeAshbyPartner;
let mock: RunningMockPlatform;
beforeEach(async () => {
  partner = await fakeAshbyPartner();
  mock = await startMockPlatform({ port: 0, logLevel: 'silent', webhookWorker: false });
});
afterEach(async () => {
  await mock.close();
  await partner.close();
});

const api = () => request(mock.url);
const connect = () => api().post('/_mock/platforms/ashby/connect').send({ partner_url: partner.url, partner_name: 'Skill Check', token: PARTNER_KEY });

describe('/_mock/platforms/ashby', () => {
  it('names Hooli and its candidates', async () => {
    const res = await api().get('/_mock/platforms/ashby').expect(200);
    expect(res.body.platform).toEqual({
      name: 'ashby',
      label: 'Ashby',
      company: { id: '1', name: 'Hooli', page: '/ashby/companies/1' },
      candidates: [
        { id: '1', name: 'Grace Hopper', email: 'grace@example.com' },
        { id: '2', name: 'Alan Turing', email: 'alan@example.com' },
        { id: '3', name: 'Cher', email: 'cher@example.com' },
      ],
    });
    expect((await api().get('/_mock/platforms').expect(200)).body.platforms.map((p: { name: string }) => p.name)).toContain('ashby');
  });

  it("connect gives Ashby the partner's base URL and the customer's key, never shown back, and hands back Hooli's Ashby API key", async () => {
    const res = await connect().expect(200);
    expect(res.body.connection).toMatchObject({
      name: 'Skill Check',
      base_url: `${partner.url}/ashby`,
      api_key_hint: `…${PARTNER_KEY.slice(-4)}`,
      urls: { 'assessment.list': `${partner.url}/ashby/assessment.list`, 'assessment.start': `${partner.url}/ashby/assessment.start`, 'assessment.cancel': `${partner.url}/ashby/assessment.cancel` },
    });
    expect(JSON.stringify(res.body.connection)).not.toContain(PARTNER_KEY);
    // The credential is the key Ashby takes on assessment.update: one per company, the same each time.
    expect(res.body.credential).toMatch(/^ashby_sandbox_[A-Za-z0-9_-]{24}$/);
    expect((await connect().expect(200)).body.credential).toBe(res.body.credential);
    await postUpdate(mock, { assessment_id: 'none', timestamp: Date.now(), assessment_status: blob('status', 'string', 'Started') }, basic(res.body.credential)).expect(200);

    const refused = await api().post('/_mock/platforms/ashby/connect').send({ partner_url: `${partner.url}/?x=1`, partner_name: 'Skill Check', token: PARTNER_KEY }).expect(422);
    expect(refused.body.errors.base_url).toEqual(['must be a base URL, without credentials, query or fragment']);
  });

  it('before connect, an action says what to do first, and calls nobody', async () => {
    const res = await api().get('/_mock/platforms/ashby/tests').expect(422);
    expect(res.body.error).toBe('Connect the assessment partner first: its base URL and the API key it gave you.');
    expect(partner.received).toEqual([]);
  });
});

describe("Hooli's scripted recruiter", () => {
  beforeEach(async () => {
    await connect().expect(200);
  });

  it('lists the assessments assessment.list lists, by their assessment_type_id', async () => {
    const res = await api().get('/_mock/platforms/ashby/tests').expect(200);
    expect(res.body.tests).toEqual([
      { id: JAVASCRIPT.assessment_type_id, name: 'JavaScript' },
      { id: SQL.assessment_type_id, name: 'SQL' },
    ]);
    expect(partner.calls('assessment.list')[0]!.authorization).toBe(basic(PARTNER_KEY));
  });

  it("sends: starts the assessment for the candidate's first application at its Technical Assessment stage; the report is the assessment as Ashby shows it", async () => {
    const res = await api().post('/_mock/platforms/ashby/sends').send({ test_id: SQL.assessment_type_id }).expect(201);
    const id = res.body.report.id as string;
    expect(res.body.report).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      test: { id: SQL.assessment_type_id, name: 'SQL' },
      candidate: { id: '1', name: 'Grace Hopper', email: 'grace@example.com' },
      status: 'Invited',
      complete: false,
      score: null,
      results_url: null,
      problem: null,
      page: expect.stringMatching(/^\/ashby\/companies\/1\/candidates\/1#assessment-\d+$/),
    });
    expect(partner.calls('assessment.start')[0]!.body).toMatchObject({ assessment_type_id: SQL.assessment_type_id, application: { status: 'Active' }, job: { name: 'Backend Engineer' } });
    expect((await api().get(`/_mock/platforms/ashby/reports/${id}`).expect(200)).body.report).toEqual(res.body.report);
    // The stage now starts SQL, as a recruiter's pick would have it.
    expect((await api().get('/ashby/companies/1').expect(200)).text).toMatch(/Technical Assessment<\/td>\s*<td>SQL /);
  });

  it('sends to the candidate named, with the name given, without listing', async () => {
    const res = await api().post('/_mock/platforms/ashby/sends').send({ test_id: JAVASCRIPT.assessment_type_id, test_name: 'JavaScript', candidate_id: '2' }).expect(201);
    expect(res.body.report.candidate).toEqual({ id: '2', name: 'Alan Turing', email: 'alan@example.com' });
    expect(partner.calls('assessment.list')).toEqual([]);
  });

  it('says what went wrong: an assessment the partner does not list, a refusal (422), a failure (502), an unknown candidate or report', async () => {
    const unknown = await api().post('/_mock/platforms/ashby/sends').send({ test_id: 'no-such-assessment' }).expect(422);
    expect(unknown.body.error).toBe('The partner lists no assessment "no-such-assessment" to Hooli.');

    partner.state.startStatus = 422;
    partner.state.start = { message: 'No Ashby API key for this account' };
    expect((await api().post('/_mock/platforms/ashby/sends').send({ test_id: SQL.assessment_type_id, test_name: 'SQL' }).expect(422)).body.error).toBe('No Ashby API key for this account');

    partner.state.startStatus = 500;
    partner.state.start = { error: 'boom' };
    expect((await api().post('/_mock/platforms/ashby/sends').send({ test_id: SQL.assessment_type_id, test_name: 'SQL' }).expect(502)).body.error).toBe('Skill Check answered HTTP 500: boom');

    await api().post('/_mock/platforms/ashby/sends').send({ test_id: SQL.assessment_type_id, test_name: 'SQL', candidate_id: '99' }).expect(404);
    await api().get('/_mock/platforms/ashby/reports/00000000-0000-4000-8000-000000000000').expect(404);
  });
});
