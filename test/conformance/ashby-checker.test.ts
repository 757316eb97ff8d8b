import { afterEach, describe, expect, it } from 'vitest';
import { ASHBY_CHECKS } from '../../src/conformance/platforms/ashby/checks.js';
import { runAshbyConformance, type AshbyOptions } from '../../src/conformance/platforms/ashby/run.js';
import type { ConformanceRun } from '../../src/conformance/run.js';
import { FAKE_RESULTS_SECRET, startAshbyPartner, type AshbyFaults } from '../support/ashby-partner.js';

/**
 * The Ashby checker against partners written in the test from docs/ashby.md: a good one passes
 * every check; each broken one fails exactly the checks that describe its fault, and the checks
 * that build on a failed one are not run.
 */

type Fake = Awaited<ReturnType<typeof startAshbyPartner>>;
let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const ALL = ASHBY_CHECKS.map((c) => c.id);
const failed = (run: ConformanceRun) => run.results.filter((r) => !r.ok).map((r) => r.id);
const detailOf = (run: ConformanceRun, id: string) => run.results.find((r) => r.id === id)?.detail;

/** A run against a fake with `faults`, set up with the run's Ashby API and keys, with both keys and the results secret unless `options` says otherwise. */
async function check(faults: AshbyFaults, options: Partial<AshbyOptions> = {}) {
  fake = await startAshbyPartner(faults);
  const partner = fake;
  return runAshbyConformance({
    baseUrl: partner.baseUrl,
    key: partner.keys.a,
    otherKey: partner.keys.b,
    results: { secret: FAKE_RESULTS_SECRET },
    ready: async (setup) => partner.setUp(setup.apiUrl, { a: setup.apiKeys.key, b: setup.apiKeys.otherKey }),
    ...options,
  });
}

describe('a partner that follows docs/ashby.md', () => {
  it('passes every check, in order, with the results secret and a second key', async () => {
    const run = await check({});
    expect(run.results.filter((r) => !r.ok).map((r) => `${r.id}: ${r.detail}`)).toEqual([]);
    expect(run.results.map((r) => r.id)).toEqual(ALL);
    expect(run.notRun).toEqual([]);
    expect(detailOf(run, 'auth.bad_base64')).toBe('401 from each of the three');
    expect(detailOf(run, 'start.duplicate')).toBe('409');
    expect(detailOf(run, 'start.concurrent')).toMatch(/^one assessment, "[0-9a-f-]{36}": 1 × 200, 4 × 409$/);
    expect(detailOf(run, 'isolation.cancel')).toMatch(/^200 as for an unknown id, naming nothing of this customer; the same start then: 409; its own: canceled$/);
    expect(detailOf(run, 'update.auth')).toBe("2 updates, each with Basic, the customer's Ashby API key and an empty password");
    expect(detailOf(run, 'update.score')).toBe('numeric_score 87 for the score "87%"');
    expect(detailOf(run, 'update.bodies')).toBe('2 updates, each valid');
    // Ada's was completed; Grace's and the other customer's canceled; nothing else was started.
    const statuses = [...fake!.assessments.values()].map((a) => `${a.key} ${a.status}`).sort();
    expect(statuses).toEqual(['key-a canceled', 'key-a complete', 'key-b canceled']);
  });

  it('without the results secret: the progress check is not run, and the person completing the assessment by hand is asked to', async () => {
    const notices: string[] = [];
    const run = await check(
      {},
      {
        results: undefined,
        onNotice: (text) => {
          notices.push(text);
          fake!.complete(/assessment_id ([0-9a-f-]{36})/.exec(text)![1]!);
        },
      },
    );
    expect(failed(run)).toEqual([]);
    expect(run.notRun).toEqual([{ id: 'update.started', why: 'give --results-secret: the checker reports the candidate starting through the results endpoint' }]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^Complete the assessment of ada@example\.com \(assessment_id [0-9a-f-]{36}\) by hand now/);
    expect(notices[0]).toMatch(/waits up to 60 s for its assessment\.update at http:\/\/127\.0\.0\.1:\d+\/assessment\.update/);
  });

  it('without --other-key, the isolation checks are not run, and say why; the cancel still is', async () => {
    const run = await check({}, { otherKey: undefined });
    expect(failed(run)).toEqual([]);
    expect(run.notRun).toEqual([
      { id: 'isolation.list', why: 'give --other-key' },
      { id: 'isolation.start', why: 'give --other-key' },
      { id: 'isolation.cancel', why: 'give --other-key' },
    ]);
    expect(detailOf(run, 'cancel.answer')).toMatch(/^200 success, assessment_id "[0-9a-f-]{36}"$/);
  });
});

