import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningMockPlatform } from '../../src/mock-platform/server.js';
import {
  GRACE,
  HOOLI,
  JAVASCRIPT,
  PARTNER_KEY,
  SQL,
  ashbySandbox,
  basic,
  blob,
  fakeAshbyPartner,
  pickAssessment,
  postUpdate,
  startForGrace,
  submit,
  type FakeAshbyPartner,
} from './ashby-support.js';

/** The mock playing Ashby against a partner that follows docs/ashby.md: its calls, and its receiver of assessment.update. */

let partner: FakeAshbyPartner;
let mock: RunningMockPlatform;
let apiKey: string;
beforeEach(async () => {
  partner = await fakeAshbyPartner();
  ({ mock, apiKey } = await ashbySandbox(partner));
});
afterEach(async () => {
  await mock.close();
  await partner.close();
});

const row = () => mock.db.prepare('SELECT * FROM ashby_assessments ORDER BY id DESC').get() as Record<string, string | number | null>;
const candidatePage = () => request(mock.url).get(`/ashby/companies/${HOOLI}/candidates/${GRACE}`).expect(200);

/** Starts JavaScript for Grace's Backend Engineer application; its assessment_id. */
async function started(): Promise<string> {
  await pickAssessment(mock);
  await startForGrace(mock);
  return row().assessment_id as string;
}

