import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.js';
import { isoAt } from '../../src/lib/clock.js';
import { openSqlite } from '../../src/lib/db.js';
import { sqliteSql, type Sql } from '../../src/lib/sql.js';
import { invitationStore } from '../../src/partner/invitations/store.js';
import { openDb } from '../../src/partner/db/open.js';
import { updateOutbox } from '../../src/partner/updates/outbox.js';
import { webhookInbox } from '../../src/partner/platforms/hiring-platform/webhooks/inbox.js';

/**
 * The queues after the platform was away a while: tens of thousands of rows waiting. Each query the
 * workers run must cost what its batch costs, not what the backlog holds — better-sqlite3 runs it
 * on the event loop, and a query that reads the backlog once per row it returns holds every
 * callback for minutes (a backlog of 20,000 report updates took a minute per query before).
 * Each test also reads the plan SQLite chose for the queries (EXPLAIN QUERY PLAN), so that a plan
 * that reads the backlog fails here however fast this machine is.
 */
const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const clock: Clock = { now: () => NOW };

/**
 * A partner database (`sql` over SQLite's `db`) that remembers the SQL prepared on it, and the plan
 * of the one statement whose text matches `pattern`, step by step: of the rows a DELETE reads, and
 * of the SELECT that picks the rows a claim (UPDATE … WHERE id IN (SELECT …) RETURNING) takes.
 * In memory: empty, or a copy of the database `bytes` serialized.
 */
function recordingDb(bytes?: Buffer) {
  const db = bytes ? openSqlite(bytes, MIGRATIONS_DIR) : openDb(':memory:');
  const sources: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => (sources.push(source), prepare(source))) as typeof db.prepare;
  const explainable = (source: string) =>
    /WHERE id IN \((SELECT [\s\S]*)\)\s*RETURNING/.exec(source)?.[1] ?? source.replace(/^DELETE FROM/, 'SELECT * FROM');
  const planOf = (pattern: RegExp, ...params: unknown[]): string => {
    const matching = [...new Set(sources.filter((source) => pattern.test(source)))];
    expect(matching).toHaveLength(1);
    return prepare(`EXPLAIN QUERY PLAN ${explainable(matching[0]!)}`)
      .all(...params)
      .map((step) => (step as { detail: string }).detail)
      .join('\n');
  };
  return { db, sql: sqliteSql(db), planOf };
}

const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../src/partner/db/migrations');

/**
 * `n` invitations, each with one report update queued, all due now, after the `from` a copy of
 * BASE holds (and their account); returns the new report ids in order.
 */
async function backlog(sql: Sql, n: number, from = 0): Promise<string[]> {
  const invitations = invitationStore(sql, clock);
  const reports = updateOutbox(sql, clock);
  const ids = Array.from({ length: n }, () => randomUUID());
  if (from === 0) await sql.run(`INSERT INTO accounts (id, name, company_id, created_at) VALUES (1, 'Acme', 1, $1)`, [isoAt(NOW)]);
  await sql.transaction(async (tx) => {
    for (const [j, reportId] of ids.entries()) {
      const i = from + j;
      await invitations.create({
        reportId,
        accountId: 1,
        companyId: 1,
        candidateId: i + 1,
        testId: '1',
        testName: 'SQL basics',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: `ada${i}@example.com`,
        phone: null,
        extraInputs: {},
        platform: 'hiring-platform',
        platformData: {},
      }, tx);
      await reports.enqueue(tx, reportId, { urls: { show: `http://127.0.0.1:3000/results?r=${i}` } });
    }
  });
  return ids;
}

/** How many invitations every test's backlog starts with: seeded once, then copied (seeding them took 2 s a test). */
const BASE = 20_000;
let base: { bytes: Buffer; ids: string[] } | undefined;

/**
 * A recording database with a backlog of `n` (at least BASE): a copy of the one BASE seeded, and
 * `n - BASE` more after it, as `backlog(sql, n)` would leave it; with the report ids in order.
 */
