import { readdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { DELIVERY_RETRY } from '../../src/partner/updates/policy.js';
import { capturedLogger } from '../support/log.js';
import { flowHarness, linkIn, sendBody } from './support.js';

describe('invitation e-mail delivery', () => {
  it('when the JSON transport sends an invitation, then the rendered e-mail is kept with its outbox row', async () => {
    const h = await flowHarness();
    try {
      const c = await h.customer('Acme', ['SQL basics']);
      const body = sendBody(c.tests[0]!.id, { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' });
      await h.send(c.token, body);
      expect(await h.startAndMail()).toMatchObject({ sent: 1 });
      const row = (await h.row('SELECT status, recipient, subject, message FROM mail_outbox WHERE report_id = ?', body.report_id))!;
      expect(row).toMatchObject({ status: 'sent', recipient: 'grace@example.com', subject: 'Acme invites you to take the SQL basics test' });
      const message = JSON.parse(row.message as string) as { from: unknown; to: unknown; subject: string; text: string; html: string };
      expect(message).toMatchObject({
        from: { name: 'Demo Assessments', address: 'no-reply@partner.localhost' },
        to: [{ name: 'Grace Hopper', address: 'grace@example.com' }],
        subject: 'Acme invites you to take the SQL basics test',
      });
      const { candidate_url } = (await h.row('SELECT candidate_url FROM invitations WHERE report_id = ?', body.report_id))!;
      expect(linkIn(message.text)).toBe(candidate_url);
      expect(message.html).toContain('/take?token=');
      expect(await h.mails()).toEqual([message]);
      // Nothing beside the database itself.
      expect(readdirSync(h.dir).filter((f) => !/^partner\.db(-wal|-shm)?$/.test(f))).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it.each([
    [
      'assessment',
      'scripts/partner-manifest.json',
      'Demo Assessments',
      'SQL basics',
      'Acme invites you to take the SQL basics test',
      ['Acme invites you to take the SQL basics test as part of your application.', 'Start the test:'],
    ],
    [
      'background_check',
      'scripts/partner-manifest.background-check.json',
      'Demo Background Checks',
      'Criminal record check',
      'Acme requested a background check: your consent is needed',
      ['Acme has asked Demo Background Checks for a background check (Criminal record check) as part of your application.', 'Give consent:'],
    ],
    [
      'reference_check',
      'scripts/partner-manifest.reference-check.json',
      'Demo Reference Checks',
      'Two professional references',
      'Acme requested a reference check: may we contact your referees?',
      ['Acme has asked Demo Reference Checks for a reference check (Two professional references)', 'Before we contact your referees, we need your consent.', 'Give consent:'],
    ],
  ] as const)(
    "%s: the e-mail's subject and words are its kind's templates, from and signed by the manifest's name",
    async (kind, manifest, vendor, test, subject, lines) => {
      const h = await flowHarness({ kind, env: { PARTNER_MANIFEST: manifest } });
      try {
        const c = await h.customer('Acme', [test]);
        const body = sendBody(c.tests[0]!.id, { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' });
        await h.send(c.token, body);
        expect(await h.startAndMail()).toMatchObject({ sent: 1 });
        expect(await h.row('SELECT subject FROM mail_outbox WHERE report_id = ?', body.report_id)).toEqual({ subject });
        const [message] = await h.mails();
        expect(message).toMatchObject({ from: { name: vendor, address: 'no-reply@partner.localhost' }, subject });
        for (const line of lines) expect(message!.text).toContain(line);
        expect(message!.text.trimEnd().split('\n').at(-1)).toBe(vendor);
        expect(message!.html).toContain(`<p style="color: #667085; font-size: 13px">${vendor}</p>`);
        if (kind !== 'assessment') expect(message!.text).not.toMatch(/test as part|Start the test/);
      } finally {
        await h.close();
      }
    },
  );

  /**
   * Three invitations started, their e-mails due, and a mail server that answers after `delayMs`
   * (a function: per e-mail, in the order they are sent); each send notes the outbox statuses
   * another connection sees (only what was committed): on SQLite a second connection to the file,
   * on PostgreSQL one of the pool's (the sender's transaction holds a connection of its own).
   */
  async function threeDueWithWatchedMailer(delayMs: number | ((n: number) => Promise<void>), connections = 1) {
    const seenWhileSending: string[][] = [];
    let statuses = async (): Promise<string[]> => [];
    let sends = 0;
    const log = capturedLogger();
    const h = await flowHarness({
      logger: log.logger,
      env: { SMTP_MAX_CONNECTIONS: String(connections) },
      mailer: (real) => ({
        ...real,
        async send(m) {
          seenWhileSending.push(await statuses());
          if (typeof delayMs === 'function') await delayMs(sends++);
          else if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
          return real.send(m);
        },
      }),
    });
    const other = h.sql.dialect === 'sqlite' ? new Database(h.dbFile, { readonly: true }) : undefined;
    const query = 'SELECT status FROM mail_outbox ORDER BY id';
    statuses = async () =>
      other ? other.prepare<[], string>(query).pluck().all() : (await h.sql.all<{ status: string }>(query)).map((r) => r.status);
    const c = await h.customer('Acme', ['SQL basics']);
    const reportIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const body = sendBody(c.tests[0]!.id);
      await h.send(c.token, body);
      reportIds.push(body.report_id);
    }
    await h.starter.runOnce();
    await h.platformAccepts();
    // The server's lines, not the access log's (the sends' requests).
    const serverLog = () => log.entries().filter((e) => e.msg !== 'request');
    return { h, reportIds, log: serverLog, seenWhileSending, statuses, close: () => (other?.close(), h.close()) };
  }

  it('when several e-mails are due, then what became of them is recorded together after the batch: one commit, not one each', async () => {
    const t = await threeDueWithWatchedMailer(0);
    // The clock the batch's 100 ms are measured on stands still: a loaded machine taking longer for
    // three sends must not make this a test of the time limit.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      expect(await t.h.sender.runOnce()).toMatchObject({ sent: 3 });
      expect(t.seenWhileSending).toEqual([Array(3).fill('pending'), Array(3).fill('pending'), Array(3).fill('pending')]);
      expect(await t.statuses()).toEqual(['sent', 'sent', 'sent']);
      // One log line for the batch's starts and one for its e-mails, each naming every report.
      expect(t.log().map((e) => [e.msg, e.reportIds])).toEqual([
        ['3 invitations started', t.reportIds],
        ['3 e-mails sent', t.reportIds],
      ]);
    } finally {
      vi.useRealTimers();
      await t.close();
    }
  });

  it('when the mail server is slow, then the e-mails it already took are recorded without waiting for the rest of the batch', async () => {
    const t = await threeDueWithWatchedMailer(150);
    try {
      expect(await t.h.sender.runOnce()).toMatchObject({ sent: 3 });
      expect(t.seenWhileSending).toEqual([
        ['pending', 'pending', 'pending'],
        ['sent', 'pending', 'pending'],
        ['sent', 'sent', 'pending'],
      ]);
    } finally {
      await t.close();
    }
  });

  it('when one send hangs, then the e-mails sent beside it on the other connections are recorded meanwhile', async () => {
    let release = () => {};
    const hung = new Promise<void>((resolve) => (release = resolve));
    const t = await threeDueWithWatchedMailer((n) => (n === 0 ? hung : Promise.resolve()), 2);
    try {
      const run = t.h.sender.runOnce();
      await expect.poll(t.statuses, { timeout: 60_000 }).toEqual(['pending', 'sent', 'sent']);
      release();
      expect(await run).toMatchObject({ sent: 3 });
      expect(await t.statuses()).toEqual(['sent', 'sent', 'sent']);
    } finally {
      release();
      await t.close();
    }
  });

  it('when the server stops, then the sender begins no more e-mails and records the ones it sent; the rest stay queued', async () => {
    const stopping = new AbortController();
    let sends = 0;
    const h = await flowHarness({
      env: { SMTP_MAX_CONNECTIONS: '2' },
      mailer: (real) => ({
        ...real,
        async send(m) {
          if (++sends === 3) stopping.abort(); // SIGTERM while the third is in flight
          return real.send(m);
        },
      }),
    });
    try {
      const c = await h.customer('Acme', ['SQL basics']);
      for (let i = 0; i < 25; i++) await h.send(c.token, sendBody(c.tests[0]!.id));
      await h.starter.runOnce();
      await h.platformAccepts();
      const run = await h.sender.runOnce(stopping.signal);
      expect(run.sent).toBeGreaterThanOrEqual(3);
      expect(run.sent).toBeLessThanOrEqual(4); // what the two connections had in hand
      expect((await h.row("SELECT count(*) AS n FROM mail_outbox WHERE status = 'sent'"))!.n).toBe(run.sent);
      expect((await h.row("SELECT count(*) AS n FROM mail_outbox WHERE status = 'pending'"))!.n).toBe(25 - run.sent);
      expect(sends).toBe(run.sent);
    } finally {
      await h.close();
    }
  });

  it('when the SMTP server cannot be reached, then the e-mail is retried with backoff and finally given up', async () => {
    const h = await flowHarness({ env: { MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://127.0.0.1:9' } });
    try {
      const c = await h.customer('Acme', ['SQL basics']);
      await h.send(c.token, sendBody(c.tests[0]!.id));
      await h.starter.runOnce();
      await h.platformAccepts();
      const t0 = h.clock.now();
      expect(await h.sender.runOnce()).toMatchObject({ retry: 1, sent: 0 });
      const row = (await h.row('SELECT status, attempts, next_attempt_at, last_error FROM mail_outbox'))!;
      expect(row).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: new Date(t0 + 10_000).toISOString() });
      expect(row.last_error).toMatch(/ECONNREFUSED/);
      expect(await h.sender.runOnce()).toMatchObject({ retry: 0 }); // not due yet

      // Near the end of the window, a failure whose retry would fall after it gives up.
      h.clock.set(t0 + DELIVERY_RETRY.giveUpAfterMs - 1);
      expect(await h.sender.runOnce()).toMatchObject({ dead: 1 });
      expect(await h.row('SELECT status, attempts FROM mail_outbox')).toEqual({ status: 'dead', attempts: 2 });
      expect(await h.mail.nextDueAt()).toBeUndefined();
    } finally {
      await h.close();
    }
  });

  it('when the invitation is canceled before its e-mail is due again, then the e-mail is skipped, not sent', async () => {
    const h = await flowHarness({ env: { MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://127.0.0.1:9' } });
    try {
      const c = await h.customer('Acme', ['SQL basics']);
      const body = sendBody(c.tests[0]!.id);
      await h.send(c.token, body);
      await h.starter.runOnce();
      await h.platformAccepts();
      await h.sender.runOnce(); // fails, retry later
      await h.lifecycle.cancel(body.report_id, 'vendor');
      h.clock.advance(60_000);
      expect(await h.sender.runOnce()).toMatchObject({ sent: 0, retry: 0 });
      expect(await h.row('SELECT status, last_error FROM mail_outbox')).toEqual({ status: 'skipped', last_error: 'the invitation was canceled' });
    } finally {
      await h.close();
    }
  });
});
