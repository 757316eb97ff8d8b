import { afterAll, beforeAll, expect, it } from 'vitest';
import { callbackTargets } from '../../src/conformance/platforms/hiring-platform/wire.js';
import { runConformance } from '../../src/conformance/platforms/hiring-platform/run.js';
import type { ConformanceRun } from '../../src/conformance/run.js';
import type { PlatformSettings } from '../../src/conformance/platforms/hiring-platform/types.js';
import { startBrokenPartner } from '../support/broken-partner.js';

/**
 * A partner with three faults (test/support/broken-partner.ts) fails exactly the checks that
 * describe them, and passes the rest: the checker finds what is wrong and blames nothing else.
 */

let partner: Awaited<ReturnType<typeof startBrokenPartner>>;
let run: ConformanceRun;
beforeAll(async () => {
  partner = await startBrokenPartner();
  run = await runConformance({ targets: callbackTargets(partner.url), tokens: partner.tokens });
});
afterAll(() => partner?.close());

const result = (id: string) => run.results.find((r) => r.id === id)!;

it('fails exactly the checks of its three faults', () => {
  expect(run.results.filter((r) => !r.ok).map((r) => r.id)).toEqual([
    // the tests list wrapped in an object, for accounts with tests and without
    'tests.list',
    'tests.empty',
    // send_candidate not idempotent: a replay is a new invitation, so is a conflicting one, and so is each of 20 at once
    'send_candidate.replay',
    'send_candidate.conflict',
    'send_candidate.concurrent',
    // 500 on malformed JSON
    'robust.validate_token.malformed_json',
    'robust.send_candidate.malformed_json',
  ]);
  expect(run.results.filter((r) => r.ok)).toHaveLength(run.results.length - 7);
});

it('says what is wrong in each', () => {
  expect(result('tests.list').detail).toMatch(/^token A: expected a bare JSON array, got a JSON object: 200 \{"tests":\[/);
  expect(result('tests.empty').detail).toMatch(/expected a bare JSON array, got a JSON object/);
  expect(result('send_candidate.replay').detail).toMatch(/^first 201 \{"id":"[0-9a-f-]{36}","status":"sent"\}, then 201 \{"id":"[0-9a-f-]{36}"/);
  expect(result('send_candidate.conflict').detail).toMatch(/^expected 409, got 201/);
  expect(result('send_candidate.concurrent').detail).toMatch(/^20 different answers: 1 × 201/);
  expect(result('robust.send_candidate.malformed_json').detail).toBe('expected 4xx, got 500 {"error":"Internal Server Error"}');
});

it('still checks the sends with the tests it found inside the object', () => {
  for (const id of ['send_candidate.create', 'send_candidate.unknown_test', 'send_candidate.company_mismatch']) {
    expect(result(id), id).toMatchObject({ ok: true });
  }
});

it('with --mock, a partner right on the callbacks but wrong on report updates fails exactly the report checks', async () => {
  let settings: PlatformSettings | undefined;
  const faulty = await startBrokenPartner({ callbacksRight: true, platform: () => settings });
  try {
    const platformRun = await runConformance({
      targets: callbackTargets(faulty.url),
      tokens: { a: faulty.tokens.a, b: faulty.tokens.b },
      kind: 'background_check',
      mock: {
        codename: 'faulty-updates',
        updateTimeoutMs: 2_000,
        ready: async (s) => {
          settings = s;
        },
      },
    });
    const failed = Object.fromEntries(platformRun.results.filter((r) => !r.ok).map((r) => [r.id, r.detail]));
    expect(Object.keys(failed)).toEqual(['platform.update_secret', 'platform.update_fields']);
    // It gives no urls.cancel: optional (§4.4), so cancelling through it is not checked, not failed.
    expect(platformRun.results.find((r) => r.id === 'platform.cancel_url')).toMatchObject({ ok: true, detail: expect.stringMatching(/^none in \d+ updates/) });
    expect(platformRun.notRun.filter((n) => n.id.startsWith('platform.'))).toEqual([
      { id: 'platform.cancel', why: 'the partner gives no urls.cancel, which is optional (§4.4)' },
      { id: 'platform.canceled_update', why: 'the partner gives no urls.cancel, which is optional (§4.4)' },
    ]);
    expect(platformRun.results.find((r) => r.id === 'platform.update_order')).toMatchObject({ ok: true, detail: 'sent (not canceled: no urls.cancel)' });
    // Each invitation sent one update of each kind: the flow's and the concurrent send's.
    expect(failed['platform.update_secret']).toBe('2 of 4: no RT-PARTNER-SECRET header (an Authorization header instead)');
    expect(failed['platform.update_fields']).toBe(
      '2 of 2 (2 refused unread): unknown field progress; subtitle from a background_check partner (assessment partners only)',
    );
  } finally {
    await faulty.close();
  }
});

it('a partner that never looks the test up fails the unknown-test check: an unlisted numeric id is accepted', async () => {
  const lax = await startBrokenPartner({ callbacksRight: true, noTestLookup: true });
  try {
    const laxRun = await runConformance({ targets: callbackTargets(lax.url), tokens: lax.tokens });
    expect(laxRun.results.filter((r) => !r.ok).map((r) => r.id)).toEqual(['send_candidate.unknown_test']);
    expect(laxRun.results.find((r) => r.id === 'send_candidate.unknown_test')!.detail).toMatch(/^unlisted id \d+: expected 422, got 201/);
  } finally {
    await lax.close();
  }
});

it('when the tests list is unusable, the sends that need a listed test are not run, not failed as if they were broken', async () => {
  const down = await startBrokenPartner({ callbacksRight: true, testsUnusable: true });
  try {
    const downRun = await runConformance({ targets: callbackTargets(down.url), tokens: down.tokens });
    expect(downRun.results.filter((r) => !r.ok).map((r) => r.id)).toEqual(['tests.list', 'tests.empty']);
    expect(downRun.notRun).toEqual([
      { id: 'send_candidate.create', why: 'no test listed for token A: see tests.list' },
      { id: 'send_candidate.replay', why: 'needs a successful send_candidate.create' },
      { id: 'send_candidate.conflict', why: 'needs a successful send_candidate.create' },
      { id: 'send_candidate.company_mismatch', why: 'no test listed for token A: see tests.list' },
      { id: 'send_candidate.invalid_email', why: 'no test listed for token A: see tests.list' },
      { id: 'send_candidate.concurrent', why: 'no test listed for token B: see tests.list' },
      ...downRun.notRun.filter((n) => n.id.startsWith('results.') || n.id.startsWith('platform.')),
    ]);
  } finally {
    await down.close();
  }
});