async function backlogDb(n: number) {
  if (!base) {
    const { db, sql } = recordingDb();
    const ids = await backlog(sql, BASE);
    base = { bytes: db.serialize(), ids };
    db.close();
  }
  const recording = recordingDb(base.bytes);
  const ids = [...base.ids, ...(await backlog(recording.sql, n - BASE, BASE))];
  return { ...recording, ids };
}

describe('the report updates queue with a backlog of 20,000', () => {
  it('gives the worker the oldest update of each report, due first, and never a newer one ahead of its report\'s older one', async () => {
    const { db, sql, planOf, ids } = await backlogDb(20_000);
    const reports = updateOutbox(sql, clock);
    // A second update for each of the first 100 reports, made due an hour earlier than everything
    // else: it still waits behind its report's first one.
    await sql.transaction(async (tx) => {
      for (const id of ids.slice(0, 100)) await reports.enqueue(tx, id, { status: 'completed', score: '80%' });
    });
    db.prepare(`UPDATE report_updates SET next_attempt_at = ? WHERE body LIKE '%completed%'`).run(isoAt(NOW - 3_600_000));

    // (On SQLite a claim holds nothing past now: the heads stay due at NOW.)
    const heads = await reports.claimDueHeads(20, 60_000);
    expect(heads.map((u) => u.reportId)).toEqual(ids.slice(0, 20));
    expect(heads.every((u) => 'urls' in u.body)).toBe(true);
    expect(await reports.nextDueAt()).toBe(isoAt(NOW));

    // Walked in the due index's order, each checked against its own report's earlier updates only
    // (the claim's SELECT, which picks the heads).
    for (const plan of [planOf(/ORDER BY u\.next_attempt_at/, isoAt(NOW), 20), planOf(/SELECT min\(u\.next_attempt_at\)/)]) {
      expect(plan).toMatch(/SEARCH u USING INDEX report_updates_due/);
      expect(plan).toMatch(/SEARCH p USING INDEX report_updates_by_invitation \(invitation_id=\? AND id<\?\)/);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('forgets 20,000 settled updates past 30 days and keeps the history of each of 5,000 reports with a dead letter', async () => {
    const { db, sql, planOf } = await backlogDb(25_000);
    const old = isoAt(NOW - 31 * 86_400_000);
    // The first 20,000 were delivered a month ago; the last 5,000 gave up (dead letters), with a
    // delivered update of theirs from a month ago too.
    db.prepare(`UPDATE report_updates SET status = 'delivered', updated_at = ? WHERE id <= 20000`).run(old);
    db.prepare(`UPDATE report_updates SET status = 'dead', updated_at = ? WHERE id > 20000`).run(old);
    db.prepare(
      `INSERT INTO report_updates (invitation_id, report_id, body, status, next_attempt_at, give_up_at, created_at, updated_at)
       SELECT invitation_id, report_id, body, 'delivered', next_attempt_at, give_up_at, created_at, ? FROM report_updates WHERE status = 'dead'`,
    ).run(old);

    expect(await updateOutbox(sql, clock).prune(30 * 86_400_000)).toBe(20_000);
    const left = db.prepare<[], { status: string; n: number }>('SELECT status, count(*) AS n FROM report_updates GROUP BY status ORDER BY status').all();
    expect(left).toEqual([
      { status: 'dead', n: 5_000 },
      { status: 'delivered', n: 5_000 },
    ]);
    // Each settled row or attempt looks for its own report's dead letters, not through all of them.
    for (const table of ['report_updates', 'report_update_attempts']) {
      expect(planOf(new RegExp(`^DELETE FROM ${table} `), isoAt(NOW))).toMatch(/SEARCH d USING INDEX report_updates_by_invitation \(invitation_id=\?\)/);
    }
  });
});

describe('the hourly prune among a month of 20,000 settled updates it keeps', () => {
  it('reads only what it forgets, not the month it keeps', async () => {
    const { db, planOf, sql } = await backlogDb(20_010);
    db.prepare(`UPDATE report_updates SET status = 'delivered', updated_at = ?`).run(isoAt(NOW - 86_400_000));
    db.prepare(`UPDATE report_updates SET updated_at = ? WHERE id > 20000`).run(isoAt(NOW - 31 * 86_400_000));

    expect(await updateOutbox(sql, clock).prune(30 * 86_400_000)).toBe(10);
    expect(planOf(/^DELETE FROM report_updates /, isoAt(NOW))).toMatch(/SEARCH report_updates USING INDEX report_updates_settled \(status=\? AND updated_at<\?\)/);
    expect(planOf(/^DELETE FROM report_update_attempts /, isoAt(NOW))).toMatch(/SEARCH report_update_attempts USING INDEX \w+ \(started_at<\?\)/);
  });
});

describe('the webhook inbox with 50,000 events handled', () => {
  it('finds the few still pending through the due index, in event order, without reading the handled ones', async () => {
    const { db, sql, planOf } = recordingDb();
    const inbox = webhookInbox(sql, clock);
    const insert = db.prepare(
      `INSERT INTO webhook_inbox (event_id, company_id, event_type, event_subtype, occurred_at, attempt_count, payload, status, next_attempt_at, received_at)
       VALUES (?, ?, 'candidate', 'created', ?, 1, '{}', ?, ?, ?)`,
    );
    const at = isoAt(NOW - 60_000);
    db.transaction(() => {
      for (let i = 1; i <= 50_000; i++) insert.run(i, 1 + (i % 2), at, i > 49_990 ? 'pending' : 'handled', at, at);
    })();

    expect((await inbox.due(20)).map((e) => e.id)).toEqual(Array.from({ length: 10 }, (_, i) => 49_991 + i));
    const plan = planOf(/FROM webhook_inbox\b[\s\S]*next_attempt_at <= \?/, isoAt(NOW), 20);
    expect(plan).toMatch(/SEARCH webhook_inbox USING INDEX webhook_inbox_due/);
    expect(plan).not.toMatch(/\bSCAN webhook_inbox\b/);
  });
});

describe('the dashboard\'s lists of report updates among 20,000', () => {
  it('finds the few dead letters through the status index, newest first, and one report\'s updates through its own', async () => {
    const { db, sql, planOf, ids } = await backlogDb(20_000);
    db.prepare(`UPDATE report_updates SET status = 'delivered'`).run();
    db.prepare(`UPDATE report_updates SET status = 'dead' WHERE id IN (10, 5000, 15000)`).run();
    const reports = updateOutbox(sql, clock);

    expect((await reports.recent({ status: 'dead' })).map((u) => u.id)).toEqual([15000, 5000, 10]);
    expect((await reports.recent({ limit: 2 })).map((u) => u.id)).toEqual([20000, 19999]);
    expect((await reports.recent({ reportId: ids[9]!, status: 'dead' })).map((u) => u.id)).toEqual([10]);
    expect(await reports.recent({ reportId: ids[9]!, status: 'delivered' })).toEqual([]);

    expect(planOf(/WHERE status = \? ORDER BY id DESC/, 'dead', 100)).toMatch(/SEARCH report_updates USING INDEX report_updates_by_status \(status=\?\)/);
    expect(planOf(/report_id = \?\) AND status = \? ORDER BY id DESC/, ids[9]!, 'dead', 100)).toMatch(
      /SEARCH report_updates USING INDEX report_updates_by_invitation \(invitation_id=\?\)/,
    );
  });
});

describe('the invitation starter among 20,000 invitations still open', () => {
  it('takes the few to start through their own index, not through every invitation whose candidate has not finished', async () => {
    const { db, sql, planOf, ids } = await backlogDb(20_010);
    // Started long ago, never completed: `sent`, as the dashboard's status index holds them too.
    db.prepare(`UPDATE invitations SET started_at = $at, next_start_at = NULL WHERE id <= 20000`).run({ at: isoAt(NOW - 86_400_000) });

    const due = await invitationStore(sql, clock).claimDueStarts(20, 120_000);
    expect(due.map((i) => i.reportId).sort()).toEqual(ids.slice(20_000).sort());
    const plan = planOf(/FROM invitations i WHERE i\.started_at IS NULL/, isoAt(NOW), 20);
    expect(plan).toMatch(/SEARCH i USING INDEX invitations_to_start \(status=\? AND next_start_at<\?\)/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });
});
