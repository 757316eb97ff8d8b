import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningMockPlatform } from '../../src/mock-platform/server.js';
import { eventually } from '../support/eventually.js';
import {
  API_KEY,
  INITECH,
  KATHERINE,
  MARGARET,
  TAKE_HOME_STAGE,
  basic,
  fakeGreenhousePartner,
  greenhouseSandbox,
  patch,
  pickFirstTest,
  submit,
  type FakeGreenhousePartner,
} from './greenhouse-support.js';

/** The mock playing Greenhouse against a partner that follows docs/greenhouse.md. */

let partner: FakeGreenhousePartner;
let mock: RunningMockPlatform;
beforeEach(async () => {
  partner = await fakeGreenhousePartner();
  mock = await greenhouseSandbox(partner);
});
afterEach(async () => {
  await mock.close();
  await partner.close();
});

const candidatePage = (candidateId = KATHERINE) => request(mock.url).get(`/greenhouse/companies/${INITECH}/candidates/${candidateId}`).expect(200);
const row = (id: number) =>
  mock.db.prepare('SELECT * FROM greenhouse_take_home_tests WHERE id = ?').get(id) as Record<string, string | number | null> | undefined;

/** Picks a test and sends it to the candidate; returns the take-home test's id and partner_interview_id. */
async function sendTest(candidateId = KATHERINE) {
  await pickFirstTest(mock);
  await submit(mock, `/greenhouse/companies/${INITECH}/candidates/${candidateId}/send`, { stage_id: String(TAKE_HOME_STAGE) });
  const sent = mock.db.prepare('SELECT id, partner_interview_id FROM greenhouse_take_home_tests ORDER BY id DESC').get() as {
    id: number;
    partner_interview_id: string;
  };
  return { id: sent.id, interviewId: sent.partner_interview_id, url: `${mock.url}/integrations/testing_partners/take_home_tests/${sent.id}` };
}

describe('the Greenhouse company lists, picks and sends a test', () => {
  it('lists the tests with the Basic key, picks one for a stage, and sends send_test with the documented body', async () => {
    const listed = await request(mock.url).get(`/greenhouse/companies/${INITECH}?list_tests=1`).expect(200);
    expect(listed.text).toContain('JavaScript fundamentals');
    expect(listed.text).toContain('SQL basics');
    expect(partner.calls('list_tests')).toEqual([expect.objectContaining({ method: 'GET', authorization: basic(API_KEY) })]);
    expect(partner.calls('list_tests')[0]!.authorization).toBe(`Basic ${Buffer.from(`${API_KEY}:`).toString('base64')}`);

    await pickFirstTest(mock);
    const company = await request(mock.url).get(`/greenhouse/companies/${INITECH}`).expect(200);
    expect(company.text).toMatch(/Take-Home Test<\/td>\s*<td>JavaScript fundamentals/);

    const { id, interviewId } = await sendTest();
    const [sent] = partner.calls('send_test');
    expect(sent!.authorization).toBe(basic(API_KEY));
    expect(sent!.body).toEqual({
      partner_test_id: '12345',
      candidate: {
        first_name: 'Katherine',
        last_name: 'Johnson',
        preferred_name: 'Kathy',
        email: 'katherine@example.com',
        phone_number: '+1 757 555 0100',
        resume_url: `${mock.url}/greenhouse/companies/${INITECH}/candidates/${KATHERINE}/resume`,
        greenhouse_profile_url: `${mock.url}/greenhouse/companies/${INITECH}/candidates/${KATHERINE}`,
      },
      sent_by: 'morgan@initech.example',
      url: `${mock.url}/integrations/testing_partners/take_home_tests/${id}`,
    });
    // The id the partner answered is stored, and shown on the candidate's page.
    expect(row(id)).toMatchObject({ delivery: 'delivered', partner_test_id: '12345', partner_test_name: 'JavaScript fundamentals' });
    expect(interviewId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await candidatePage()).text).toContain(interviewId);
  });

  it('sends null for what a candidate does not have, as Greenhouse does', async () => {
    await sendTest(MARGARET);
    const candidate = (partner.calls('send_test')[0]!.body as { candidate: Record<string, unknown> }).candidate;
    expect(candidate).toMatchObject({ first_name: 'Margaret', last_name: 'Hamilton', preferred_name: null, phone_number: null });
  });

  it('a partner refusing the key: the recruiter is told what it answered', async () => {
    await request(mock.url)
      .post(`/greenhouse/companies/${INITECH}/partner`)
      .type('form')
      .send({ name: 'Skill Check', api_key: 'ptk_wrong_key_000000', base_url: partner.url })
      .expect(303);
    const listed = await request(mock.url).get(`/greenhouse/companies/${INITECH}?list_tests=1`).expect(200);
    expect(listed.text).toContain('Skill Check refused the API key (HTTP 401).');
  });
});

