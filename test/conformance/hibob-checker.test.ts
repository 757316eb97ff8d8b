import { describe, it, type onTestFinished } from 'vitest';
import { HIBOB_CHECKS } from '../../src/conformance/platforms/hibob/checks.js';
import { runHibobConformance, type HibobOptions } from '../../src/conformance/platforms/hibob/run.js';
import type { ConformanceRun } from '../../src/conformance/run.js';
import { FAKE_RESULTS_SECRET, startHibobPartner, type HibobFaults } from '../support/hibob-partner.js';

/**
 * The HiBob checker against partners written in the test from docs/hibob.md: a good one passes
 * every check; each broken one fails exactly the checks that describe its fault, and passes the rest.
 *
 * The runs go at once, each against a fake of its own on its own ports: most of a run is waiting —
 * for token.after_expiry's tokens to expire, and for the calls a faulty partner never makes — which
 * the others fill.
 */

type Fake = Awaited<ReturnType<typeof startHibobPartner>>;

const ALL = HIBOB_CHECKS.map((c) => c.id);
const failed = (run: ConformanceRun) => run.results.filter((r) => !r.ok).map((r) => r.id);
const detailOf = (run: ConformanceRun, id: string) => run.results.find((r) => r.id === id)?.detail;

/**
 * A run against a fake with `faults`, set up with the run's Bob and secrets, with the results secret
 * unless `options` says otherwise; the fake is closed when the test ends.
 */
async function check(finished: typeof onTestFinished, faults: HibobFaults, options: Partial<HibobOptions> = {}, packages?: { id: string; name: string }[]) {
  const fake: Fake = await startHibobPartner(faults, packages ? { packages } : {});
  finished(() => fake.close());
  const run = await runHibobConformance({
    baseUrl: fake.baseUrl,
    results: { secret: FAKE_RESULTS_SECRET },
    ready: async (setup) => fake.setUp(setup),
    ...options,
  });
  return { run, fake };
}

describe.concurrent('a partner that follows docs/hibob.md', () => {
  it('passes every check, in order', async ({ expect, onTestFinished }) => {
    const { run, fake } = await check(onTestFinished, {});
    expect(run.results.filter((r) => !r.ok).map((r) => `${r.id}: ${r.detail}`)).toEqual([]);
    expect(run.results.map((r) => r.id)).toEqual(ALL);
    expect(run.notRun).toEqual([]);
    expect(detailOf(run, 'install.answered')).toBe('company A: 200, the code exchanged; company B: 200, the code exchanged');
    expect(detailOf(run, 'install.exchange')).toBe('company A: client in the form, redirect_uri the callback; company B: client in the form, redirect_uri the callback');
    expect(detailOf(run, 'catalog.registered')).toBe('company A: 201, 2 packages; company B: 201, 2 packages');
    expect(detailOf(run, 'update.score')).toBe('87 for the score "87%"');
    expect(detailOf(run, 'update.result_url')).toBe('https://partner.example/…');
    expect(detailOf(run, 'order.duplicate')).toBe('200, 200, 200; 1 read, 1 PATCH');
    expect(detailOf(run, 'token.after_401')).toMatch(/^401 to the read, a refresh \d+ ms later, the read again with its new token: 200$/);
    expect(detailOf(run, 'token.after_expiry')).toBe('refreshed before it was used: read with the new token, 200');
    expect(detailOf(run, 'isolation.orders')).toBe("company B's cancel 200, trigger 200, its order read with company B's token (404); company A's order completed with A's token");
    expect(detailOf(run, 'webhook.refused_inert')).toBe('nothing about the 4 orders they named');
    // Ada's and Barbara's orders completed, Grace's canceled, the others under way; none of company B's.
    const { orders } = fake;
    // What it was handling when the checker saw its last read is done once it has closed.
    await fake.close();
    expect([...orders.values()].map((o) => o.status).sort()).toEqual(['canceled', 'complete', 'complete', 'sent', 'sent', 'sent']);
  });

  it('without the results secret, the checks that need a result are not run, and say why', async ({ expect, onTestFinished }) => {
    const { run } = await check(onTestFinished, {}, { results: undefined });
    expect(failed(run)).toEqual([]);
    const why = 'give --results-secret: the checker completes the orders through the results endpoint';
    expect(run.notRun).toEqual([
      { id: 'update.completed', why },
      { id: 'update.score', why: 'needs the PATCH of update.completed' },
      { id: 'update.result_url', why: 'needs the PATCH of update.completed' },
      { id: 'cancel.stops_updates', why: 'needs the result update.completed posts' },
      { id: 'isolation.orders', why },
      { id: 'update.bodies', why: 'no PATCH came' },
    ]);
  });

  it("when company A's catalog is empty, the orders are not run, naming what to do", async ({ expect, onTestFinished }) => {
    const { run } = await check(onTestFinished, {}, {}, []);
    expect(failed(run)).toEqual([]);
    expect(detailOf(run, 'catalog.registered')).toBe('company A: 201, 0 packages; company B: 201, 0 packages');
    expect(run.results.map((r) => r.id)).toEqual([
      'install.answered',
      'install.exchange',
      'install.used_code',
      'catalog.registered',
      'webhook.unsigned',
      'webhook.wrong_signature',
      'webhook.altered',
      'webhook.refused_inert',
    ]);
    expect(run.notRun.find((n) => n.id === 'isolation.tokens')?.why).toBe('no call about an order came');
    expect(run.notRun.find((n) => n.id === 'order.details')?.why).toBe(
      "company A's catalog is empty, and Bob's recruiters order from it: give --company a Bob company linked to an account with tests (a kit partner: docs/hibob.md §2)",
    );
  });
});

