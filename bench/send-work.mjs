// What a send sets off after its answer, written by hand for the baselines (baseline-server.mjs, and
// the plain Express reference that does the same work): the start of the invitation (its
// candidate link signed), the report update PATCHed to the platform (platform-accepts.mjs stands in
// for it in `npm run bench`), and once the platform accepted it the invitation e-mail, rendered and
// kept through nodemailer's JSON transport as the partner's is. The partner's send is measured
// against a server that does this much, with the same durability:
//
// - on SQLite (`sqliteSendWork`), each step is a row of an outbox, written in the transaction of
//   the change that calls for it — the first in the send's own, before the answer. A worker in the
//   same process takes the due rows a batch at a time, does them, and records each batch in one
//   transaction with the rows of the next steps. A crash loses nothing: whatever is pending is done
//   when the server starts again. A delivery the platform refuses is retried with a backoff.
// - on PostgreSQL (callbacks-work-postgres.mjs), the three statements that store each step are
//   that file's; the request to the platform and the e-mail come from here (`platformClient`,
//   `invitationMail`).
//
// What a careful hand leaves out and the partner does: claims that let several instances share the
// work, a log of every delivery attempt, templates a fork edits, the provider's own start.
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

// Resolved from the project's root, where the servers are run from.
const require = createRequire(path.join(process.cwd(), 'package.json'));

const DAY_MS = 24 * 60 * 60 * 1000;
/** The link secret and the platform's secret of the baselines: throwaway, as the bench's are. */
const LINK_SECRET = randomUUID();
const PLATFORM_SECRET = 'bench-partner-secret';

/** A link to `route` of the report, signed (HMAC-SHA256) to expire in `ttlMs`: what the candidate and the recruiter are given. */
export function signedLink(publicUrl, route, reportId, ttlMs, now = Date.now()) {
  const claim = `${reportId}.${Math.floor((now + ttlMs) / 1000)}`;
  return `${publicUrl}/${route}/${claim}.${createHmac('sha256', LINK_SECRET).update(`${route}.${claim}`).digest('base64url')}`;
}

/**
 * The report update's request to the platform: `PATCH {url}/api/p/bench/reports/{id}` with the
 * partner's secret, over node:http with kept-alive connections (at most 10 at once, as the
 * partner's). Resolves with the status; rejects when the platform cannot be reached.
 */
