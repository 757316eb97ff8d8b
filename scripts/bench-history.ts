/**
 * A partner's history, stored fast for the bench (`BENCH_INVITATIONS`, scripts/bench.ts) and for
 * the query plans at a million invitations (scripts/bench-plans.ts): invitations spread over the
 * accounts and over the last three years, four in five completed and the fifth still open (its
 * candidate never finished: status `sent`, started), each with what its background work left: the
 * e-mail sent and kept (the JSON transport's rendering, about the size the partner keeps), and for
 * those of the last 30 days the report update delivered and its attempt logged (older ones are
 * pruned, DELIVERY_LOG_RETENTION_MS) — as a partner a few years in has them. Rows go in
 * directly, in large transactions on SQLite and as `INSERT … SELECT` over `generate_series` on
 * PostgreSQL: through the stores a million would take hours.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { systemClock } from '../src/lib/clock.js';
import { accountStore } from '../src/partner/accounts/store.js';
import { openDb, openPartnerDatabase } from '../src/partner/db/open.js';
import type { ProviderMigrations } from '../src/partner/provider/types.js';
import { DELIVERY_LOG_RETENTION_MS } from '../src/partner/updates/policy.js';

const YEARS_MS = 3 * 365 * 24 * 60 * 60 * 1000;
const BATCH = 50_000;

/** An invitation e-mail as the JSON transport renders it and the mail outbox keeps it (about 1.7 KB). */
export const KEPT_MESSAGE = JSON.stringify({
  from: { address: 'no-reply@partner.example', name: 'Partner' },
  to: [{ address: 'ada@example.com', name: 'Ada Lovelace' }],
  subject: 'Account 1 invites you to take the Test 1 test',
  text:
    'Hello Ada,\n\nAccount 1 invites you to take the Test 1 test as part of your application.\n\nStart the test:\n' +
    `https://partner.example/take/${'x'.repeat(220)}\n\n\nThe link is personal: please do not forward it. If you were not expecting this e-mail, you can ignore it.\n\nPartner\n`,
  html:
    '<!doctype html>\n<html lang="en">\n<body style="font-family: system-ui, sans-serif; color: #1d2330; line-height: 1.5">\n  <p>Hello Ada,</p>\n' +
    '  <p>Account 1 invites you to take the <strong>Test 1</strong> test as part of your application.</p>\n' +
    `  <p><a href="https://partner.example/take/${'x'.repeat(220)}" style="display: inline-block; background: #3151d3; color: #fff; padding: 10px 18px; border-radius: 4px; text-decoration: none">Start the test</a></p>\n` +
    '  <p style="color: #667085; font-size: 13px">The link is personal: please do not forward it. If you were not expecting this e-mail, you can ignore it.</p>\n' +
    '  <p style="color: #667085; font-size: 13px">Partner</p>\n</body>\n</html>\n',
  messageId: '<00000000-0000-0000-0000-000000000000@partner.example>',
  headers: {},
});
const UPDATE_BODY = JSON.stringify({ status: 'completed', score: 80, completed_at: '2024-01-01T00:00:00.000Z', urls: { show: `https://partner.example/results/${'x'.repeat(200)}` } });

/** A customer as the load generator calls as it: its token, its company and its tests. */
export interface Customer {
  token: string;
  company_id: number;
  tests: { id: number; name: string }[];
}

/**
 * The partner's database (SQLite at `databasePath`, or PostgreSQL at `databaseUrl`) with the
 * baselines' shape of data: `count` accounts bound to companies 1…N, `testsPerAccount` tests each,
 * created through the account store as the accounts CLI creates them; `provider`: the provider's
 * tables too, as the partner that will run on it has them.
 */
export async function seedAccounts(
  settings: { databasePath: string; databaseUrl?: string },
  count: number,
  testsPerAccount: number,
  provider?: ProviderMigrations,
): Promise<Customer[]> {
  // One transaction for them all: on PostgreSQL it may take longer than the kit allows one call (DATABASE_TIMEOUT_SECONDS).
  const database = await openPartnerDatabase({ databaseTimeoutMs: 600_000, ...settings }, { provider });
  const { sql } = database;
  const accounts = accountStore(sql, systemClock);
  const customers: Customer[] = [];
  const now = new Date().toISOString();
  await sql.transaction(async (tx) => {
    for (let a = 1; a <= count; a++) {
      const { account, token } = await accounts.create(`Account ${a}`, tx);
      await tx.run('UPDATE accounts SET company_id = $1, bound_at = $2 WHERE id = $3', [a, now, account.id]);
      const tests = [];
      for (let t = 1; t <= testsPerAccount; t++) {
        const name = `Test ${(a - 1) * testsPerAccount + t}`;
        tests.push({ id: (await tx.get<{ id: number }>('INSERT INTO tests (account_id, name, created_at) VALUES ($1, $2, $3) RETURNING id', [account.id, name, now]))!.id, name });
      }
      customers.push({ token, company_id: a, tests });
    }
  });
  // PostgreSQL's statistics of the new rows, gathered now: autovacuum would otherwise gather them
  // during the first runs and charge its time to whichever server the run measures.
  if (sql.dialect === 'postgres') await sql.exec('VACUUM ANALYZE');
  await database.close();
  return customers;
}

