import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { HIBOB_CHECKS } from '../../src/conformance/platforms/hibob/checks.js';
import { runHibobConformance } from '../../src/conformance/platforms/hibob/run.js';
import { systemClock } from '../../src/lib/clock.js';
import type { Sql } from '../../src/lib/sql.js';
import { accountStore } from '../../src/partner/accounts/store.js';
import { connectionStore } from '../../src/partner/connections/store.js';
import { openPartnerDatabase } from '../../src/partner/db/open.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { freshDatabase, rowsOf } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { startKitPartner, type KitPartner } from '../support/kit-partner.js';
import { kitProcess, startPartnerProcess } from '../support/net.js';

/**
 * The kit's own partner passes every HiBob check: its OAuth callback and listener under /hibob,
 * its catalog registered with each company's token, orders read and completed through its results
 * endpoint, its tokens refreshed after a 401 and once they expire — with the checker playing Bob's
 * token URL and API. Started in this process as `npm start` starts it, and as a user runs it: the
 * checker's command line against the partner as `npm start` runs its build, started with the
 * settings the checker printed before Enter is pressed. The companies are linked to accounts with
 * tests beforehand, as an operator does (docs/hibob.md §2), and PUBLIC_URL is an https address, as
 * Bob requires of a result link. On SQLite and on PostgreSQL (vitest.config.ts runs this file in
 * both projects).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const LINK_SECRET = 'kit-hibob-conformance-link-secret-0123456789';
const ADMIN_TOKEN = 'kit-hibob-conformance-admin-token-0123456789';
const PUBLIC_URL = 'https://partner.example';


/** Acme's and Globex's accounts, with a test each, linked beforehand to Bob companies A and B. */
async function linkCompanies(sql: Sql, companies: { a: string; b: string }): Promise<void> {
  await sql.transaction(async (tx) => {
    const accounts = accountStore(tx, systemClock);
    const connections = connectionStore(tx, systemClock, LINK_SECRET);
    for (const [name, test, company] of [['Acme Corp', 'JavaScript fundamentals', companies.a], ['Globex', 'SQL', companies.b]] as const) {
      const { account } = await accounts.create(name, tx);
      await addDemoTests(tx, systemClock, account.id, [test]);
      expect(await connections.connect(account.id, 'hibob', company, tx)).toBe(true);
    }
  });
}

// The two run at once, each with its partner and checker: most of either is waiting (token.after_expiry
// waits for its tokens to expire; the second for processes to start), which the other fills.
it.concurrent("passes every HiBob check, the results posted through the kit's results endpoint", async ({ expect, onTestFinished }) => {
  let partner: KitPartner | undefined;
  onTestFinished(() => partner?.close());
  const secret = 'kit-hibob-conformance-secret-0123456789';
  const run = await runHibobConformance({
    results: { secret },
    // The partner is started with what the run says it must have: Bob's URLs, the app's credentials, the webhook secret.
    ready: async (setup) => {
      partner = await startKitPartner({
        PUBLIC_URL,
        ADMIN_TOKEN,
        VENDOR_RESULTS_SECRET: secret,
        CANDIDATE_LINK_SECRET: LINK_SECRET,
        HIBOB_API_URL: setup.apiUrl,
        HIBOB_TOKEN_URL: setup.tokenUrl,
        HIBOB_CLIENT_ID: setup.clientId,
        HIBOB_CLIENT_SECRET: setup.clientSecret,
        HIBOB_WEBHOOK_SECRET: setup.webhookSecret,
      });
      // On the partner's own connection: it is running in this process.
      await linkCompanies(partner.ownSql, setup.companies);
      // PUBLIC_URL is the address Bob knows it by; the checker reaches it here.
      return { baseUrl: `http://127.0.0.1:${partner.port}/hibob` };
    },
  });

  expect(run.results.filter((r) => !r.ok).map((r) => `${r.id}: ${r.detail}`)).toEqual([]);
  expect(run.results.map((r) => r.id)).toEqual(HIBOB_CHECKS.map((c) => c.id));
  expect(run.notRun).toEqual([]);
  // The partner goes on with the last order after Bob saw its read: its events are all handled, then.
  await eventually(async () => expect(await rowsOf(partner!.sql, "SELECT assessment_request_id FROM hibob_inbox WHERE status = 'pending'")).toEqual([]), {
    what: "the partner's Bob events handled",
  });
  // What the run left: Acme's six orders, Ada's and Barbara's completed, Grace's canceled in Bob; nothing of Globex's.
  const rows = await rowsOf(
    partner!.sql,
    "SELECT i.email, i.status, i.canceled_by, i.platform, a.name FROM invitations i JOIN accounts a ON a.id = i.account_id ORDER BY i.id",
  );
  expect(rows).toEqual(
    [
      ['ada@example.com', 'completed', null],
      ['grace@example.com', 'canceled', 'platform'],
      ['alan@example.com', 'sent', null],
      ['barbara@example.com', 'completed', null],
      ['katherine@example.com', 'sent', null],
      ['margaret@example.com', 'sent', null],
    ].map(([email, status, canceledBy]) => ({ email, status, canceled_by: canceledBy, platform: 'hibob', name: 'Acme Corp' })),
  );
  // The three copies of Ada's delivery were counted, not stored.
  expect(await rowsOf(partner!.sql, "SELECT duplicates FROM hibob_inbox WHERE event_type = 'assessment.triggered' AND duplicates > 0")).toEqual([{ duplicates: 3 }]);
});

