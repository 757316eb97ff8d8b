import type { Dispatcher } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Sql } from '../../src/lib/sql.js';
import { updateOutbox } from '../../src/partner/updates/outbox.js';
import { deliveryWorker, type DeliveryWorkerDeps } from '../../src/partner/updates/worker.js';
import { capturedLogger } from '../support/log.js';
import { flowHarness, sendBody, type FlowHarness } from '../invitations/support.js';

/**
 * What became of deliveries that finish together is recorded together: on SQLite in one commit
 * (each record alone was a transaction of its own, and its pages a commit's), with one log line
 * naming the reports delivered; on PostgreSQL each as soon as it is done, in one statement, as
 * before. Either way each delivery's record is whole: its attempt, its updates, and what the
 * platform's answer means for the invitation (the e-mail queued on the first acceptance).
 */

let h: FlowHarness | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
  h = undefined;
});

/**
 * A platform whose answers to the report updates all come at once, when `expected` requests are
 * in: the deliveries finish together. Answers 200 with `{}`. Remembers which report each request
 * was for.
 */
function answersTogether(expected: number) {
  const reports: string[] = [];
  let release = () => {};
  const together = new Promise<void>((resolve) => (release = resolve));
  const client = {
    async request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
      reports.push(/\/reports\/([^/?]+)/.exec(options.path)![1]!);
      if (reports.length >= expected) release();
      await together;
      const body = (async function* () {
        yield Buffer.from('{}');
      })();
      return { statusCode: 200, headers: {}, body } as unknown as Dispatcher.ResponseData;
    },
  };
  return { client, reports };
}

/**
 * Three invitations sent and started, their first updates queued, and a delivery worker over the
 * partner's database that counts the transactions it opens, logging to `logger`.
 */
async function threeQueued(deps: Partial<DeliveryWorkerDeps> & Pick<DeliveryWorkerDeps, 'dispatcher'>) {
  h = await flowHarness({ platform: { url: 'http://platform.test', codename: 'kit-delivery', secret: 'platform-secret' } });
  const harness = h;
  const counted = { transactions: 0 };
  const sql: Sql = {
    ...harness.sql,
    transaction: (fn) => ((counted.transactions += 1), harness.sql.transaction(fn)),
  };
  const log = capturedLogger();
  const worker = deliveryWorker({
    outbox: updateOutbox(sql, harness.clock),
    connections: harness.connections,
    clock: harness.clock,
    logger: log.logger,
    platforms: harness.platforms,
    leaseMs: harness.config.jobLeaseMs,
    recordAnswer: harness.lifecycle.platformAnswered,
    onRecorded: harness.lifecycle.answerRecorded,
    ...deps,
  });
  // A first run prunes the delivery log (then once an hour): its transaction is not a record's.
  await worker.runOnce();
  counted.transactions = 0;
  const c = await harness.customer('Acme', ['SQL basics']);
  const reportIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const body = sendBody(c.tests[0]!.id);
    expect((await harness.send(c.token, body)).status).toBe(201);
    reportIds.push(body.report_id);
  }
  await harness.starter.runOnce();
  const delivered = () => log.entries().filter((e) => typeof e.msg === 'string' && /report updates? delivered$/.test(e.msg));
  return { h: harness, worker, counted, reportIds, log, delivered };
}

/** Each report's updates and its delivery log, as the dashboard reads them. */
async function recordOf(t: FlowHarness, reportId: string) {
  return {
    updates: (await t.updates.ofReport(reportId)).map((u) => [u.status, u.attempts]),
    attempts: (await t.updates.attemptsOf(reportId)).map((a) => [a.responseStatus, a.outcome]),
    accepted: (await t.row('SELECT platform_accepted_at FROM invitations WHERE report_id = ?', reportId))!.platform_accepted_at !== null,
    mails: (await t.rows('SELECT status FROM mail_outbox WHERE report_id = ?', reportId)).map((m) => m.status),
  };
}

