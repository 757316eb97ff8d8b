import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { accountStore } from '../../src/partner/accounts/store.js';
import { openPartnerDatabase } from '../../src/partner/db/open.js';
import { DEMO_MIGRATIONS } from '../../src/partner/provider/demo/index.js';
import { eventually } from '../support/eventually.js';
import { startPostgres, type RunningPostgres } from '../support/postgres.js';

/**
 * The bench's PostgreSQL baseline (bench/baseline-server.mjs --postgres) answers the three
 * callbacks as the partner does, on the partner's own tables, and does the background work a send
 * sets off: the partner on PostgreSQL is measured against a server that does no less. So does the
 * plain Express reference that does the baseline's work (bench/express-server.mjs --postgres).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

let postgres: RunningPostgres;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(() => postgres?.stop());

interface Seeded {
  url: string;
  /** Bound to company 1, three tests. */
  bound: { token: string; accountId: number; tests: { id: number; name: string }[] };
  /** Bound to no company yet, one test. */
  unbound: { token: string; accountId: number; testId: number };
}

/** A database with the partner's schema (its migrations), seeded through its account store, as the bench seeds one. */
async function seed(name: string): Promise<Seeded> {
  const url = await postgres.createDatabase(name);
  const database = await openPartnerDatabase(
    { databasePath: '', databaseUrl: url },
    { provider: DEMO_MIGRATIONS },
  );
  const { sql } = database;
  const accounts = accountStore(sql, systemClock);
  const now = new Date().toISOString();
  const addTest = async (accountId: number, testName: string) =>
    (await sql.get<{ id: number }>('INSERT INTO tests (account_id, name, created_at) VALUES ($1, $2, $3) RETURNING id', [accountId, testName, now]))!.id;
  const one = await accounts.create('Bound');
  await sql.run('UPDATE accounts SET company_id = 1, bound_at = $1 WHERE id = $2', [now, one.account.id]);
  const tests = [];
  for (const testName of ['Java', 'Go', 'SQL']) tests.push({ id: await addTest(one.account.id, testName), name: testName });
  const two = await accounts.create('Unbound');
  const unboundTest = await addTest(two.account.id, 'Rust');
  await database.close();
  return { url, bound: { token: one.token, accountId: one.account.id, tests }, unbound: { token: two.token, accountId: two.account.id, testId: unboundTest } };
}

/** `server` (bench/…) on `url` with `driver`, on a port of its own; resolves once it prints "listening <port>". */
function startBaseline(server: string, url: string, driver: string): Promise<{ child: ChildProcess; base: string }> {
  const args = [`bench/${server}`, '--port', '0', '--postgres', url, ...(server === 'baseline-server.mjs' ? ['--driver', driver] : [])];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      output += d;
      const port = /listening (\d+)/.exec(output)?.[1];
      if (port) resolve({ child, base: `http://127.0.0.1:${port}` });
    });
    child.stderr!.on('data', (d: Buffer) => (output += d));
    child.once('exit', (code) => reject(new Error(`the baseline exited with ${code}:\n${output}`)));
  });
}