/** A port free now, for the checker and the partner to agree on before either starts. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

it.concurrent('passes as a user runs it: `npm run conformance -- --platform hibob … --wait`, the partner started as `npm start` runs its build with the settings printed', async ({ expect }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-hibob-process-'));
  const secret = 'kit-hibob-process-secret-0123456789abcdef';
  const [receiverPort, partnerPort] = [await freePort(), await freePort()];
  const companies = { a: '620400', b: '730511' };
  const settings = await freshDatabase(dir);
  const checker = spawn(
    process.execPath,
    kitProcess('scripts/conformance.ts', [
      '--platform',
      'hibob',
      `http://127.0.0.1:${partnerPort}/hibob`,
      '--company',
      companies.a,
      '--other-company',
      companies.b,
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
  let server: ReturnType<typeof startPartnerProcess> | undefined;
  try {
    // The settings the user is told to start the partner with, then Enter awaited.
    const printed = await new Promise<string>((resolve, reject) => {
      const look = () => out.includes('then press Enter.') && resolve(out);
      checker.stdout.on('data', look);
      void exited.then((code) => reject(new Error(`the checker exited (${code}) before asking for Enter:\n${out}`)));
    });
    expect(printed).toContain(`installs the Bob companies A = ${companies.a} and B = ${companies.b}.`);
    const line = printed.split('\n').find((l) => l.startsWith('HIBOB_API_URL='));
    expect(line, printed).toMatch(
      new RegExp(
        `^HIBOB_API_URL=http://127\\.0\\.0\\.1:${receiverPort}/v1 HIBOB_TOKEN_URL=http://127\\.0\\.0\\.1:${receiverPort}/oauth2/token ` +
          'HIBOB_CLIENT_ID=conformance-hibob-client-[0-9a-f]+ HIBOB_CLIENT_SECRET=conformance-hibob-secret-[0-9a-f]+ HIBOB_WEBHOOK_SECRET=conformance-hibob-webhook-[0-9a-f]+$',
      ),
    );
    const hibob = Object.fromEntries(line!.split(' ').map((pair) => pair.split('=') as [string, string]));

    // Started with them, as the user does, then the companies linked to their accounts.
    const env = { ...settings, CANDIDATE_LINK_SECRET: LINK_SECRET };
    server = startPartnerProcess({ ...env, ...hibob, PORT: String(partnerPort), PUBLIC_URL, ADMIN_TOKEN, VENDOR_RESULTS_SECRET: secret });
    expect(await server.port).toBe(partnerPort);
    const database = await openPartnerDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL });
    await linkCompanies(database.sql, companies);
    await database.close();
    checker.stdin.write('\n');

    const code = await exited;
    expect(out.trim().split('\n').at(-1), out).toBe(`${HIBOB_CHECKS.length} passed, 0 failed`);
    expect(code, out).toBe(0);
    expect(out).not.toContain('○ not run');
    expect(out).not.toContain(secret);
    // Nothing the partner logged holds a token Bob issued, nor the app's secrets.
    expect(server.output()).not.toMatch(/conformance-bob-(access|refresh)-|conformance-hibob-(secret|webhook)-/);
  } finally {
    checker.kill('SIGTERM');
    await exited;
    server?.child.kill('SIGTERM');
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});