describe('the PATCH: the partner says the test is complete', () => {
  it('refuses another key (401) and an unknown test (404), and changes nothing', async () => {
    const { id, url } = await sendTest();
    const other = `${mock.url}/integrations/testing_partners/take_home_tests/${id + 1000}`;
    for (const authorization of [basic('ptk_wrong_key_000000'), basic(API_KEY, 'password'), `Bearer ${API_KEY}`, undefined]) {
      const res = await request(mock.url)
        .patch(new URL(url).pathname)
        .set(authorization ? { authorization } : {})
        .expect(401);
      expect(res.body).toEqual({ error: expect.stringMatching(/API key/) });
    }
    const unknown = await request(mock.url).patch(new URL(other).pathname).set('authorization', basic(API_KEY)).expect(404);
    expect(unknown.body).toEqual({ error: 'Unknown take-home test' });
    expect(row(id)).toMatchObject({ patched_at: null, partner_status: null });
    expect(partner.calls('test_status')).toEqual([]);
  });

  it('answers 200 with an empty body, then reads test_status and shows the score, the profile link and the metadata', async () => {
    const { id, interviewId, url } = await sendTest();
    const res = await request(mock.url).patch(new URL(url).pathname).set('authorization', basic(API_KEY)).expect(200);
    expect(res.text).toBe('');

    const [status] = await eventually(() => {
      const calls = partner.calls('test_status');
      expect(calls).toHaveLength(1);
      return calls;
    });
    expect(status).toMatchObject({ method: 'GET', query: { partner_interview_id: interviewId }, authorization: basic(API_KEY) });
    await eventually(() => expect(row(id)).toMatchObject({ partner_status: 'complete', partner_score: 80, problem: null }));

    const page = (await candidatePage()).text;
    expect(page).toContain('<a href="https://partner.example/results?token=abc"');
    expect(page).toMatch(/<span class="score"[^>]*>80<\/span>/);
    expect(page).toMatch(/<td>Summary<\/td><td>Strong on recursion<\/td>/);
    expect(page).toContain('>complete</span>');

    // The call log has both sides: the PATCH received, the test_status made.
    const calls = await request(mock.url).get(`/_mock/calls?report_id=${interviewId}`).expect(200);
    expect(calls.body.calls.map((c: { direction: string; endpoint: string; response_status: number }) => [c.direction, c.endpoint, c.response_status])).toEqual([
      ['outbound', 'greenhouse.send_test', 200],
      ['inbound', 'greenhouse.take_home_tests.update', 200],
      ['outbound', 'greenhouse.test_status', 200],
    ]);
    expect(calls.body.calls[1].request_headers.authorization).toBe('Basic [redacted]');
  });

  it('a PATCH sent right after send_test is answered, before the mock has stored the id, is read once the id is known', async () => {
    await partner.close();
    partner = await fakeGreenhousePartner({ patchAfterSend: true });
    await request(mock.url).post(`/api/greenhouse/companies/${INITECH}/partner`).send({ name: 'Skill Check', api_key: API_KEY, base_url: partner.url }).expect(200);
    const { id } = await sendTest();
    await eventually(() => expect(partner.patches).toEqual([{ url: `${mock.url}/integrations/testing_partners/take_home_tests/${id}`, status: 200 }]));
    await eventually(() => expect(row(id)).toMatchObject({ partner_status: 'complete', partner_score: 80 }));
  });

  it('"Check status now" reads test_status again, as Greenhouse polls', async () => {
    const { id } = await sendTest();
    partner.state.status = { partner_status: 'in_progress' };
    await submit(mock, `/greenhouse/companies/${INITECH}/take-home-tests/${id}/check`, {});
    expect(partner.calls('test_status')).toHaveLength(1);
    expect(row(id)).toMatchObject({ partner_status: 'in_progress', partner_score: null, partner_profile_url: null });
    expect((await candidatePage()).text).toContain('>in_progress</span>');
  });
});

