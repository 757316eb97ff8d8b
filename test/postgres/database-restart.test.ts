import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { openPartnerDatabase, type PartnerDatabase } from '../../src/partner/db/open.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { DEMO_MIGRATIONS } from '../../src/partner/provider/demo/index.js';
import { eventually } from '../support/eventually.js';
import { REFUSED_URL, startPartnerProcess, type PartnerProcess } from '../support/net.js';
import { candidateBody } from '../support/partner.js';
import { startPostgres, type RunningPostgres } from '../support/postgres.js';

/** Sends in flight at once, as the platform's users click. */
const CONCURRENCY = 4;
/** Acknowledged sends between two faults: enough that each fault lands among sends in flight. */
const BETWEEN_FAULTS = 40;

// A server of its own: restarting the one the other test files share would break their queries.
describe('the partner while its PostgreSQL restarts and its connections are ended', () => {
  let postgres: RunningPostgres;
  let dir: string;
  let partner: PartnerProcess;
  let database: PartnerDatabase;
  beforeAll(async () => {
    postgres = await startPostgres();
    dir = mkdtempSync(path.join(tmpdir(), 'database-restart-'));
  }, 60_000);
  afterAll(async () => {
    partner?.child.kill('SIGKILL');
    await partner?.exited;
    await database?.close();
    postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps serving: sends in flight get 201 or a 503 in the contract shape, /readyz comes back, and every acknowledged send is stored', async () => {
    const databaseUrl = await postgres.createDatabase('partner');
    partner = startPartnerProcess({ DATABASE_URL: databaseUrl, DATABASE_PATH: path.join(dir, 'partner.db'), PLATFORM_URL: REFUSED_URL });
    const base = `http://127.0.0.1:${await partner.port}`;
    database = await openPartnerDatabase({ databasePath: path.join(dir, 'partner.db'), databaseUrl }, { provider: DEMO_MIGRATIONS });
    const accounts = accountStore(database.sql, systemClock);
    const { account, token } = await accounts.create('Acme Corp');
    await accounts.bindCompany(account, candidateBody().company_id);
    const [test] = await database.sql.transaction((tx) => addDemoTests(tx, systemClock, account.id, ['JavaScript fundamentals']));

    const acknowledged: string[] = [];
    const refused: { status: number; body: unknown }[] = [];
    const send = async () => {
      const body = candidateBody({ test_id: String(test!.id), test_name: test!.name });
      const res = await fetch(`${base}/callbacks/send_candidate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await res.json()) as unknown;
      if (res.status === 201) acknowledged.push(body.report_id);
      else refused.push({ status: res.status, body: answer });
      return res.status;
    };
    /** Resolves once `n` more sends than now have been acknowledged. */
    const acknowledgedMore = (n: number) => {
      const target = acknowledged.length + n;
      return eventually(() => expect(acknowledged.length).toBeGreaterThanOrEqual(target), {
        what: `${n} more acknowledged sends (last refusal: ${JSON.stringify(refused.at(-1))})`,
        timeoutMs: 60_000,
      });
    };

    // The platform sends, CONCURRENCY at a time, until both faults are over and sends go through again.
    let sending = true;
    const lanes = Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (sending) await send();
      }),
    );
    // A failed lane (the partner gone: its connection refused) must end the wait, not hang it.
    const faults = (async () => {
      await acknowledgedMore(BETWEEN_FAULTS);
      await postgres.restart();
      await acknowledgedMore(BETWEEN_FAULTS);
      // As an administrator (or a failover) does: every connection of the partner's database ended.
      const admin = new pg.Client({ connectionString: postgres.url });
      await admin.connect();
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'partner'");
      await admin.end();
      await acknowledgedMore(BETWEEN_FAULTS);
    })().finally(() => (sending = false));
    await Promise.all([faults, lanes]);

    // The process is still up, ready, and takes the next send.
    expect(partner.child.exitCode).toBeNull();
    await eventually(async () => expect((await fetch(`${base}/readyz`)).status).toBe(200), { what: '/readyz to answer 200', timeoutMs: 30_000 });
    expect(await send()).toBe(201);
    // What failed failed as the platform can retry it: 503, in the contract's shape, never a 500.
    for (const r of refused) expect(r).toEqual({ status: 503, body: { error: expect.any(String) } });
    expect(partner.output()).not.toContain('"msg":"unhandled error"');
    // Nothing acknowledged was lost.
    const stored = new Set((await database.sql.all<{ report_id: string }>('SELECT report_id FROM invitations')).map((r) => r.report_id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
  }, 120_000);
});
