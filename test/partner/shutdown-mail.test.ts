import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { describe, it, type expect } from 'vitest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { loadConfig } from '../../src/partner/config.js';
import { openPartnerDatabase } from '../../src/partner/db/open.js';
import { createLogger } from '../../src/lib/http/logger.js';
import { createMailer } from '../../src/partner/mail/transport.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { assemble } from '../../src/partner/assemble.js';
import { demoProvider } from '../../src/partner/provider/demo/index.js';
import { eventually } from '../support/eventually.js';
import { freshDatabase } from '../support/database.js';
import { startPartnerProcess, type PartnerProcess } from '../support/net.js';
import { smtpSink, type SmtpSink } from '../support/smtp-sink.js';

/**
 * Far more than goes out before the stop: the slow server takes some 50 a second (5 connections,
 * 100 ms each), so 200 would keep it busy for 4 s, four times the grace, where the stop comes after
 * the first 20; an exit within the grace is a stop, not a drain, and most of them are still pending
 * after it. More only lengthens the seeding and the drain on the next start.
 */
const INVITATIONS = 200;
/** Ten times a send to the slow server; the stuck server's test waits all of it. */
const GRACE_SECONDS = 1;
/** The mail sender's batch: what a stop may at worst send twice. */
const ONE_BATCH = 20;

/** `count` started invitations whose e-mails wait in the outbox, to candidate-<n>@example.com. */
async function seedPendingMail(settings: { DATABASE_PATH: string; DATABASE_URL?: string }, count: number): Promise<void> {
  const config = loadConfig({ ...settings, LOG_LEVEL: 'silent', PUBLIC_URL: 'http://127.0.0.1:1' });
  const database = await openPartnerDatabase(config);
  const { sql } = database;
  const dispatcher = new Agent();
  try {
    const parts = await assemble(config, {
      sql,
      logger: createLogger('silent'),
      clock: systemClock,
      publicUrl: config.publicUrl,
      mailer: createMailer(config.mail),
      dispatcher,
      provider: demoProvider(),
    });
    const { account } = await accountStore(sql, systemClock).create('Acme');
    const [test] = await sql.transaction((tx) => addDemoTests(tx, systemClock, account.id, ['SQL basics']));
    await sql.transaction(async (tx) => {
      for (let i = 0; i < count; i++) {
        const reportId = `5e1f0c2a-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
        await parts.invitations.create(
          {
            reportId,
            accountId: account.id,
            companyId: 3,
            candidateId: i + 1,
            testId: String(test!.id),
            testName: test!.name,
            firstName: 'Candidate',
            lastName: String(i),
            email: `candidate-${i}@example.com`,
            phone: null,
            extraInputs: {},
            platform: 'hiring-platform',
            platformData: {},
          },
          tx,
        );
        await parts.lifecycle.start({ reportId, platform: 'hiring-platform' }, `http://127.0.0.1:1/take?token=${i}`, tx);
        // What the delivery worker records when the platform accepts the report's first update:
        // the invitation e-mail is queued then (the platform first, updates/policy.ts).
        await parts.lifecycle.platformAnswered(tx, reportId, { accepted: true });
      }
    });
  } finally {
    await database.close();
    await dispatcher.close();
  }
}

const until = (condition: () => boolean | Promise<boolean>, what: string) =>
  eventually(async () => {
    if (!(await condition())) throw new Error(`not yet: ${what}`);
  }, { what });

/**
 * SIGTERM; resolves with the exit code once the process exits. One that never exits fails the test
 * at its outer time limit, and is killed when the test ends (`pendingMail`'s clean-up).
 */
async function terminate(server: PartnerProcess): Promise<number | null> {
  server.child.kill('SIGTERM');
  return server.exited;
}

type Expect = typeof expect;

/**
 * A database with INVITATIONS e-mails pending, and the SMTP servers and partner processes a test
 * starts on it: all stopped, and the folder removed, when the test ends.
 */