export function platformClient(url) {
  const base = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  return {
    deliver(reportId, body) {
      const payload = Buffer.from(body);
      return new Promise((resolve, reject) => {
        const req = http.request(
          {
            agent,
            host: base.hostname,
            port: base.port,
            method: 'PATCH',
            path: `/api/p/bench/reports/${reportId}`,
            headers: { 'content-type': 'application/json', 'content-length': payload.length, 'rt-partner-secret': PLATFORM_SECRET },
            timeout: 10_000,
          },
          (res) => res.resume().on('end', () => resolve(res.statusCode)),
        );
        req.on('timeout', () => req.destroy(new Error('the platform did not answer in time')));
        req.on('error', reject);
        req.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}

const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The invitation e-mail, its words the partner's (views/partner/mail/assessment/), rendered with
 * template literals and through nodemailer's JSON transport, with a Message-ID of its own (as the
 * partner gives one). Resolves with { messageId, subject, message }: the JSON to keep with the row.
 */
export function invitationMail() {
  const transport = require('nodemailer').createTransport({ jsonTransport: true });
  return async ({ reportId, firstName, lastName, email, testName, company, link }) => {
    const subject = `${company} invites you to take the ${testName} test`.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ');
    const text =
      `Hello ${firstName},\n\n${company} invites you to take the ${testName} test as part of your application.\n\nStart the test:\n${link}\n\n\n` +
      'The link is personal: please do not forward it. If you were not expecting this e-mail, you can ignore it.\n\nBench Partner\n';
    const html =
      `<!doctype html>\n<html lang="en">\n<body style="font-family: system-ui, sans-serif; color: #1d2330; line-height: 1.5">\n` +
      `  <p>Hello ${escapeHtml(firstName)},</p>\n  <p>${escapeHtml(company)} invites you to take the <strong>${escapeHtml(testName)}</strong> test as part of your application.</p>\n` +
      `  <p><a href="${escapeHtml(link)}" style="display: inline-block; background: #3151d3; color: #fff; padding: 10px 18px; border-radius: 4px; text-decoration: none">Start the test</a></p>\n` +
      '  <p style="color: #667085; font-size: 13px">The link is personal: please do not forward it. If you were not expecting this e-mail, you can ignore it.</p>\n' +
      '  <p style="color: #667085; font-size: 13px">Bench Partner</p>\n</body>\n</html>\n';
    const messageId = `<${reportId}@bench.invalid>`;
    const info = await transport.sendMail({
      from: 'Bench Partner <no-reply@bench.invalid>',
      to: { name: `${firstName} ${lastName}`, address: email },
      subject,
      text,
      html,
      messageId,
    });
    return { messageId, subject, message: info.message };
  };
}

/** The outbox of the SQLite baselines' schema (callbacks-work.mjs `seed`). */
export const SQLITE_OUTBOX = `
  CREATE TABLE outbox (id INTEGER PRIMARY KEY, invitation INTEGER NOT NULL, step TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL, body TEXT, last_status INTEGER, message_id TEXT, message TEXT, done_at TEXT);
  CREATE INDEX outbox_due ON outbox(next_at) WHERE status = 'pending';`;

/** Steps done per batch, and recorded per commit. */
const BATCH = 50;

/**
 * The send's background work on the SQLite baselines' database `db` (better-sqlite3, open):
 * `queue(invitationRowid)` in the send's transaction queues its start; `wake()` after that
 * transaction commits. Deliveries go to `platformUrl`. Starts at once on whatever a previous run
 * left pending.
 */
export function sqliteSendWork(db, { platformUrl, publicUrl = 'https://partner.example' }) {
  const platform = platformClient(platformUrl);
  const mail = invitationMail();
  const add = db.prepare('INSERT INTO outbox (invitation, step, next_at, body) VALUES (?, ?, ?, ?)');
  const due = db.prepare(`SELECT o.id, o.step, o.attempts, o.body, o.invitation, i.report_id, i.first_name, i.last_name, i.email, i.candidate_url,
      t.name AS test_name, a.name AS company
    FROM outbox o JOIN invitations i ON i.rowid = o.invitation JOIN tests t ON t.id = i.test_id JOIN accounts a ON a.id = i.account_id
    WHERE o.status = 'pending' AND o.next_at <= ? ORDER BY o.next_at, o.id LIMIT ${BATCH}`);
  const started = db.prepare("UPDATE invitations SET status = 'started', started_at = ?, candidate_url = ? WHERE rowid = ? AND started_at IS NULL");
  const accepted = db.prepare('UPDATE invitations SET accepted_at = ? WHERE rowid = ? AND accepted_at IS NULL');
  const done = db.prepare("UPDATE outbox SET status = 'done', attempts = attempts + 1, last_status = ?, done_at = ? WHERE id = ?");
  const mailed = db.prepare("UPDATE outbox SET status = 'done', attempts = attempts + 1, message_id = ?, message = ?, done_at = ? WHERE id = ?");
  const retry = db.prepare("UPDATE outbox SET status = CASE WHEN attempts + 1 >= 10 THEN 'dead' ELSE 'pending' END, attempts = attempts + 1, last_status = ?, next_at = ? WHERE id = ?");
  const nextDue = db.prepare("SELECT min(next_at) AS at FROM outbox WHERE status = 'pending'").pluck();
  const record = db.transaction((writes) => writes.forEach((w) => w()));

  /** One due step: its work, and the writes that record it (run in the batch's transaction). */
  async function step(row) {
    const at = new Date().toISOString();
    if (row.step === 'start') {
      const link = signedLink(publicUrl, 'take', row.report_id, 14 * DAY_MS);
      const body = JSON.stringify({ urls: { show: signedLink(publicUrl, 'results', row.report_id, 365 * DAY_MS), cancel: `${publicUrl}/callbacks/reports/${row.report_id}/cancel` } });
      return () => {
        started.run(at, link, row.invitation);
        done.run(null, at, row.id);
        add.run(row.invitation, 'update', Date.now(), body);
      };
    }
    if (row.step === 'update') {
      const status = await platform.deliver(row.report_id, row.body).catch(() => null);
      if (status >= 200 && status < 300) {
        return () => {
          done.run(status, at, row.id);
          if (accepted.run(at, row.invitation).changes) add.run(row.invitation, 'mail', Date.now(), null);
        };
      }
      return () => retry.run(status, Date.now() + 1000 * 2 ** row.attempts, row.id);
    }
    const sent = await mail({
      reportId: row.report_id, firstName: row.first_name, lastName: row.last_name, email: row.email,
      testName: row.test_name, company: row.company, link: row.candidate_url,
    });
    return () => mailed.run(sent.messageId, sent.message, at, row.id);
  }

  let running = false;
  let again = false;
  let scheduled = false;
  let timer;
  async function run() {
    if (running) return void (again = true);
    running = true;
    try {
      do {
        again = false;
        for (let rows = due.all(Date.now()); rows.length; rows = due.all(Date.now())) record(await Promise.all(rows.map(step)));
      } while (again);
      // A retry waits for its time.
      const at = nextDue.get();
      clearTimeout(timer);
      if (at !== null) timer = setTimeout(wake, Math.max(0, at - Date.now())).unref();
    } catch (err) {
      console.error(`background work failed: ${err.message}`);
    } finally {
      running = false;
    }
  }
  /** Runs the worker once this turn of the event loop is over: the sends of one turn start together. */
  function wake() {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      run();
    });
  }
  wake();
  return {
    queue: (invitation) => add.run(invitation, 'start', Date.now(), null),
    wake,
    close: () => (clearTimeout(timer), platform.close()),
  };
}