/** An invitation of the history: its report id, account, creation time, and whether it is still open (sent, never completed). */
type History = readonly [reportId: string, account: number, createdAt: string, open: boolean];

/** When the i-th of `count` invitations was created: spread evenly over the last three years, oldest first. */
const createdAt = (i: number, count: number, now: number) => new Date(now - YEARS_MS + Math.floor(((i + 1) * YEARS_MS) / count)).toISOString();

/**
 * `count` finished invitations and their history in each of the partner's SQLite databases
 * (`partnerFiles`, seeded with `accounts` accounts), and as many in the SQLite baseline's
 * (`baselineFile`, bench/callbacks-work.mjs's schema), with the same report ids.
 */
export function storeHistoryOnSqlite(partnerFiles: readonly string[], baselineFile: string | undefined, count: number, accounts: number): void {
  const now = Date.now();
  const kept = new Date(now - DELIVERY_LOG_RETENTION_MS).toISOString();
  const partners = partnerFiles.map((file) => {
    const db = openDb(file);
    const invitation = db.prepare(
      `INSERT INTO invitations (report_id, account_id, company_id, candidate_id, test_id, test_name, first_name, last_name, email,
         status, started_at, candidate_url, created_at, updated_at, completed_at, score, platform_accepted_at)
       VALUES (?, ?, ?, ?, '1', 'Test', 'Ada', 'Lovelace', 'ada@example.com', ?, ?, 'https://partner.example/take', ?, ?, ?, ?, ?)`,
    );
    const update = db.prepare(
      `INSERT INTO report_updates (invitation_id, report_id, body, status, attempts, next_attempt_at, give_up_at, last_status, delivered_at, created_at, updated_at)
       VALUES (?, ?, '${UPDATE_BODY}', 'delivered', 1, ?, ?, 200, ?, ?, ?)`,
    );
    const attempt = db.prepare(
      `INSERT INTO report_update_attempts (invitation_id, report_id, first_update_id, last_update_id, request_body, response_status, response_body,
         outcome, started_at, duration_ms)
       VALUES (?, ?, ?, ?, '${UPDATE_BODY}', 200, '{}', 'delivered', ?, 3)`,
    );
    const mail = db.prepare(
      `INSERT INTO mail_outbox (invitation_id, report_id, kind, status, attempts, next_attempt_at, give_up_at, recipient, subject, message_id, message,
         sent_at, created_at, updated_at)
       VALUES (?, ?, 'invitation', 'sent', 1, ?, ?, 'ada@example.com', 'Account 1 invites you to take the Test 1 test', ?, ?, ?, ?, ?)`,
    );
    const store = db.transaction((batch: History[]) => {
      for (const [reportId, account, at, open] of batch) {
        const id = Number(invitation.run(reportId, account, account, 17, open ? 'sent' : 'completed', at, at, at, open ? null : at, open ? null : '80%', at).lastInsertRowid);
        if (at >= kept) {
          const updateId = Number(update.run(id, reportId, at, at, at, at, at).lastInsertRowid);
          attempt.run(id, reportId, updateId, updateId, at);
        }
        mail.run(id, reportId, at, at, `<${reportId}@partner.example>`, KEPT_MESSAGE, at, at, at);
      }
    });
    return { db, store };
  });
  const baseline = baselineFile ? new Database(baselineFile) : undefined;
  const intoBaseline = baseline?.prepare(
    `INSERT INTO invitations (report_id, account_id, candidate_id, test_id, first_name, last_name, email, status, created_at, started_at, candidate_url, accepted_at)
     VALUES (?, ?, 17, 1, 'Ada', 'Lovelace', 'ada@example.com', 'started', ?, ?, 'https://partner.example/take', ?)`,
  );
  const outbox = baseline?.prepare(`INSERT INTO outbox (invitation, step, status, attempts, next_at, body, last_status, message_id, message, done_at)
     VALUES (?, ?, 'done', 1, ?, ?, ?, ?, ?, ?)`);
  const storeBaseline = baseline?.transaction((batch: History[]) => {
    for (const [reportId, account, at] of batch) {
      const id = intoBaseline!.run(reportId, account, at, at, at).lastInsertRowid;
      const ms = Date.parse(at);
      outbox!.run(id, 'start', ms, null, null, null, null, at);
      outbox!.run(id, 'update', ms, UPDATE_BODY, 200, null, null, at);
      outbox!.run(id, 'mail', ms, null, null, `<${reportId}@bench.invalid>`, KEPT_MESSAGE, at);
    }
  });
  for (let done = 0; done < count; done += BATCH) {
    const batch = Array.from(
      { length: Math.min(BATCH, count - done) },
      (_, i): History => [randomUUID(), ((done + i) % accounts) + 1, createdAt(done + i, count, now), (done + i + 1) % 5 === 0],
    );
    for (const p of partners) p.store(batch);
    storeBaseline?.(batch);
  }
  for (const p of partners) p.db.close();
  baseline?.close();
}