describe('a malformed test_status answer', () => {
  it('is reported to the partner with response_error, shown on the page, and not stored', async () => {
    const { id, interviewId, url } = await sendTest();
    partner.state.status = { partner_status: 'complete', partner_score: '80%', metadata: { nested: { no: 1 } } };
    await patch(url, API_KEY);

    const [reported] = await eventually(() => {
      const calls = partner.calls('response_error');
      expect(calls).toHaveLength(1);
      return calls;
    });
    expect(reported!.authorization).toBe(basic(API_KEY));
    expect(reported!.body).toEqual({
      api_call: 'test_status',
      errors: expect.arrayContaining([
        'partner_score must be a number',
        expect.stringMatching(/^metadata\.nested must be a string, a number, a boolean or null/),
        "partner_profile_url is required when partner_status is 'complete'",
      ]),
      partner_test_id: '12345',
      partner_test_name: 'JavaScript fundamentals',
      partner_interview_id: interviewId,
      candidate_email: 'katherine@example.com',
    });
    expect(row(id)).toMatchObject({ partner_status: null, partner_score: null, problem: expect.stringContaining('partner_score must be a number') });
    expect((await candidatePage()).text).toContain('Skill Check answered test_status with a malformed answer (reported with response_error)');
  });

  it('on "Check status now" too', async () => {
    const { id } = await sendTest();
    partner.state.status = { partner_score: 3 };
    await submit(mock, `/greenhouse/companies/${INITECH}/take-home-tests/${id}/check`, {});
    expect(partner.calls('response_error').map((c) => c.body)).toEqual([expect.objectContaining({ api_call: 'test_status', errors: ['partner_status is required'] })]);
  });
});

describe('malformed answers to the other calls', () => {
  it('send_test without a partner_interview_id: reported, and the test is shown as not sent; a PATCH for it is a 404', async () => {
    partner.state.sendAnswer = { id: 7 };
    await pickFirstTest(mock);
    const sent = await submit(mock, `/greenhouse/companies/${INITECH}/candidates/${KATHERINE}/send`, { stage_id: String(TAKE_HOME_STAGE) });
    expect(partner.calls('response_error').map((c) => c.body)).toEqual([
      {
        api_call: 'send_test',
        errors: ['partner_interview_id is required'],
        partner_test_id: '12345',
        partner_test_name: 'JavaScript fundamentals',
        candidate_email: 'katherine@example.com',
      },
    ]);
    const page = await request(mock.url).get(sent.headers.location!).expect(200);
    expect(page.text).toContain('Skill Check answered send_test with a malformed answer (reported with response_error): partner_interview_id is required');
    expect(page.text).toContain('>not sent</span>');
    const url = (partner.calls('send_test')[0]!.body as { url: string }).url;
    expect(await patch(url, API_KEY)).toBe(404);
  });

  it('list_tests that is not an array of string pairs: reported, and no test is offered', async () => {
    partner.state.tests = [{ partner_test_id: 12345, partner_test_name: 'JavaScript fundamentals' }];
    const listed = await request(mock.url).get(`/greenhouse/companies/${INITECH}?list_tests=1`).expect(200);
    expect(listed.text).toContain('answered list_tests with a malformed answer');
    expect(listed.text).not.toContain('Use for Take-Home Test');
    expect(partner.calls('response_error').map((c) => c.body)).toEqual([{ api_call: 'list_tests', errors: ['0.partner_test_id must be a string'] }]);
  });
});

