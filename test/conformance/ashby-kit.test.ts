import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ASHBY_CHECKS } from '../../src/conformance/platforms/ashby/checks.js';
import { runAshbyConformance } from '../../src/conformance/platforms/ashby/run.js';
import { systemClock } from '../../src/lib/clock.js';
import { accountStore } from '../../src/partner/accounts/store.js';
import { connectionStore } from '../../src/partner/connections/store.js';
import { openPartnerDatabase } from '../../src/partner/db/open.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { freshDatabase, rowOf, rowsOf } from '../support/database.js';
import { startKitPartner, type KitPartner } from '../support/kit-partner.js';
import { kitProcess, startPartnerProcess } from '../support/net.js';

/**
 * The kit's own partner passes every Ashby check: its three routes under /ashby, its results
 * endpoint taking the candidate's progress and the result, and the assessment.update it then posts
 * to the checker's receiver, playing Ashby's API, with each customer's Ashby API key. Started in
 * this process as `npm start` starts it, and as a user runs it: the checker's command line against
 * the partner as `npm start` runs its build, its settings printed and set before Enter is pressed.
 * On SQLite and on PostgreSQL (vitest.config.ts runs this file in both projects).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const LINK_SECRET = 'kit-ashby-conformance-link-secret-0123456789';

let partner: KitPartner | undefined;
afterEach(async () => {
  await partner?.close();
  partner = undefined;
});

it("passes every Ashby check, the progress and the result posted through the kit's results endpoint", async () => {
  const secret = 'kit-ashby-conformance-secret-0123456789';
  const run = await runAshbyConformance({
    results: { secret },
    // The partner is started with what the run says it must have: its ASHBY_API_URL and each customer's Ashby API key.
    ready: async ({ apiUrl, apiKeys }) => {
      partner = await startKitPartner({ VENDOR_RESULTS_SECRET: secret, CANDIDATE_LINK_SECRET: LINK_SECRET, ASHBY_API_URL: apiUrl });
      const connections = connectionStore(partner.sql, systemClock, LINK_SECRET);
      const keys = [];
      for (const [name, test, ashbyKey] of [['Acme Corp', 'JavaScript fundamentals', apiKeys.key], ['Globex', 'SQL', apiKeys.otherKey]] as const) {
        const { token } = await partner.customer(name, [test]);
        const account = await rowOf(partner.sql, 'SELECT id FROM accounts WHERE name = ?', name);
        await connections.setCredential(Number(account!.id), 'ashby', ashbyKey);
        keys.push(token);
      }
      return { baseUrl: `${partner.url}/ashby`, key: keys[0], otherKey: keys[1] };
    },
  });

  expect(run.results.filter((r) => !r.ok).map((r) => `${r.id}: ${r.detail}`)).toEqual([]);
  expect(run.results.map((r) => r.id)).toEqual(ASHBY_CHECKS.map((c) => c.id));
  expect(run.notRun).toEqual([]);
  // What the run left: Ada's assessment completed, Grace's canceled in Ashby, the other customer's too; all Ashby's.
  const rows = await rowsOf(partner!.sql, 'SELECT email, status, canceled_by, platform FROM invitations ORDER BY id');
  expect(rows).toEqual([
    { email: 'ada@example.com', status: 'completed', canceled_by: null, platform: 'ashby' },
    { email: 'grace@example.com', status: 'canceled', canceled_by: 'platform', platform: 'ashby' },
    { email: 'edsger@example.com', status: 'canceled', canceled_by: 'platform', platform: 'ashby' },
  ]);
});

/** A port free now, for the receiver and the partner's ASHBY_API_URL to agree on before either starts. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

it('passes as a user runs it: `npm run conformance -- --platform ashby … --wait` against the partner started as `npm start` runs its build', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-ashby-process-'));
  const secret = 'kit-ashby-process-secret-0123456789abcdef';
  const receiverPort = await freePort();
  const settings = await freshDatabase(dir);
  const env = { ...settings, CANDIDATE_LINK_SECRET: LINK_SECRET };
  // ASHBY_API_URL is where the checker will listen (--receiver-port): set before the partner starts, as it must be.
  const server = startPartnerProcess({ ...env, VENDOR_RESULTS_SECRET: secret, ASHBY_API_URL: `http://127.0.0.1:${receiverPort}`, LOG_LEVEL: 'info' });
  try {
    const port = await server.port;
    // The customers, made in the database the server migrated, as `npm run accounts -- create` would.
    const database = await openPartnerDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL });
    const accounts = await database.sql.transaction(async (tx) => {
      const store = accountStore(tx, systemClock);
      const made = [];
      for (const [name, test] of [['Acme Corp', 'JavaScript fundamentals'], ['Globex', 'SQL']] as const) {
        const { account, token } = await store.create(name, tx);
        await addDemoTests(tx, systemClock, account.id, [test]);
        made.push({ id: account.id, token });
      }
      return made;
    });
    await database.close();

    const checker = spawn(
      process.execPath,
      kitProcess('scripts/conformance.ts', [
        '--platform',
        'ashby',
        `http://127.0.0.1:${port}/ashby`,
        '--key',
        accounts[0]!.token,
        '--other-key',
        accounts[1]!.token,
        '--results-secret',
        secret,
        '--receiver-port',
        String(receiverPort),
        '--wait',
      ]),
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } },
    );
    let out = '';
    checker.stdout.on('data', (d) => (out += d));
    checker.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => checker.once('exit', resolve));
    // The settings the user is told to set, then Enter awaited.
    const printed = await new Promise<string>((resolve, reject) => {
      const look = () => out.includes('then press Enter.') && resolve(out);
      checker.stdout.on('data', look);
      void exited.then((code) => reject(new Error(`the checker exited (${code}) before asking for Enter:\n${out}`)));
    });
    expect(printed).toContain(`\nASHBY_API_URL=http://127.0.0.1:${receiverPort}\n`);
    const keyA = /of the customer of --key to (conformance-ashby-[0-9a-f]+),/.exec(printed)?.[1];
    const keyB = /of the customer of --other-key to (conformance-ashby-[0-9a-f]+) \(a kit partner: npm run accounts -- credential set <account-id> ashby <key>\)/.exec(printed)?.[1];
    expect(keyA, printed).toBeDefined();
    expect(keyB, printed).toBeDefined();
    // Set as the heading says, with the command it names (the key on standard input, as its usage advises).
    for (const [account, key] of [[accounts[0]!, keyA!], [accounts[1]!, keyB!]] as const) {
      const set = spawn(process.execPath, kitProcess('scripts/accounts.ts', ['credential', 'set', String(account.id), 'ashby']), {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
      });
      let said = '';
      set.stdout.on('data', (d) => (said += d));
      set.stderr.on('data', (d) => (said += d));
      set.stdin.end(`${key}\n`);
      expect(await new Promise((resolve) => set.once('exit', resolve)), said).toBe(0);
    }
    checker.stdin.write('\n');

    const code = await exited;
    expect(out.trim().split('\n').at(-1), out).toBe(`${ASHBY_CHECKS.length} passed, 0 failed`);
    expect(code, out).toBe(0);
    expect(out).not.toContain('○ not run');
    for (const secretText of [accounts[0]!.token, accounts[1]!.token, secret]) expect(out).not.toContain(secretText);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});