/**
 * The same history in a partner's PostgreSQL database at `url` (seeded with `accounts` accounts),
 * on a connection of its own: its statements take longer than the kit's statement timeout allows.
 */
export async function storeHistoryOnPostgres(url: string, count: number, accounts: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await storeHistoryThrough(client, count, accounts);
  } finally {
    await client.end();
  }
}

async function storeHistoryThrough(client: pg.Client, count: number, accounts: number): Promise<void> {
  const sql = { run: (text: string, params: unknown[] = []) => client.query(text, params) };
  const now = Date.now();
  const first = Number((await client.query<{ n: string }>('SELECT coalesce(max(id), 0) AS n FROM invitations')).rows[0]!.n);
  for (let done = 0; done < count; done += 4 * BATCH) {
    const n = Math.min(4 * BATCH, count - done);
    // created_at: from three years ago to now, as on SQLite; each row's account in turn.
    await sql.run(
      `INSERT INTO invitations (report_id, account_id, company_id, candidate_id, test_id, test_name, first_name, last_name, email,
         status, started_at, candidate_url, created_at, updated_at, completed_at, score, platform_accepted_at)
       SELECT r.report_id, r.account, r.account, 17, '1', 'Test', 'Ada', 'Lovelace', 'ada@example.com',
              CASE WHEN r.g % 5 = 0 THEN 'sent' ELSE 'completed' END, r.at, 'https://partner.example/take', r.at, r.at,
              CASE WHEN r.g % 5 = 0 THEN NULL ELSE r.at END, CASE WHEN r.g % 5 = 0 THEN NULL ELSE '80%' END, r.at
         FROM (SELECT g, gen_random_uuid()::text AS report_id, ((g - 1) % $1) + 1 AS account,
                      to_char(to_timestamp(($2::bigint + g * $3::bigint) / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
                 FROM generate_series($4::bigint, $5::bigint) AS g) AS r`,
      [accounts, now - YEARS_MS, Math.floor(YEARS_MS / count), done + 1, done + n],
    );
  }
  const mine = `FROM invitations WHERE id > ${first}`;
  await sql.run(
    `INSERT INTO report_updates (invitation_id, report_id, body, status, attempts, next_attempt_at, give_up_at, last_status, delivered_at, created_at, updated_at)
     SELECT id, report_id, $1, 'delivered', 1, created_at, created_at, 200, created_at, created_at, created_at ${mine} AND created_at >= $2`,
    [UPDATE_BODY, new Date(now - DELIVERY_LOG_RETENTION_MS).toISOString()],
  );
  await sql.run(
    `INSERT INTO report_update_attempts (invitation_id, report_id, first_update_id, last_update_id, request_body, response_status, response_body,
       outcome, started_at, duration_ms)
     SELECT u.invitation_id, u.report_id, u.id, u.id, u.body, 200, '{}', 'delivered', u.created_at, 3 FROM report_updates u WHERE u.invitation_id > ${first}`,
  );
  await sql.run(
    `INSERT INTO mail_outbox (invitation_id, report_id, kind, status, attempts, next_attempt_at, give_up_at, recipient, subject, message_id, message,
       sent_at, created_at, updated_at)
     SELECT id, report_id, 'invitation', 'sent', 1, created_at, created_at, 'ada@example.com', 'Account 1 invites you to take the Test 1 test',
            '<' || report_id || '@partner.example>', $1, created_at, created_at, created_at ${mine}`,
    [KEPT_MESSAGE],
  );
  await sql.run('VACUUM ANALYZE');
}