async function pendingMail(expect: Expect, onTestFinished: (fn: () => Promise<void>) => void) {
  const dir = mkdtempSync(path.join(tmpdir(), 'partner-shutdown-'));
  const settings = await freshDatabase(dir);
  const sinks: SmtpSink[] = [];
  const servers: PartnerProcess[] = [];
  onTestFinished(async () => {
    for (const s of servers.splice(0)) s.child.kill('SIGKILL');
    await Promise.all(sinks.splice(0).map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });
  await seedPendingMail(settings, INVITATIONS);
  // A connection of the test's own, to read what the partner processes recorded.
  const watching = await openPartnerDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL });
  onTestFinished(() => watching.close());
  const { sql } = watching;

  const start = (sink: SmtpSink) => {
    const server = startPartnerProcess({
      PORT: '0',
      ...settings,
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: sink.url,
      SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
    });
    servers.push(server);
    return server;
  };
  const sink = async (options: Parameters<typeof smtpSink>[0]) => {
    const s = await smtpSink(options);
    sinks.push(s);
    return s;
  };
  const statuses = () => sql.all<{ recipient: string | null; status: string }>('SELECT recipient, status FROM mail_outbox');

  /** The e-mails left are sent by the next start; every candidate has had theirs at least once, few twice. */
  async function restartAndDrain(first: SmtpSink): Promise<void> {
    const fast = await sink({});
    const again = start(fast);
    await again.port;
    await until(() => new Set([...first.recipients, ...fast.recipients]).size === INVITATIONS, 'every e-mail to arrive');
    await until(async () => (await statuses()).every((r) => r.status === 'sent'), 'every e-mail to be recorded as sent');
    expect(await terminate(again)).toBe(0);
    const duplicates = first.recipients.length + fast.recipients.length - INVITATIONS;
    expect(duplicates).toBeGreaterThanOrEqual(0);
    expect(duplicates).toBeLessThanOrEqual(ONE_BATCH);
  }

  return { start, sink, statuses, restartAndDrain };
}

// The two run at once, each on its own database, SMTP servers and processes: most of either is
// waiting (for a process to start, the slow server, the grace), which the other fills.
describe.concurrent('shutdown while e-mail is pending', () => {
  it(
    'when SIGTERM arrives with hundreds of e-mails queued for a slow SMTP server, then the process exits within the grace and the rest go out on the next start',
    async ({ expect, onTestFinished }) => {
      const { start, sink, statuses, restartAndDrain } = await pendingMail(expect, onTestFinished);
      const slow = await sink({ delayMs: 100 });
      const server = start(slow);
      await server.port;
      await until(() => slow.recipients.length >= 20, 'the first e-mails to go out');
      expect(await terminate(server)).toBe(0);
      expect(server.output()).toContain('"msg":"stopped"');

      // Whatever is recorded as sent, the server did receive; most is still pending.
      const rows = await statuses();
      const received = new Set(slow.recipients);
      const sent = rows.filter((r) => r.status === 'sent');
      expect(sent.every((r) => received.has(r.recipient!))).toBe(true);
      expect(received.size - sent.length).toBeLessThanOrEqual(ONE_BATCH);
      expect(rows.filter((r) => r.status === 'pending').length).toBeGreaterThan(INVITATIONS / 2);

      await restartAndDrain(slow);
    },
  );

  it(
    'when SIGTERM arrives while the SMTP server never answers, then the process still exits within the grace and nothing is lost',
    async ({ expect, onTestFinished }) => {
      const { start, sink, restartAndDrain } = await pendingMail(expect, onTestFinished);
      const stuck = await sink({ delayMs: 20, hangAfter: 50 });
      const server = start(stuck);
      await server.port;
      await until(() => stuck.recipients.length > 50, 'the server to stop answering');
      // The send it hangs on is abandoned at the end of the grace, and the process exits.
      expect(await terminate(server)).toBe(0);
      // Both said, in whichever order the two lines reached the pipe (the log is written off the event loop).
      expect(server.output()).toContain('"msg":"shutdown grace is over: closing what is still open"');
      expect(server.output()).toContain('"msg":"stopped"');

      await restartAndDrain(stuck);
    },
  );
});