describe('Hooli lists, picks and starts an assessment', () => {
  it('calls assessment.list and assessment.start with the Basic key, and assessment.start carries the candidate, application and job as Ashby sends them', async () => {
    const listed = await request(mock.url).get(`/ashby/companies/${HOOLI}?list_assessments=1`).expect(200);
    expect(listed.text).toContain('>JavaScript</option>');
    expect(listed.text).toContain('>SQL</option>');
    expect(partner.calls('assessment.list')).toEqual([{ path: '/ashby/assessment.list', authorization: `Basic ${Buffer.from(`${PARTNER_KEY}:`).toString('base64')}`, body: {} }]);

    const id = await started();
    const [start] = partner.calls('assessment.start');
    expect(start!.authorization).toBe(basic(PARTNER_KEY));
    expect(start!.body).toEqual({
      assessment_type_id: JAVASCRIPT.assessment_type_id,
      candidate: {
        ashby_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
        first_name: 'Grace',
        last_name: 'Hopper',
        email: 'grace@example.com',
        ashby_profile_url: `${mock.url}/ashby/companies/${HOOLI}/candidates/${GRACE}`,
      },
      application: { ashby_id: 'd4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f70', status: 'Active' },
      job: {
        ashby_id: '3f9c2d1e-7a4b-4c5d-8e6f-0a1b2c3d4e5f',
        name: 'Backend Engineer',
        ashby_job_url: `${mock.url}/ashby/companies/${HOOLI}/jobs/1`,
        req_id: 'ENG-42',
        hiringTeam: [{ userId: '9b8a7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', firstName: 'Gavin', lastName: 'Belson', email: 'gavin@hooli.example', role: 'Hiring Manager' }],
      },
    });
    // The answer's id is stored, and its update_request applied: Invited.
    expect(row()).toMatchObject({ delivery: 'started', assessment_id: id, status: 'Invited' });
    const page = await candidatePage();
    expect(page.text).toContain(`assessment_id <code>${id}</code>`);
    expect(page.text).toMatch(/<span class="badge">Invited<\/span>/);
  });

  it('sends neither req_id nor hiringTeam for a job without them, and a one-word name with an empty last_name', async () => {
    await submit(mock, `/ashby/companies/${HOOLI}/stages/5/assessment`, { assessment: JSON.stringify({ id: SQL.assessment_type_id, name: 'SQL' }) });
    await submit(mock, `/ashby/companies/${HOOLI}/candidates/3/start`, { application_id: '4', stage_id: '5' });
    const body = partner.calls('assessment.start')[0]!.body as { candidate: object; job: object };
    expect(body.candidate).toMatchObject({ first_name: 'Cher', last_name: '' });
    expect(body.job).toEqual({ ashby_id: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a', name: 'Data Analyst', ashby_job_url: `${mock.url}/ashby/companies/${HOOLI}/jobs/2` });
    // The job's link leads to the job on the company page.
    const job = await request(mock.url).get(`/ashby/companies/${HOOLI}/jobs/2`).expect(302);
    expect(job.headers.location).toBe(`/ashby/companies/${HOOLI}#job-2`);
  });

  it("shows the partner's refusals as Ashby does: a 409, a 422's message, success: false, a key refused", async () => {
    await pickAssessment(mock);
    partner.state.startStatus = 409;
    partner.state.start = { success: false, message: 'Already assessed (assessment_id x)', errors: ['already_assessed'], errorInfo: { code: 'already_assessed', message: 'Already assessed (assessment_id x)' } };
    expect((await startForGrace(mock)).text).toContain('The candidate is already being assessed (Skill Check answered HTTP 409: Already assessed (assessment_id x)).');

    partner.state.startStatus = 422;
    partner.state.start = { message: 'The assessment provider has no Ashby API key for this account' };
    expect((await startForGrace(mock)).text).toContain('role="alert">The assessment provider has no Ashby API key for this account</div>');

    partner.state.startStatus = 200;
    partner.state.start = { success: false, errors: ['nope'], errorInfo: { code: 'nope', message: 'No more assessments this month' } };
    expect((await startForGrace(mock)).text).toContain('Skill Check refused: No more assessments this month');

    partner.state.start = { success: true, results: {} };
    expect((await startForGrace(mock)).text).toContain('Skill Check answered assessment.start with an answer Ashby cannot read: results.assessment_id is required');

    await submit(mock, `/ashby/companies/${HOOLI}/partner`, { name: 'Skill Check', api_key: 'ptk_wrong_key_0000000', base_url: `${partner.url}/ashby` });
    const listed = await request(mock.url).get(`/ashby/companies/${HOOLI}?list_assessments=1`).expect(200);
    expect(listed.text).toContain('Skill Check refused the API key (HTTP 401).');
    // None of them is an assessment Ashby shows.
    expect(mock.db.prepare("SELECT count(*) AS n FROM ashby_assessments WHERE delivery = 'started'").get()).toEqual({ n: 0 });
  });

  it('a start answered with the id of the assessment under way is that assessment, not a second', async () => {
    const id = await started();
    partner.state.start = { success: true, results: { assessment_id: id } };
    await startForGrace(mock);
    expect(mock.db.prepare('SELECT assessment_id FROM ashby_assessments').all()).toEqual([{ assessment_id: id }]);
  });
});

describe('assessment.update: the partner tells Ashby how an assessment goes', () => {
  it('refuses a missing or malformed credential 401 and a wrong key 403, in Ashby\'s envelope, and changes nothing', async () => {
    const id = await started();
    const update = { assessment_id: id, timestamp: Date.now(), assessment_status: blob('status', 'string', 'Started') };
    for (const authorization of [undefined, `Bearer ${apiKey}`, basic(apiKey, 'password'), 'Basic ###', apiKey]) {
      const res = await postUpdate(mock, update, authorization).expect(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="Ashby"');
      expect(res.body).toEqual({ success: false, errors: ['unauthorized'], errorInfo: { code: 'unauthorized', message: expect.stringContaining('Basic user name'), requestId: expect.any(String) } });
    }
    for (const key of [PARTNER_KEY, `${apiKey}x`]) {
      const res = await postUpdate(mock, update, basic(key)).expect(403);
      expect(res.body).toMatchObject({ success: false, errors: ['forbidden'], errorInfo: { code: 'forbidden', message: expect.stringContaining('Invalid API key') } });
    }
    expect(row()).toMatchObject({ status: 'Invited', started_at: null });
  });

  it('takes Started, then the result: the status, the typed score, the profile link and the metadata, each update with its timestamp', async () => {
    const id = await started();
    const startedAt = Date.now();
    expect((await postUpdate(mock, { assessment_id: id, timestamp: startedAt, assessment_status: blob('status', 'string', 'Started') }, basic(apiKey)).expect(200)).body).toEqual({ success: true });
    expect(row()).toMatchObject({ status: 'Started', started_at: startedAt });

    const done = {
      assessment_id: id,
      timestamp: startedAt + 60_000,
      assessment_status: blob('status', 'string', 'Completed'),
      assessment_result: blob('score', 'numeric_score', 87, 'Score'),
      assessment_profile_url: blob('profile', 'url', 'https://partner.example/results?token=abc', 'Results'),
      metadata: [blob('metadata:Summary', 'string', '13 of 15 right', 'Summary'), blob('minutes', 'numeric_duration_minutes', 24, 'Time taken'), blob('passed', 'boolean_success', true, 'Passed')],
    };
    expect((await postUpdate(mock, done, basic(apiKey)).expect(200)).body).toEqual({ success: true });
    const report = (await request(mock.url).get(`/_mock/platforms/ashby/reports/${id}`).expect(200)).body.report;
    expect(report).toMatchObject({
      id,
      status: 'Completed',
      complete: true,
      score: 87,
      results_url: 'https://partner.example/results?token=abc',
      details: { Summary: '13 of 15 right', 'Time taken': 24, Passed: true },
      problem: null,
    });
    const page = (await candidatePage()).text;
    expect(page).toMatch(/<span class="badge badge-completed">Completed<\/span>\s*<span class="score" title="Score \(numeric_score\)">87<\/span>/);
    expect(page).toContain('<a href="https://partner.example/results?token=abc" rel="noopener noreferrer">View in Skill Check</a>');
    expect(page).toMatch(/<td>Time taken<\/td><td>24 min<\/td>/);
    expect(page).toMatch(/<td>Passed<\/td><td>Passed<\/td>/);
    // Each update with its own timestamp: the start's Invited, Started, the result.
    expect(page).toContain('3 updates received');
    expect(page).toContain(`<code>${startedAt}</code><br><span class="muted">${new Date(startedAt).toISOString()}</span>`);
    expect(page).toContain(`<code>${startedAt + 60_000}</code>`);
    expect(page).not.toContain('Cancel assessment');
  });

  it('answers a body that breaks the rules 200 with success: false and invalid_input, naming each problem, and shows it on the assessment', async () => {
    const id = await started();
    const cases: [unknown, string][] = [
      [{ assessment_id: id, assessment_status: blob('status', 'string', 'Started') }, 'timestamp is required'],
      [{ assessment_id: id, timestamp: new Date().toISOString(), assessment_status: blob('status', 'string', 'Started') }, 'timestamp must be an integer: milliseconds since the epoch'],
      [{ assessment_id: id, timestamp: 1.5, assessment_status: blob('status', 'string', 'Started') }, 'timestamp must be an integer: milliseconds since the epoch'],
      [{ assessment_id: id, timestamp: Date.now() }, 'assessment_status is required unless cancelled_reason is set'],
      [{ assessment_id: id, timestamp: Date.now(), assessment_status: blob('status', 'string', 'Completed'), assessment_result: blob('score', 'numeric_score', 87) }, 'assessment_profile_url is required with assessment_result'],
      [
        { assessment_id: id, timestamp: Date.now(), assessment_status: blob('status', 'string', 'Completed'), assessment_result: blob('score', 'numeric_score', '87'), assessment_profile_url: blob('profile', 'url', 'https://p.example/r') },
        'assessment_result.value must be a number for type numeric_score',
      ],
      [
        { assessment_id: id, timestamp: Date.now(), assessment_status: blob('status', 'string', 'Completed'), assessment_result: blob('score', 'numeric_score', 87), assessment_profile_url: blob('profile', 'string', 'https://p.example/r') },
        'assessment_profile_url.type must be url',
      ],
      [{ assessment_id: id, timestamp: Date.now(), assessment_status: blob('status', 'percentage', 87) }, 'assessment_status.type must be one of numeric_score, numeric_duration_minutes, url, string, boolean_success'],
      [{ assessment_id: id, timestamp: Date.now(), assessment_status: blob('status', 'string', 'Started'), metadata: [blob('status', 'string', 'x')] }, 'identifiers must be unique: "status" used twice'],
    ];
    for (const [body, problem] of cases) {
      const res = await postUpdate(mock, body, basic(apiKey)).expect(200);
      expect(res.body).toEqual({ success: false, errors: ['invalid_input'], errorInfo: { code: 'invalid_input', message: expect.stringContaining(problem), requestId: expect.any(String) } });
      expect(res.body.errorInfo.message).toMatch(/^Request payload is malformed: /);
    }
    expect(row()).toMatchObject({ status: 'Invited', result: null });
    expect((await candidatePage()).text).toContain('An assessment.update was refused (invalid_input): metadata identifiers must be unique');

    for (const text of ['{"assessment_id":', 'not json']) {
      const res = await postUpdate(mock, text, basic(apiKey)).expect(200);
      expect(res.body).toMatchObject({ success: false, errorInfo: { code: 'invalid_input', message: expect.stringMatching(/^Request payload is malformed/) } });
    }
    const unknown = await postUpdate(mock, { assessment_id: '00000000-0000-4000-8000-000000000000', timestamp: Date.now(), assessment_status: blob('status', 'string', 'Started') }, basic(apiKey)).expect(200);
    expect(unknown.body).toMatchObject({ success: false, errors: ['assessment_not_found'], errorInfo: { code: 'assessment_not_found' } });
  });

  it('keeps an update older than the one shown without applying it, and says when a timestamp reads as seconds', async () => {
    const id = await started();
    const now = Date.now();
    await postUpdate(mock, { assessment_id: id, timestamp: now + 1000, assessment_status: blob('status', 'string', 'Started') }, basic(apiKey)).expect(200);
    const seconds = Math.floor(now / 1000);
    expect((await postUpdate(mock, { assessment_id: id, timestamp: seconds, assessment_status: blob('status', 'string', 'In review') }, basic(apiKey)).expect(200)).body).toEqual({ success: true });
    expect(row()).toMatchObject({ status: 'Started' });
    const page = (await candidatePage()).text;
    expect(page).toContain(`not applied: older than the update shown (timestamp ${seconds} &lt; ${now + 1000}): not applied; timestamp ${seconds} reads as 1970-`);
    expect(page).toContain('Ashby takes milliseconds since the epoch');
  });

  it("takes the partner's cancel with its reason", async () => {
    const id = await started();
    await postUpdate(mock, { assessment_id: id, timestamp: Date.now(), cancelled_reason: blob('cancelled_reason', 'string', 'Candidate withdrew', 'Cancelled') }, basic(apiKey)).expect(200);
    expect(row()).toMatchObject({ cancelled_by: 'partner', cancelled_reason: 'Candidate withdrew' });
    const report = (await request(mock.url).get(`/_mock/platforms/ashby/reports/${id}`).expect(200)).body.report;
    expect(report).toMatchObject({ status: 'Cancelled', complete: false, details: { Cancelled: 'Candidate withdrew' } });
    expect((await candidatePage()).text).toContain('Cancelled by Skill Check: Candidate withdrew');
  });

  it('a new API key retires the old one: the partner holding it is refused 403', async () => {
    const id = await started();
    await submit(mock, `/ashby/companies/${HOOLI}/api-key`, {});
    const update = { assessment_id: id, timestamp: Date.now(), assessment_status: blob('status', 'string', 'Started') };
    await postUpdate(mock, update, basic(apiKey)).expect(403);
    const fresh = (mock.db.prepare('SELECT api_key FROM ashby_companies WHERE id = ?').get(HOOLI) as { api_key: string }).api_key;
    expect(fresh).not.toBe(apiKey);
    await postUpdate(mock, update, basic(fresh)).expect(200);
    const connected = await request(mock.url).post('/_mock/platforms/ashby/connect').send({ partner_url: partner.url, partner_name: 'Skill Check', token: PARTNER_KEY }).expect(200);
    expect(connected.body.credential).toBe(fresh);
  });
});

describe('the recruiter cancels', () => {
  it('calls assessment.cancel with the id; the assessment is cancelled once the partner agrees, and a refusal is shown', async () => {
    const id = await started();
    partner.state.cancel = { success: false, errors: ['assessment_complete'], errorInfo: { code: 'assessment_complete', message: 'This assessment is complete' } };
    const refused = await submit(mock, `/ashby/companies/${HOOLI}/assessments/${row().id}/cancel`, {});
    const after = await request(mock.url).get(refused.headers.location!).expect(200);
    expect(after.text).toContain('Skill Check refused: This assessment is complete');
    expect(row()).toMatchObject({ cancelled_at: null });

    partner.state.cancel = undefined;
    await submit(mock, `/ashby/companies/${HOOLI}/assessments/${row().id}/cancel`, {});
    expect(partner.calls('assessment.cancel').map((c) => [c.authorization, c.body])).toEqual([
      [basic(PARTNER_KEY), { assessment_id: id }],
      [basic(PARTNER_KEY), { assessment_id: id }],
    ]);
    expect(row()).toMatchObject({ cancelled_by: 'ashby', cancelled_reason: 'Cancelled in Ashby', problem: null });
    const page = (await candidatePage()).text;
    expect(page).toMatch(/<span class="badge badge-canceled">Cancelled<\/span>/);
    expect(page).not.toContain('Cancel assessment</button>');
    // An update after Ashby's own cancel is kept, not applied.
    await postUpdate(mock, { assessment_id: id, timestamp: Date.now() + 5000, assessment_status: blob('status', 'string', 'Started') }, basic(apiKey)).expect(200);
    expect(row()).toMatchObject({ status: 'Invited' });
    expect((await candidatePage()).text).toContain('arrived after the assessment was cancelled: not applied');
  });
});

describe('faults', () => {
  const arm = (fault: object) => request(mock.url).post('/_mock/faults').send(fault).expect(201);

  it("lists Ashby's calls to the partner and its receiver among the faults' targets", async () => {
    const res = await request(mock.url).get('/_mock/faults').expect(200);
    expect(res.body.callbacks).toEqual(expect.arrayContaining(['ashby.assessment.list', 'ashby.assessment.start', 'ashby.assessment.cancel']));
    expect(res.body.endpoints).toEqual(expect.arrayContaining(['ashby.assessment.update', 'ashby.assessment.update.success_false']));
  });

  it('a callback fault fails the call without reaching the partner, and the call log marks it', async () => {
    await pickAssessment(mock);
    await arm({ target: 'callback', endpoint: 'ashby.assessment.start', status: 500 });
    expect((await startForGrace(mock)).text).toContain('Skill Check answered HTTP 500: Injected fault: 500 on ashby.assessment.start');
    expect(partner.calls('assessment.start')).toEqual([]);
    const calls = await request(mock.url).get('/_mock/calls?endpoint=ashby.assessment.start').expect(200);
    expect(calls.body.calls[0]).toMatchObject({ direction: 'outbound', fault: 'status 500', response_status: 500 });
  });

  it('assessment.update answers a 5xx, or 200 with success: false and the code its status names', async () => {
    const id = await started();
    const update = { assessment_id: id, timestamp: Date.now(), assessment_status: blob('status', 'string', 'Started') };
    await arm({ endpoint: 'ashby.assessment.update', status: 503 });
    await postUpdate(mock, update, basic(apiKey)).expect(503);
    await arm({ endpoint: 'ashby.assessment.update.success_false', status: 400 });
    await arm({ endpoint: 'ashby.assessment.update.success_false', status: 404 });
    await arm({ endpoint: 'ashby.assessment.update.success_false', status: 418 });
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await postUpdate(mock, update, basic(apiKey)).expect(200)).body.errorInfo.code);
    expect(codes).toEqual(['invalid_input', 'assessment_not_found', 'injected_fault']);
    expect(row()).toMatchObject({ status: 'Invited' });
    // Then as Ashby would have: taken.
    expect((await postUpdate(mock, update, basic(apiKey)).expect(200)).body).toEqual({ success: true });
    const calls = await request(mock.url).get(`/_mock/calls?endpoint=ashby.assessment.update&order=asc`).expect(200);
    expect(calls.body.calls.map((c: { response_status: number; fault: string | null }) => [c.response_status, c.fault])).toEqual([
      [503, 'status 503'],
      [200, 'status 400 (as success: false)'],
      [200, 'status 404 (as success: false)'],
      [200, 'status 418 (as success: false)'],
      [200, null],
    ]);
  });
});