describe.each([
  { server: 'baseline-server.mjs', driver: 'pg' },
  { server: 'baseline-server.mjs', driver: 'postgres' },
  // Plain Express, on the partner's driver.
  { server: 'express-server.mjs', driver: 'pg' },
])('$server on PostgreSQL, the $driver driver', ({ server, driver }) => {
  let seeded: Seeded;
  let baseline: { child: ChildProcess; base: string };
  let db: Awaited<ReturnType<typeof openPartnerDatabase>>;
  beforeAll(async () => {
    seeded = await seed(`${server.split('-')[0]}_${driver}`);
    baseline = await startBaseline(server, seeded.url, driver);
    db = await openPartnerDatabase({ databasePath: '', databaseUrl: seeded.url }, { provider: DEMO_MIGRATIONS });
  });
  afterAll(async () => {
    await db?.close();
    if (baseline && baseline.child.exitCode === null) await new Promise((resolve) => (baseline.child.once('exit', resolve), baseline.child.kill('SIGTERM')));
  });

  const call = async (method: 'GET' | 'POST', at: string, token: string, body?: unknown) => {
    const res = await fetch(`${baseline.base}${at}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const candidate = (over: Record<string, unknown> = {}) => ({
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    candidate_id: 17,
    company_id: 1,
    report_id: randomUUID(),
    test_id: String(seeded.bound.tests[1]!.id),
    test_name: 'Go',
    ...over,
  });

  it('validate_token: 200 {"ok": true} for the bound company, 403 for another, 401 for a token it does not know; an unbound account is bound', async () => {
    expect(await call('POST', '/validate_token', seeded.bound.token, { company_id: 1 })).toEqual({ status: 200, body: { ok: true } });
    expect(await call('POST', '/validate_token', seeded.bound.token, { company_id: 2 })).toMatchObject({ status: 403, body: { error: expect.any(String) } });
    const unknown = `${seeded.bound.token.slice(0, -1)}${seeded.bound.token.endsWith('A') ? 'B' : 'A'}`;
    expect(await call('POST', '/validate_token', unknown, { company_id: 1 })).toMatchObject({ status: 401, body: { error: expect.any(String) } });
    expect(await call('POST', '/validate_token', seeded.unbound.token, { company_id: 5 })).toEqual({ status: 200, body: { ok: true } });
    expect(await db.sql.get('SELECT company_id FROM accounts WHERE id = $1', [seeded.unbound.accountId])).toEqual({ company_id: 5 });
  });

  it("tests: the account's tests in the order of their ids, and nobody else's", async () => {
    expect(await call('GET', '/tests', seeded.bound.token)).toEqual({ status: 200, body: seeded.bound.tests });
    expect(await call('GET', '/tests', 'ptk_notatoken')).toMatchObject({ status: 401, body: { error: expect.any(String) } });
  });

  it('send_candidate: 201 and the invitation started, its report update delivered and its e-mail sent, as the partner records them; a replay creates nothing', async () => {
    const body = candidate();
    expect(await call('POST', '/send_candidate', seeded.bound.token, body)).toEqual({ status: 201, body: { id: body.report_id, status: 'sent' } });
    expect(await call('POST', '/send_candidate', seeded.bound.token, body)).toEqual({ status: 201, body: { id: body.report_id, status: 'sent' } });

    const invitation = await eventually(async () => {
      const row = await db.sql.get<Record<string, unknown>>('SELECT * FROM invitations WHERE report_id = $1', [body.report_id]);
      expect(row?.platform_accepted_at).not.toBeNull();
      return row!;
    }, { what: 'the report accepted' });
    expect(invitation).toMatchObject({
      account_id: seeded.bound.accountId,
      company_id: 1,
      candidate_id: 17,
      test_id: body.test_id,
      test_name: 'Go',
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      status: 'sent',
      started_at: expect.any(String),
      candidate_url: expect.stringContaining(body.report_id),
    });
    const updates = await db.sql.all<{ status: string; body: string }>('SELECT status, body FROM report_updates WHERE report_id = $1', [body.report_id]);
    expect(updates).toEqual([{ status: 'delivered', body: expect.stringContaining('"urls"') }]);
    const mail = await eventually(async () => {
      const rows = await db.sql.all<{ status: string; recipient: string; message: string | null }>(
        'SELECT status, recipient, message FROM mail_outbox WHERE report_id = $1',
        [body.report_id],
      );
      expect(rows.map((r) => r.status)).toEqual(['sent']);
      return rows[0]!;
    }, { what: 'the e-mail sent' });
    expect(mail).toMatchObject({ recipient: 'ada@example.com', message: expect.stringContaining(invitation.candidate_url as string) });
  });

  it('send_candidate: 409 for a used report_id with another candidate, 422 for a test of another account, 403 for another company, 401 without a known token', async () => {
    const first = candidate();
    expect((await call('POST', '/send_candidate', seeded.bound.token, first)).status).toBe(201);
    expect(await call('POST', '/send_candidate', seeded.bound.token, { ...first, candidate_id: 18 })).toMatchObject({ status: 409, body: { error: expect.any(String) } });
    const foreign = candidate({ test_id: String(seeded.unbound.testId) });
    expect(await call('POST', '/send_candidate', seeded.bound.token, foreign)).toMatchObject({ status: 422, body: { error: expect.any(String) } });
    const elsewhere = candidate({ company_id: 2 });
    expect(await call('POST', '/send_candidate', seeded.bound.token, elsewhere)).toMatchObject({ status: 403, body: { error: expect.any(String) } });
    expect(await call('POST', '/send_candidate', 'ptk_notatoken', candidate())).toMatchObject({ status: 401, body: { error: expect.any(String) } });
    const stored = await db.sql.all<{ report_id: string; candidate_id: number }>(
      'SELECT report_id, candidate_id FROM invitations WHERE report_id IN ($1, $2, $3)',
      [first.report_id, foreign.report_id, elsewhere.report_id],
    );
    expect(stored).toEqual([{ report_id: first.report_id, candidate_id: 17 }]);
  });
});
