/**
 * `npx tsx scripts/bench-plans.ts`: how the background work's statements read a partner with a long
 * history — the invitation starter's claim, the report updates' claim, the delivery's read of what
 * it sends (`toDeliver`) and the mail outbox's claim — on SQLite and on PostgreSQL, each database
 * holding BENCH_INVITATIONS invitations (1,000,000) with their history (scripts/bench-history.ts)
 * and 20 of each kind of work due; and the delivery's hourly prune of its log. The statements are taken from the
 * stores (through a `Sql` that records them), so the plans are of the kit's own text. Prints
 * each one's plan (`EXPLAIN QUERY PLAN`; on PostgreSQL `EXPLAIN (ANALYZE, BUFFERS)` in a
 * transaction rolled back, since a claim there is an UPDATE) and its time, median of 21 runs after
 * one to warm the cache, and each database's size per invitation.
 *
 * Options (env): BENCH_INVITATIONS (1000000), BENCH_ACCOUNTS (1000), BENCH_PLANS_DIR (a folder to
 * keep the SQLite database in and use again: seeding a million takes minutes), BENCH_POSTGRES=0.
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { systemClock } from '../src/lib/clock.js';
import type { Sql } from '../src/lib/sql.js';
import { openPartnerDatabase } from '../src/partner/db/open.js';
import { invitationStore } from '../src/partner/invitations/store.js';
import { mailOutbox } from '../src/partner/mail/outbox.js';
import { updateOutbox } from '../src/partner/updates/outbox.js';
import { DELIVERY_LOG_RETENTION_MS } from '../src/partner/updates/policy.js';
import { startPostgres } from '../test/support/postgres.js';
import { seedAccounts, storeHistoryOnPostgres, storeHistoryOnSqlite } from './bench-history.js';

const INVITATIONS = Number(process.env.BENCH_INVITATIONS ?? 1_000_000);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1000);
const DUE = 20;
const LEASE_MS = 120_000;

/** A statement as a store sent it. */
interface Taken {
  text: string;
  params: unknown[];
}

/**
 * A `Sql` that records every statement it is given in `taken` and runs none (reads find nothing):
 * a claim run for real would take the work it is about to explain.
 */
function recording(dialect: Sql['dialect'], taken: Taken[]): Sql {
  const keep = (text: string, params: readonly unknown[] = []) => void taken.push({ text, params: [...params] });
  const sql: Sql = {
    dialect,
    all: async (text, params) => (keep(text, params), []),
    get: async (text, params) => (keep(text, params), undefined),
    run: async (text, params) => (keep(text, params), { changes: 0 }),
    exec: async (text) => keep(text),
    transaction: (fn) => fn(sql),
  };
  return sql;
}

/** 20 of each kind of work due, each on an invitation of its own: starts, report updates, e-mails. */
async function queueWork(sql: Sql): Promise<void> {
  const now = new Date().toISOString();
  const invite = async (started: boolean) =>
    (await sql.get<{ id: number; report_id: string }>(
      `INSERT INTO invitations (report_id, account_id, company_id, candidate_id, test_id, test_name, first_name, last_name, email,
         next_start_at, started_at, candidate_url, created_at, updated_at)
       VALUES ($1, 1, 1, 17, '1', 'Test', 'Ada', 'Lovelace', 'ada@example.com', $2, $3, $4, $2, $2) RETURNING id, report_id`,
      [randomUUID(), now, started ? now : null, started ? 'https://partner.example/take' : null],
    ))!;
  for (let i = 0; i < DUE; i++) await invite(false);
  for (let i = 0; i < DUE; i++) {
    const { id, report_id } = await invite(true);
    await sql.run(
      `INSERT INTO report_updates (invitation_id, report_id, body, next_attempt_at, give_up_at, created_at, updated_at) VALUES ($1, $2, '{"status":"sent"}', $3, $3, $3, $3)`,
      [id, report_id, now],
    );
  }
  for (let i = 0; i < DUE; i++) {
    const { id, report_id } = await invite(true);
    await sql.run(
      `INSERT INTO mail_outbox (invitation_id, report_id, kind, next_attempt_at, give_up_at, created_at, updated_at) VALUES ($1, $2, 'invitation', $3, $3, $3, $3)`,
      [id, report_id, now],
    );
  }
}

/** The four statements, as the stores send them, with the parameters of one run now. */
async function statements(sql: Sql): Promise<[string, Taken][]> {
  const taken: Taken[] = [];
  const rec = recording(sql.dialect, taken);
  const one = async (run: () => Promise<unknown>): Promise<Taken> => {
    taken.length = 0;
    await run();
    return taken[0]!;
  };
  const updates = updateOutbox(rec, systemClock);
  const found: [string, Taken][] = [
    ['invitation starter: claim of the starts due', await one(() => invitationStore(rec, systemClock).claimDueStarts(DUE, LEASE_MS))],
    ['report updates: claim of the due heads', await one(() => updates.claimDueHeads(DUE, LEASE_MS))],
    ['mail outbox: claim of the e-mails due', await one(() => mailOutbox(rec, systemClock).claimDue(DUE, LEASE_MS))],
  ];
  const head = await sql.get<{ id: number; report_id: string }>("SELECT id, report_id FROM report_updates WHERE status = 'pending' ORDER BY id LIMIT 1");
  found.push(['delivery: what it sends (toDeliver)', await one(() => updates.toDeliver({ id: head!.id, reportId: head!.report_id }))]);
  // The delivery's hourly prune of its log past 30 days: two DELETEs, in one transaction.
  taken.length = 0;
  await updates.prune(DELIVERY_LOG_RETENTION_MS);
  found.push(['delivery, hourly: the attempts past 30 days pruned', taken[0]!], ['delivery, hourly: the settled updates past 30 days pruned', taken[1]!]);
  return found;
}

