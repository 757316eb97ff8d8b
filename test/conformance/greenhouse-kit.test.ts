import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { accountStore } from '../../src/partner/accounts/store.js';
import { openPartnerDatabase } from '../../src/partner/db/open.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { freshDatabase, rowsOf } from '../support/database.js';
import { kitProcess, startPartnerProcess } from '../support/net.js';
import { GREENHOUSE_CHECKS } from '../../src/conformance/platforms/greenhouse/checks.js';
import { runGreenhouseConformance } from '../../src/conformance/platforms/greenhouse/run.js';
import { startKitPartner, type KitPartner } from '../support/kit-partner.js';

/**
 * The kit's own partner, started in this process as `npm start` starts it (as
 * kit-partner.test.ts starts it), passes every Greenhouse check: its four routes under /greenhouse,
 * its results endpoint completing the interview, and the PATCH it then sends to the checker's
 * receiver. On SQLite and on PostgreSQL (vitest.config.ts runs this file in both projects).
 */

let partner: KitPartner | undefined;
afterEach(async () => {
  await partner?.close();
  partner = undefined;
});

it("passes every Greenhouse check, the result posted through the kit's results endpoint", async () => {
  const secret = 'kit-greenhouse-conformance-secret-0123456789';
  partner = await startKitPartner({ VENDOR_RESULTS_SECRET: secret });
  const key = (await partner.customer('Acme Corp', ['JavaScript fundamentals'])).token;
  const otherKey = (await partner.customer('Globex', ['SQL'])).token;

  const run = await runGreenhouseConformance({ baseUrl: `${partner.url}/greenhouse`, key, otherKey, results: { secret } });

  expect(run.results.filter((r) => !r.ok).map((r) => `${r.id}: ${r.detail}`)).toEqual([]);
  expect(run.results.map((r) => r.id)).toEqual(GREENHOUSE_CHECKS.map((c) => c.id));
  expect(run.notRun).toEqual([]);
  // The interview the checker completed is the kit's report, a Greenhouse one, its result stored.
  const interview = /"([0-9a-f-]{36})"/.exec(run.results.find((r) => r.id === 'send_test.create')!.detail)![1];
  const rows = await rowsOf(partner.sql, 'SELECT status, platform FROM invitations WHERE report_id = ?', interview);
  expect(rows).toEqual([{ status: 'completed', platform: 'greenhouse' }]);
});

it('passes as a user runs it: `npm run conformance -- --platform greenhouse` against the partner started as `npm start` runs its build', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-greenhouse-process-'));
  const secret = 'kit-greenhouse-process-secret-0123456789ab';
  const settings = await freshDatabase(dir);
  const server = startPartnerProcess({ ...settings, VENDOR_RESULTS_SECRET: secret, LOG_LEVEL: 'info' });
  try {
    const port = await server.port;
    // The customers, made in the database the server migrated, as `npm run accounts` would.
    const database = await openPartnerDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL });
    const [key, otherKey] = await database.sql.transaction(async (tx) => {
      const accounts = accountStore(tx, systemClock);
      const made = [];
      for (const [name, test] of [['Acme Corp', 'JavaScript fundamentals'], ['Globex', 'SQL']] as const) {
        const { account, token } = await accounts.create(name, tx);
        await addDemoTests(tx, systemClock, account.id, [test]);
        made.push(token);
      }
      return made;
    });
    await database.close();
    const checker = spawn(
      process.execPath,
      kitProcess('scripts/conformance.ts', ['--platform', 'greenhouse', `http://127.0.0.1:${port}/greenhouse`, '--key', key!, '--other-key', otherKey!, '--results-secret', secret]),
      { cwd: path.resolve(import.meta.dirname, '../..'), env: { PATH: process.env.PATH ?? '' } },
    );
    let out = '';
    checker.stdout.on('data', (d) => (out += d));
    checker.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => checker.once('exit', resolve));
    expect(out.trim().split('\n').at(-1), out).toBe(`${GREENHOUSE_CHECKS.length} passed, 0 failed`);
    expect(code, out).toBe(0);
    for (const secretText of [key!, otherKey!, secret]) expect(out).not.toContain(secretText);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});