describe('a partner with a fault fails the checks of that fault', () => {
  it('one that never sends assessment.update: update.started and update.received, and what needs the update is not run', async () => {
    // It never sends one: waiting longer would change nothing, so a second is enough to say so.
    const run = await check({ neverUpdates: true }, { updateTimeoutMs: 1_000 });
    expect(failed(run)).toEqual(['update.started', 'update.received']);
    expect(detailOf(run, 'update.received')).toMatch(
      /^no assessment\.update of "[0-9a-f-]{36}" with assessment_result within 1 s \(nothing came to the checker's Ashby API: is the partner's ASHBY_API_URL http:\/\/127\.0\.0\.1:\d+\?\)$/,
    );
    expect(run.notRun).toEqual([
      { id: 'update.auth', why: 'needs the update of update.received' },
      { id: 'update.score', why: 'needs the update of update.received' },
      { id: 'update.profile_url', why: 'needs the update of update.received' },
      { id: 'update.timestamp', why: 'needs the update of update.received' },
      { id: 'update.bodies', why: "no request came to the checker's Ashby API" },
    ]);
  });

  it("one that lets customer B cancel A's assessment: isolation.cancel alone, and A's first assessment is still completed", async () => {
    const run = await check({ cancelsAnyCustomers: true });
    expect(failed(run)).toEqual(['isolation.cancel']);
    expect(detailOf(run, 'isolation.cancel')).toMatch(/^the other key canceled this customer's assessment "[0-9a-f-]{36}": 200 \{"success":true/);
    expect(detailOf(run, 'update.received')).toMatch(/^POST \/assessment\.update, \d+ ms after the result$/);
  });

  it("one that takes another customer's assessment type: isolation.start", async () => {
    const run = await check({ anyCustomersType: true });
    expect(failed(run)).toEqual(['isolation.start']);
    expect(detailOf(run, 'isolation.start')).toMatch(/^the other key started an assessment, "[0-9a-f-]{36}", of type "[0-9a-f-]{36}" \(JavaScript\), which only this customer lists$/);
  });

  it('one that starts a repeated start again: start.duplicate and start.concurrent', async () => {
    const run = await check({ repeatStarts: true });
    expect(failed(run)).toEqual(['start.duplicate', 'start.concurrent', 'isolation.cancel']);
    expect(detailOf(run, 'start.duplicate')).toMatch(/^"[0-9a-f-]{36}", a second assessment of the application, beside "[0-9a-f-]{36}"$/);
    expect(detailOf(run, 'start.concurrent')).toMatch(/^5 assessments for one application and type: /);
    // The same start after the other key's cancel is a new assessment too: the check cannot tell the assessment went on.
    expect(detailOf(run, 'isolation.cancel')).toMatch(/^after the other key's cancel, the same start again: "[0-9a-f-]{36}", a second assessment/);
  });

  it('one that decodes base64 leniently: auth.bad_base64 alone', async () => {
    const run = await check({ lenientBase64: true });
    expect(failed(run)).toEqual(['auth.bad_base64']);
    expect(detailOf(run, 'auth.bad_base64')).toMatch(/^assessment\.list: expected 401, got 200 .*; assessment\.start: expected 401, got 200 .*; assessment\.cancel: expected 401, got 200 /);
  });

  it('one whose score is text: update.score alone', async () => {
    const run = await check({ scoreAsText: true });
    expect(failed(run)).toEqual(['update.score']);
    expect(detailOf(run, 'update.score')).toBe(
      'assessment_result is of type "string", not "numeric_score", for the score "87%": {"identifier":"score","label":"Score","type":"string","value":"87%"}',
    );
  });

  it('one whose timestamps are seconds: update.timestamp alone', async () => {
    const run = await check({ timestampInSeconds: true });
    expect(failed(run)).toEqual(['update.timestamp']);
    expect(detailOf(run, 'update.timestamp')).toMatch(/^timestamp \d{10} reads as 1970-01-\d\dT.*: seconds, not milliseconds, since the epoch\?$/);
  });

  it("one whose updates carry the key it gave the customer, not the customer's Ashby API key: update.auth alone, never showing a key", async () => {
    const run = await check({ partnerKeyOnUpdate: true });
    expect(failed(run)).toEqual(['update.auth']);
    expect(detailOf(run, 'update.auth')).toMatch(
      /^the update of "[0-9a-f-]{36}": Basic with the key the partner gave the customer \(the one Ashby calls with\), not the customer's Ashby API key; the update of "[0-9a-f-]{36}": /,
    );
    expect(detailOf(run, 'update.auth')).not.toContain('key-a');
  });
});
