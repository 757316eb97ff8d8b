import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReportStatus } from '../../src/contract/decisions.js';
import { attemptRanges, CANDIDATES, deliveryWorld, type DeliveryWorld } from './support.js';

let world: DeliveryWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A small seeded generator, so a failing run can be replayed. */
function seeded(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('deliveries through a faulty platform', () => {
  it('with 500s, 429s, timeouts and dropped connections mixed in, every report ends in its right state and no report sees its updates out of order', async () => {
    const random = seeded(20261101);
    world = await deliveryWorld({ partner: { random } });
    const w = world;

    // Nine reports: a third completed, a third failed, a third canceled by the vendor; each one's
    // changes are interleaved with delivery rounds while the platform misbehaves.
    const plans: { reportId: string; end: ReportStatus }[] = [];
    for (let i = 0; i < 9; i++) {
      const reportId = await w.send(CANDIDATES[i % CANDIDATES.length]);
      plans.push({ reportId, end: (['completed', 'failed', 'canceled'] as const)[i % 3]! });
    }
    await w.partner.startAndMail();
    for (const spec of [
      { status: 500, times: 3 },
      { status: 429, times: 2 },
      { drop: true as const, times: 2 },
      { delayMs: 1000, times: 2 },
      { status: 503, times: 2 },
      { status: 502, times: 1 },
    ]) {
      await w.fault(spec);
    }

    for (const [i, plan] of plans.entries()) {
      // Some updates are queued while earlier ones are still failing, some after they went out.
      if (random() < 0.5) await w.partner.worker.runOnce();
      if (plan.end === 'canceled') await w.partner.lifecycle.cancel(plan.reportId, 'vendor');
      else await w.takeTest(plan.reportId, { right: plan.end === 'completed' });
      if (i % 3 === 2) w.partner.clock.advance(15_000);
    }
    await w.partner.deliverUntilIdle();

    // Every fault was used: the run really went through them.
    expect((await request(w.mock.url).get('/_mock/faults').expect(200)).body.faults).toEqual([]);
    const failures = (await Promise.all(plans.map((p) => w.partner.updates.attemptsOf(p.reportId)))).flat().filter((a) => a.outcome === 'retry');
    expect(new Set(failures.map((a) => a.responseStatus ?? (/TIMEOUT|timed out/i.test(a.error!) ? 'timeout' : 'dropped')))).toEqual(
      new Set([500, 429, 503, 502, 'timeout', 'dropped']),
    );
    // Every update delivered; none dead, none left behind.
    expect(await w.partner.rows('SELECT DISTINCT status FROM report_updates')).toEqual([{ status: 'delivered' }]);

    for (const plan of plans) {
      const report = await w.report(plan.reportId);
      expect(report.status, plan.reportId).toBe(plan.end);
      expect(report.urls.show).toMatch(/\/results\?token=/);
      expect(report.urls.cancel).toMatch(new RegExp(`/callbacks/reports/${plan.reportId}/cancel$`));
      if (plan.end !== 'canceled') {
        expect(report.score).toBe(plan.end === 'completed' ? '100%' : '0%');
        expect(report.completed_at).not.toBeNull();
      }

      // The partner sent the report's updates in queue order: each request starts where the
      // previous one stopped, or repeats it after a failure; never an older range after a newer.
      const ids = (await w.partner.updates.ofReport(plan.reportId)).map((u) => u.id);
      const ranges = await attemptRanges(w, plan.reportId);
      expect(ranges[0]![0]).toBe(ids[0]);
      expect(ranges.at(-1)).toEqual([expect.any(Number), ids.at(-1), 'delivered']);
      for (let i = 1; i < ranges.length; i++) {
        const [prevFirst, prevLast, prevOutcome] = ranges[i - 1]!;
        const [first] = ranges[i]!;
        expect(first).toBe(prevOutcome === 'delivered' ? ids[ids.indexOf(prevLast) + 1] : prevFirst);
      }

      // And the platform saw no status go backwards among the requests it answered.
      const answered = (await w.calls(plan.reportId)).filter((c) => c.response_status === 200 && c.request_body);
      const statuses = answered.map((c) => (JSON.parse(c.request_body!) as { status?: string }).status ?? 'sent');
      const firstTerminal = statuses.findIndex((s) => s !== 'sent');
      if (firstTerminal >= 0) expect(statuses.slice(firstTerminal).every((s) => s === plan.end)).toBe(true);
    }
  });
});