const DELIVERED = { updates: [['delivered', 1]], attempts: [[200, 'delivered']], accepted: true, mails: ['pending'] };

/**
 * On SQLite, the clock a batch's 100 ms are measured on stands still: a loaded machine taking
 * longer for three requests must not make these tests of the time limit. (On PostgreSQL nothing is
 * held, and its calls' deadlines are read on that clock.)
 */
function clockStandsStill(t: FlowHarness) {
  if (t.sql.dialect === 'sqlite') vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
}

describe('deliveries that finish together', () => {
  it('are recorded in one commit on SQLite (on PostgreSQL one statement each), each whole, with one log line naming the reports', async () => {
    const platform = answersTogether(3);
    const t = await threeQueued({ dispatcher: platform.client });
    clockStandsStill(t.h);

    expect(await t.worker.runOnce()).toMatchObject({ delivered: 3, retried: 0, dead: 0 });
    vi.useRealTimers();

    expect(platform.reports.sort()).toEqual([...t.reportIds].sort());
    expect(t.counted.transactions).toBe(t.h.sql.dialect === 'sqlite' ? 1 : 0);
    for (const id of t.reportIds) expect(await recordOf(t.h, id)).toEqual(DELIVERED);
    const lines = t.delivered();
    expect(lines.flatMap((e) => e.reportIds as string[]).sort()).toEqual([...t.reportIds].sort());
    expect(lines.map((e) => e.msg)).toEqual(t.h.sql.dialect === 'sqlite' ? ['3 report updates delivered'] : Array(3).fill('report update delivered'));
    // The acceptances queued the e-mails, and the mail sender sends them.
    expect(await t.h.sender.runOnce()).toMatchObject({ sent: 3 });
  });

  it('when one record is refused, then the others are still recorded; its update is sent again on the next run', async () => {
    const platform = answersTogether(3);
    let refuse = true;
    const t: Awaited<ReturnType<typeof threeQueued>> = await threeQueued({
      dispatcher: platform.client,
      recordAnswer: (tx, reportId, answer, prelude) =>
        refuse && reportId === t.reportIds[1] ? Promise.reject(new Error('the invitation refused the answer')) : t.h.lifecycle.platformAnswered(tx, reportId, answer, prelude),
    });
    const [first, refused, third] = t.reportIds as [string, string, string];
    clockStandsStill(t.h);

    await expect(t.worker.runOnce()).rejects.toThrow('the invitation refused the answer');
    vi.useRealTimers();

    // On PostgreSQL the run stops at the failure, while the other records are being written.
    await expect.poll(async () => [await recordOf(t.h, first), await recordOf(t.h, third)]).toEqual([DELIVERED, DELIVERED]);
    // Nothing of the refused one was kept: no attempt logged, its update still pending, no e-mail.
    expect(await recordOf(t.h, refused)).toEqual({ updates: [['pending', 0]], attempts: [], accepted: false, mails: [] });
    const lines = t.delivered();
    expect(lines.flatMap((e) => e.reportIds as string[]).sort()).toEqual([first, third].sort());
    if (t.h.sql.dialect === 'sqlite') expect(lines.map((e) => e.msg)).toEqual(['2 report updates delivered']);

    // At least once: the next run sends it again, and records it.
    refuse = false;
    const again = answersTogether(1);
    const retried = deliveryWorker({
      outbox: t.h.updates,
      connections: t.h.connections,
      clock: t.h.clock,
      logger: t.log.logger,
      platforms: t.h.platforms,
      leaseMs: t.h.config.jobLeaseMs,
      dispatcher: again.client,
      recordAnswer: t.h.lifecycle.platformAnswered,
    });
    if (t.h.sql.dialect === 'postgres') t.h.clock.advance(t.h.config.jobLeaseMs); // its claim's lease runs out first
    expect(await retried.runOnce()).toMatchObject({ delivered: 1 });
    expect(again.reports).toEqual([refused]);
    expect(await recordOf(t.h, refused)).toEqual(DELIVERED);
  });
});