describe('faults on the PATCH route', () => {
  it('answers as configured, reads nothing, and lets the next PATCH through', async () => {
    const { id, url } = await sendTest();
    await request(mock.url).post('/_mock/faults').send({ endpoint: 'greenhouse.take_home_tests.update', status: 503, times: 2 }).expect(201);
    for (let i = 0; i < 2; i += 1) {
      const res = await request(mock.url).patch(new URL(url).pathname).set('authorization', basic(API_KEY)).expect(503);
      expect(res.body).toEqual({ error: 'Injected fault: 503 on greenhouse.take_home_tests.update' });
    }
    expect(row(id)).toMatchObject({ patched_at: null });
    expect(partner.calls('test_status')).toEqual([]);

    await request(mock.url).patch(new URL(url).pathname).set('authorization', basic(API_KEY)).expect(200);
    await eventually(() => expect(row(id)).toMatchObject({ partner_status: 'complete' }));
    const inbound = await request(mock.url).get('/_mock/calls?endpoint=greenhouse.take_home_tests.update').expect(200);
    expect(inbound.body.calls.map((c: { response_status: number; fault: string | null }) => [c.response_status, c.fault])).toEqual([
      [503, 'status 503'],
      [503, 'status 503'],
      [200, null],
    ]);
  });

  it('a call to the partner can be given a fault: the recruiter sees the problem, the partner receives nothing', async () => {
    await pickFirstTest(mock);
    await request(mock.url).post('/_mock/faults').send({ target: 'callback', endpoint: 'greenhouse.send_test', status: 500 }).expect(201);
    const sent = await submit(mock, `/greenhouse/companies/${INITECH}/candidates/${KATHERINE}/send`, { stage_id: String(TAKE_HOME_STAGE) });
    const page = await request(mock.url).get(sent.headers.location!).expect(200);
    expect(page.text).toContain('Skill Check answered HTTP 500: Injected fault: 500 on greenhouse.send_test');
    expect(partner.calls('send_test')).toEqual([]);
  });
});

describe('the partner as the company configures it', () => {
  it.each([
    ['no key', { name: 'Skill Check', base_url: 'http://127.0.0.1:3000' }, 'api_key'],
    ['a base URL that is not http(s)', { name: 'Skill Check', api_key: API_KEY, base_url: 'ftp://127.0.0.1' }, 'base_url'],
    ['a base URL with a query', { name: 'Skill Check', api_key: API_KEY, base_url: 'http://127.0.0.1:3000/?a=1' }, 'base_url'],
  ])('refuses %s (422) and keeps the partner it had', async (_what, body, field) => {
    const res = await request(mock.url).post(`/api/greenhouse/companies/${INITECH}/partner`).send(body).expect(422);
    expect(res.body.errors).toHaveProperty([field]);
    const kept = await request(mock.url).get(`/api/greenhouse/companies/${INITECH}/partner`).expect(200);
    expect(kept.body.partner.urls.list_tests).toBe(`${partner.url}/greenhouse/list_tests`);
  });

  it('shows the four endpoint URLs and never the key', async () => {
    const res = await request(mock.url).get(`/api/greenhouse/companies/${INITECH}/partner`).expect(200);
    expect(res.body.partner).toEqual({
      company_id: INITECH,
      name: 'Skill Check',
      api_key_hint: `…${API_KEY.slice(-4)}`,
      urls: {
        list_tests: `${partner.url}/greenhouse/list_tests`,
        send_test: `${partner.url}/greenhouse/send_test`,
        test_status: `${partner.url}/greenhouse/test_status`,
        response_error: `${partner.url}/greenhouse/response_error`,
      },
      updated_at: expect.any(String),
    });
    const page = await request(mock.url).get(`/greenhouse/companies/${INITECH}`).expect(200);
    expect(page.text).not.toContain(API_KEY);
  });
});