const rolledBack = new Error('rolled back');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function onSqlite(dir: string): Promise<void> {
  const file = path.join(dir, `plans-${INVITATIONS}.db`);
  const exists = statSync(file, { throwIfNoEntry: false });
  if (!exists) {
    console.log(`seeding ${INVITATIONS} invitations with their history on SQLite (${file})…`);
    await seedAccounts({ databasePath: file }, ACCOUNTS, 20);
    storeHistoryOnSqlite([file], undefined, INVITATIONS, ACCOUNTS);
  }
  const database = await openPartnerDatabase({ databasePath: file });
  const { sql } = database;
  try {
    await sql.run("DELETE FROM invitations WHERE started_at IS NULL OR report_id IN (SELECT report_id FROM report_updates WHERE status = 'pending') OR id IN (SELECT invitation_id FROM mail_outbox WHERE status = 'pending')");
    await queueWork(sql);
    const size = statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    console.log(`\n## SQLite, ${INVITATIONS} invitations: ${(size / 1e6).toFixed(0)} MB, ${(size / Math.max(1, INVITATIONS)).toFixed(0)} bytes per invitation\n`);
    for (const [name, { text, params }] of await statements(sql)) {
      const plan = await sql.all<{ id: number; parent: number; detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params);
      const depth = new Map<number, number>([[0, 0]]);
      const lines = plan.map((p) => (depth.set(p.id, (depth.get(p.parent) ?? 0) + 1), `${'  '.repeat(depth.get(p.id)! - 1)}${p.detail}`));
      // A DELETE (the prune) is timed in a savepoint rolled back, so that every run finds the same rows.
      const once = async () => {
        const t = performance.now();
        await sql
          .transaction(async (tx) => {
            await (text.startsWith('DELETE') ? tx.run(text, params) : tx.all(text, params));
            throw rolledBack;
          })
          .catch((err: unknown) => {
            if (err !== rolledBack) throw err;
          });
        return performance.now() - t;
      };
      await once();
      const ms: number[] = [];
      for (let i = 0; i < 21; i++) ms.push(await once());
      console.log(`### ${name}: ${median(ms).toFixed(2)} ms\n\n${text.replace(/\s+/g, ' ').trim()}\n\n${lines.join('\n')}\n`);
    }
  } finally {
    await database.close();
  }
}

async function onPostgres(): Promise<void> {
  const server = await startPostgres({ durable: true });
  try {
    const url = await server.createDatabase('plans');
    console.log(`seeding ${INVITATIONS} invitations with their history on PostgreSQL…`);
    await seedAccounts({ databasePath: '', databaseUrl: url }, ACCOUNTS, 20);
    await storeHistoryOnPostgres(url, INVITATIONS, ACCOUNTS);
    // ANALYZE of a million rows, and the claims' EXPLAIN ANALYZE, take longer than the kit allows one call.
    const database = await openPartnerDatabase({ databasePath: '', databaseUrl: url, databaseTimeoutMs: 600_000 });
    const { sql } = database;
    try {
      await queueWork(sql);
      await sql.exec('ANALYZE');
      const bytes = Number((await sql.get<{ n: string }>('SELECT pg_database_size(current_database()) AS n'))!.n);
      console.log(`\n## PostgreSQL, ${INVITATIONS} invitations: ${(bytes / 1e6).toFixed(0)} MB, ${(bytes / Math.max(1, INVITATIONS)).toFixed(0)} bytes per invitation\n`);
      const found = await statements(sql);
      // The claims are UPDATEs there: each analysed in a transaction rolled back, so every run finds the same rows due.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const [name, { text, params }] of found) {
          const explain = async (how: string) => {
            await client.query('BEGIN');
            try {
              return (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${how} ${text}`, params)).rows.map((r) => r['QUERY PLAN']);
            } finally {
              await client.query('ROLLBACK');
            }
          };
          await explain('(ANALYZE)');
          const ms: number[] = [];
          let plan: string[] = [];
          for (let i = 0; i < 21; i++) {
            plan = await explain('(ANALYZE, BUFFERS)');
            ms.push(Number(/Execution Time: ([\d.]+) ms/.exec(plan.at(-1)!)?.[1]));
          }
          console.log(`### ${name}: ${median(ms).toFixed(2)} ms\n\n${text.replace(/\s+/g, ' ').trim()}\n\n${plan.join('\n')}\n`);
        }
      } finally {
        await client.end();
      }
    } finally {
      await database.close();
    }
  } finally {
    server.stop();
  }
}

const dir = process.env.BENCH_PLANS_DIR ?? mkdtempSync(path.join(tmpdir(), 'partner-plans-'));
await onSqlite(dir);
if (process.env.BENCH_POSTGRES !== '0') await onPostgres();
