import { afterEach, describe, expect, it } from 'vitest';
import { GREENHOUSE_CHECKS } from '../../src/conformance/platforms/greenhouse/checks.js';
import { runGreenhouseConformance, type GreenhouseOptions } from '../../src/conformance/platforms/greenhouse/run.js';
import type { ConformanceRun } from '../../src/conformance/run.js';
import { FAKE_RESULTS_SECRET, startGreenhousePartner, type GreenhouseFaults } from '../support/greenhouse-partner.js';

/**
 * The Greenhouse checker against partners written in the test from docs/greenhouse.md: a good one
 * passes every check; each broken one fails exactly the checks that describe its fault, and the
 * checks that build on a failed one are not run.
 */

type Fake = Awaited<ReturnType<typeof startGreenhousePartner>>;
let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const ALL = GREENHOUSE_CHECKS.map((c) => c.id);
const failed = (run: ConformanceRun) => run.results.filter((r) => !r.ok).map((r) => r.id);
const detailOf = (run: ConformanceRun, id: string) => run.results.find((r) => r.id === id)?.detail;

/** A run against a fake with `faults`, with both keys and the results secret unless `options` says otherwise. */
async function check(faults: GreenhouseFaults, options: Partial<GreenhouseOptions> = {}) {
  fake = await startGreenhousePartner(faults);
  return runGreenhouseConformance({
    baseUrl: fake.baseUrl,
    key: fake.keys.a,
    otherKey: fake.keys.b,
    results: { secret: FAKE_RESULTS_SECRET },
    ...options,
  });
}

describe('a partner that follows docs/greenhouse.md', () => {
  it('passes every check, in order, with the results secret and a second key', async () => {
    const run = await check({});
    expect(run.results.filter((r) => !r.ok).map((r) => `${r.id}: ${r.detail}`)).toEqual([]);
    expect(run.results.map((r) => r.id)).toEqual(ALL);
    expect(run.notRun).toEqual([]);
    expect(detailOf(run, 'auth.password')).toBe('401 from each of the four');
    expect(detailOf(run, 'patch.request')).toBe('no body; Basic with the key and an empty password');
    expect(detailOf(run, 'test_status.result_fields')).toBe('partner_score 87; metadata "Result", "Time spent"');
    // The PATCH went to the url of the first send alone: one interview completed.
    expect([...fake!.interviews.values()].filter((i) => i.status === 'complete')).toHaveLength(1);
  });

  it('without the results secret, asks for the test to be completed by hand and passes once it is', async () => {
    const notices: string[] = [];
    const run = await check(
      {},
      {
        results: undefined,
        // The person running the checker: completes the interview the notice names.
        onNotice: (text) => {
          notices.push(text);
          fake!.complete(/partner_interview_id ([0-9a-f-]{36})/.exec(text)![1]!);
        },
      },
    );
    expect(failed(run)).toEqual([]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^Complete the test of hpotter@example\.com \(partner_interview_id [0-9a-f-]{36}\) by hand now/);
    expect(notices[0]).toContain('waits up to 60 s for the PATCH to http://127.0.0.1:');
  });

  it('without --other-key, the isolation checks are not run, and say why', async () => {
    const run = await check({}, { otherKey: undefined });
    expect(failed(run)).toEqual([]);
    expect(run.notRun).toEqual([
      { id: 'isolation.test_status', why: 'give --other-key' },
      { id: 'isolation.list_tests', why: 'give --other-key' },
      { id: 'isolation.send_test', why: 'give --other-key' },
    ]);
  });
});