describe.concurrent('a partner with a fault fails the checks of that fault', () => {
  it('one that takes a delivery without Bob-Signature: webhook.unsigned alone', async ({ expect, onTestFinished }) => {
    const { run } = await check(onTestFinished, { acceptsUnsigned: true });
    expect(failed(run)).toEqual(['webhook.unsigned']);
    expect(detailOf(run, 'webhook.unsigned')).toBe('200 {"ok":true}: taken, where Bob never sent it');
  });

  it('one that acts on a duplicate delivery again: order.duplicate alone', async ({ expect, onTestFinished }) => {
    const { run } = await check(onTestFinished, { actsTwice: true });
    expect(failed(run)).toEqual(['order.duplicate']);
    expect(detailOf(run, 'order.duplicate')).toBe('4 reads of the order: it was acted on again');
  });

  it('one that never refreshes its tokens: token.after_401 and token.after_expiry', async ({ expect, onTestFinished }) => {
    // It never refreshes: waiting longer for a fresh token would change nothing.
    const { run } = await check(onTestFinished, { neverRefreshes: true }, { callTimeoutMs: 3_000 });
    expect(failed(run)).toEqual(['token.after_401', 'token.after_expiry']);
    expect(detailOf(run, 'token.after_401')).toMatch(/^401 to the read, then no refresh_token grant came, and no read with a new token within 3 s \(came: GET with company A's refused token: 401/);
    expect(detailOf(run, 'token.after_expiry')).toMatch(/^read with the expired token \(401\), then no refresh_token grant came within 3 s \(came: GET with company A's expired token: 401/);
  });

  it("one that keeps telling Bob of an order Bob canceled: cancel.stops_updates alone", async ({ expect, onTestFinished }) => {
    const { run } = await check(onTestFinished, { ignoresCancel: true });
    expect(failed(run)).toEqual(['cancel.stops_updates']);
    expect(detailOf(run, 'cancel.stops_updates')).toMatch(
      /^1 PATCH after the cancel \(PATCH with company A's token: 409 \(the assessment was canceled in Bob: it takes no more updates\)\); the results endpoint answered 200 /,
    );
  });

  it("one whose cancel finds another company's order: isolation.orders alone", async ({ expect, onTestFinished }) => {
    const { run } = await check(onTestFinished, { cancelsAnyCompany: true });
    expect(failed(run)).toEqual(['isolation.orders']);
    expect(detailOf(run, 'isolation.orders')).toBe(
      'company A\'s order was not completed after company B\'s cancel: the results endpoint answered 409 {"error":"Report was canceled"}, company B\'s cancel canceled it',
    );
  });
});
