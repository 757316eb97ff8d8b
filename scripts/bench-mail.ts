/**
 * `npx tsx scripts/bench-mail.ts`: e-mails per second through the mail sender, the way it used to
 * send (one at a time, a new SMTP connection each) and the way it sends now (a pool of
 * SMTP_MAX_CONNECTIONS connections, as many e-mails in flight), in one run, against an SMTP server
 * on loopback (smtp-server, in its own process so it does not share this one's event loop) that
 * takes `delay` ms to accept each message: 20 ms (a realistic relay) and none.
 *
 * Each measurement seeds a fresh database with started invitations whose e-mails wait in the
 * outbox, and times `runOnce` until every one is sent: rendering, SMTP and the outbox records.
 *
 * Options (env): BENCH_MAIL_COUNT (300 e-mails per measurement), BENCH_MAIL_DELAYS (20,0),
 * BENCH_MAIL_CONNECTIONS (5).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { Agent } from 'undici';
import { systemClock } from '../src/lib/clock.js';
import { loadConfig, type Config } from '../src/partner/config.js';
import { openDb } from '../src/partner/db/open.js';
import { sqliteSql } from '../src/lib/sql.js';
import { createLogger } from '../src/lib/http/logger.js';
import { createMailer, type Mailer } from '../src/partner/mail/transport.js';
import { addDemoTests } from '../src/partner/provider/demo/catalog.js';
import { assemble } from '../src/partner/assemble.js';
import { demoProvider } from '../src/partner/provider/demo/index.js';

const COUNT = Number(process.env.BENCH_MAIL_COUNT ?? 300);
const DELAYS = (process.env.BENCH_MAIL_DELAYS ?? '20,0').split(',').map(Number);
const CONNECTIONS = Number(process.env.BENCH_MAIL_CONNECTIONS ?? 5);

/** `--sink <delayMs>`: this script as the SMTP server; prints its port. */
async function sink(delayMs: number): Promise<void> {
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => setTimeout(callback, delayMs));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  console.log((server.server.address() as AddressInfo).port);
}

async function startSink(delayMs: number, children: ChildProcess[]): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, '--sink', String(delayMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', (code) => reject(new Error(`SMTP sink exited ${code}`)));
  });
  return `smtp://127.0.0.1:${port}`;
}

/** The mailer as it was: a transport without a pool, so every message opens its own connection. */
function unpooledMailer(mail: Config['mail']): Mailer {
  const u = new URL(mail.smtpUrl!);
  const transport = nodemailer.createTransport({ host: u.hostname, port: Number(u.port), secure: false });
  return {
    async send(message) {
      const info = await transport.sendMail({ from: mail.from, ...message });
      return { messageId: info.messageId, message: null, envelope: { from: info.envelope.from || '', to: info.envelope.to } };
    },
    close: () => transport.close(),
  };
}

/** E-mails per second for `COUNT` e-mails waiting in a fresh outbox. */
async function measure(smtpUrl: string, way: 'before' | 'after'): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-mail-'));
  const dbFile = path.join(dir, 'partner.db');
  const db = openDb(dbFile);
  const dispatcher = new Agent();
  const config = loadConfig({
    DATABASE_PATH: dbFile,
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://127.0.0.1:1',
    MAIL_TRANSPORT: 'smtp',
    SMTP_URL: smtpUrl,
    SMTP_MAX_CONNECTIONS: String(way === 'before' ? 1 : CONNECTIONS),
  });
  const mailer = way === 'before' ? unpooledMailer(config.mail) : createMailer(config.mail);
  try {
    const sql = sqliteSql(db);
    const parts = await assemble(config, {
      sql,
      logger: createLogger('silent'),
      clock: systemClock,
      publicUrl: config.publicUrl,
      mailer,
      dispatcher,
      provider: demoProvider(),
    });
    const { account } = await parts.accounts.create('Acme');
    const [test] = await sql.transaction((tx) => addDemoTests(tx, systemClock, account.id, ['SQL basics']));
    await sql.transaction(async (tx) => {
      for (let i = 0; i < COUNT; i++) {
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
      }
    });
    const t0 = performance.now();
    const counts = await parts.sender.runOnce();
    const seconds = (performance.now() - t0) / 1000;
    if (counts.sent !== COUNT) throw new Error(`sent ${counts.sent} of ${COUNT}: ${JSON.stringify(counts)}`);
    return COUNT / seconds;
  } finally {
    mailer.close();
    await dispatcher.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const children: ChildProcess[] = [];
  try {
    console.log(`${COUNT} e-mails per measurement; after: a pool of ${CONNECTIONS} connections, ${CONNECTIONS} e-mails in flight\n`);
    console.log('| SMTP server delay per message | before: one at a time, new connection each | after: pooled | ratio |');
    console.log('|---|---|---|---|');
    for (const delay of DELAYS) {
      const url = await startSink(delay, children);
      const before = await measure(url, 'before');
      const after = await measure(url, 'after');
      console.log(`| ${delay} ms | ${before.toFixed(1)} e-mails/s | ${after.toFixed(1)} e-mails/s | ${(after / before).toFixed(1)}× |`);
    }
  } finally {
    for (const child of children) child.kill();
  }
}

if (process.argv[2] === '--sink') await sink(Number(process.argv[3]));
else await main();