describe('a partner with a fault fails the checks of that fault', () => {
  it('one that never PATCHes: patch.received, and what needs the PATCH is not run', async () => {
    // It never sends one: waiting longer would change nothing, so a second is enough to say so.
    const run = await check({ neverPatch: true }, { patchTimeoutMs: 1_000 });
    expect(failed(run)).toEqual(['patch.received']);
    expect(detailOf(run, 'patch.received')).toMatch(/^no request to http:\/\/127\.0\.0\.1:\d+\/integrations\/testing_partners\/take_home_tests\/\d+ within 1 s$/);
    expect(run.notRun).toEqual([
      { id: 'patch.request', why: 'needs the PATCH of patch.received' },
      { id: 'test_status.complete', why: 'needs the PATCH of patch.received' },
      { id: 'test_status.result_fields', why: 'needs the answer of test_status.complete' },
    ]);
  });

  it('one that answers without authentication: the four auth checks, each naming the four endpoints', async () => {
    const run = await check({ noAuth: true });
    expect(failed(run)).toEqual(['auth.missing', 'auth.unknown_key', 'auth.bearer', 'auth.password']);
    expect(detailOf(run, 'auth.missing')).toMatch(
      /^list_tests: expected 401, got 200 .*; send_test: expected 401, got 200 .*; test_status: expected 401, got 200 .*; response_error: expected 401, got 200 /,
    );
  });

  it("one whose test_status answers another customer's interview: isolation.test_status", async () => {
    const run = await check({ leaksInterviews: true });
    expect(failed(run)).toEqual(['isolation.test_status']);
    expect(detailOf(run, 'isolation.test_status')).toMatch(/^expected 404, got 200 \{"partner_status":"sent"\}: another customer's key reads this customer's interview$/);
  });

  it('one that takes a url on any host: send_test.url_not_allowed and url_plain_http, and its PATCH reaches the url with credentials', async () => {
    const run = await check({ anyUrl: true });
    expect(failed(run)).toEqual(['send_test.url_not_allowed', 'send_test.url_plain_http', 'send_test.url_unreached']);
    expect(detailOf(run, 'send_test.url_not_allowed')).toMatch(/^169\.254\.169\.254: expected 4xx, got 200 .*; user name and password: expected 4xx, got 200 /);
    expect(detailOf(run, 'send_test.url_unreached')).toMatch(
      /^PATCH to http:\/\/…@127\.0\.0\.1:\d+\/integrations\/testing_partners\/take_home_tests\/\d+, a url with a user name and password$/,
    );
    // The checker completed only the interview whose url is its own: nothing was sent to the metadata address.
    const completed = [...fake!.interviews.values()].filter((i) => i.status === 'complete').map((i) => new URL(i.url).hostname);
    expect(completed).toEqual(['127.0.0.1', '127.0.0.1']);
  });

  it('one whose allowlist takes any plain-http host while it refuses https there: send_test.url_plain_http alone', async () => {
    const run = await check({ anyHttpUrl: true });
    expect(failed(run)).toEqual(['send_test.url_plain_http']);
    expect(detailOf(run, 'send_test.url_plain_http')).toMatch(
      /^expected 4xx, got 200 \{"partner_interview_id":"[0-9a-f-]{36}"\}: the partner would PATCH http:\/\/169\.254\.169\.254\/integrations\/testing_partners\/take_home_tests\/\d+$/,
    );
    // The https url on the same host is still refused: the check that tried it passes.
    expect(run.results.find((r) => r.id === 'send_test.url_not_allowed')!.ok).toBe(true);
  });

  it("one whose send_test takes a test only another customer has: isolation.send_test alone, naming the test", async () => {
    const run = await check({ anyCustomersTest: true });
    expect(failed(run)).toEqual(['isolation.send_test']);
    expect(detailOf(run, 'isolation.send_test')).toMatch(/^expected 4xx, got 200 .*: the key sent test "777" \(SQL\), which only the other customer lists$/);
    // The interview it made is the first key's, for the other customer's test.
    expect([...fake!.interviews.values()].filter((i) => i.testId === '777').map((i) => i.key)).toEqual(['key-a']);
  });

  it('one whose send_test gives two candidates the same partner_interview_id: send_test.distinct_interviews alone', async () => {
    const run = await check({ oneInterviewPerTest: true });
    expect(failed(run)).toEqual(['send_test.distinct_interviews']);
    expect(detailOf(run, 'send_test.distinct_interviews')).toMatch(
      /^hgranger@example\.com got the partner_interview_id of hpotter@example\.com, "[0-9a-f-]{36}": one test instance for two candidates$/,
    );
    expect(fake!.interviews.size).toBe(1);
  });

  it('one whose score is a string: test_status.result_fields', async () => {
    const run = await check({ scoreAsString: true });
    expect(failed(run)).toEqual(['test_status.result_fields']);
    expect(detailOf(run, 'test_status.result_fields')).toBe('partner_score is a string ("87"), not a number');
  });
});
