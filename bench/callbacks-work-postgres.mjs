// The partner callbacks' data work on PostgreSQL, as a careful hand would write it and nothing
// else: the reference `npm run bench` measures the partner on PostgreSQL against
// (baseline-server.mjs --postgres). It works on the partner's own tables — the bench seeds the
// database through the partner's migrations and account store — and does what the partner's
// callbacks and background work must do there, in as few round trips as the statements allow:
//
//   validate_token   1  the account of the token, by its lookup key (unique index); the digest
//                       compared in constant time (an unbound account is bound: one more)
//   tests            1  that lookup joined to the account's tests
//   send_candidate   2  that lookup, and the invitation stored if the test is the account's
//                       (one INSERT … SELECT; a replay or an unknown test reads once more)
//     after the answer, as the partner's background loops do it:
//                    3  started, with the report's first update queued (one statement);
//                       the update marked delivered, the report marked accepted and the e-mail
//                       queued (one); the e-mail marked sent, its message kept (one)
//
// Given the platform's URL (`--platform`, as `npm run bench` runs it), the report update is
// delivered there before it is marked delivered, the links are signed and the e-mail is rendered
// through nodemailer's JSON transport (send-work.mjs), as the partner's are: the same work as the
// partner's send. Without it, the statements alone.
//
// What the partner does beyond that is its own cost: claiming work in batches for several
// instances, the provider's start, the log of each delivery attempt, templates a fork edits.
//
// Two drivers, to compare them on the same statements: `pg` (node-postgres, the partner's: each
// statement named, prepared once per connection) and `postgres` (postgres.js: each prepared once
// per connection). 64-bit integers come back as numbers, as the partner reads them. Each callback
// takes the Authorization header (and the parsed body) and resolves to { status, body }.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { invitationMail, platformClient, signedLink } from './send-work.mjs';

// Resolved from the project's root, where the servers are run from.
const require = createRequire(path.join(process.cwd(), 'package.json'));

/** Connections per process, as the partner's pool (src/lib/sql.ts). */
const POOL_SIZE = 10;

/** `query(text, values)` → the rows, and `close()`, over one of the two drivers. */
export function driver(name, url) {
  if (name === 'pg') {
    const pg = require('pg');
    const int8 = pg.types.builtins.INT8;
    const pool = new pg.Pool({
      connectionString: url,
      max: POOL_SIZE,
      types: { getTypeParser: (oid, format) => (oid === int8 ? Number : pg.types.getTypeParser(oid, format)) },
    });
    pool.on('error', () => undefined); // an idle connection that broke is dropped; the next query opens another
    const names = new Map();
    const named = (text) => names.get(text) ?? (names.set(text, `q${names.size + 1}`), names.get(text));
    return {
      query: async (text, values) => (await pool.query({ name: named(text), text, values })).rows,
      close: () => pool.end(),
    };
  }
  if (name === 'postgres') {
    const postgres = require('postgres');
    const sql = postgres(url, {
      max: POOL_SIZE,
      // Idle connections closed after 10 s, as node-postgres's pool (the partner's) closes them.
      idle_timeout: 10,
      onnotice: () => undefined,
      types: { int8: { to: 20, from: [20], serialize: String, parse: Number } },
    });
    return {
      query: (text, values) => sql.unsafe(text, values, { prepare: true }),
      close: () => sql.end(),
    };
  }
  throw new Error(`--driver must be pg or postgres, not ${name}`);
}

const TOKEN = /^ptk_([0-9A-Za-z]{12})[0-9A-Za-z]{38}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DAY_MS = 24 * 60 * 60 * 1000;

const ACCOUNT = `SELECT a.id, a.company_id, t.digest FROM account_tokens t JOIN accounts a ON a.id = t.account_id
  WHERE t.lookup = $1 AND t.revoked_at IS NULL`;
// A send's account with its name, which the e-mail names the company by.
const SENDER = `SELECT a.id, a.company_id, a.name, t.digest FROM account_tokens t JOIN accounts a ON a.id = t.account_id
  WHERE t.lookup = $1 AND t.revoked_at IS NULL`;
const BIND = 'UPDATE accounts SET company_id = $1, bound_at = $2 WHERE id = $3 AND company_id IS NULL RETURNING id';
// The token and the account's tests in one statement: a row per test (or one without a test).
const ACCOUNT_TESTS = `SELECT a.id, t.digest, c.id AS test_id, c.name AS test_name FROM account_tokens t JOIN accounts a ON a.id = t.account_id
  LEFT JOIN tests c ON c.account_id = a.id WHERE t.lookup = $1 AND t.revoked_at IS NULL ORDER BY c.id`;
const INVITE = `INSERT INTO invitations (report_id, account_id, company_id, candidate_id, test_id, test_name, first_name, last_name,
    email, next_start_at, created_at, updated_at)
  SELECT $1, t.account_id, $2, $3, $4, t.name, $5, $6, $7, $8, $8, $8 FROM tests t WHERE t.id = $9 AND t.account_id = $10
  ON CONFLICT (report_id) DO NOTHING RETURNING id, test_name`;
const NOT_STORED = `SELECT EXISTS (SELECT 1 FROM tests WHERE id = $1 AND account_id = $2) AS known, i.account_id, i.candidate_id, i.test_id
  FROM (VALUES (1)) AS one LEFT JOIN invitations i ON i.report_id = $3`;
const START = `WITH started AS (
    UPDATE invitations SET started_at = $2, candidate_url = $3, updated_at = $2
     WHERE id = $1 AND started_at IS NULL AND status = 'sent' RETURNING id, report_id)
  INSERT INTO report_updates (invitation_id, report_id, body, next_attempt_at, give_up_at, created_at, updated_at)
  SELECT id, report_id, $4, $2, $5, $2, $2 FROM started RETURNING id`;
const DELIVERED = `WITH delivered AS (
    UPDATE report_updates SET status = 'delivered', attempts = attempts + 1, last_status = 200, delivered_at = $2, updated_at = $2
     WHERE id = $1 AND status = 'pending' RETURNING invitation_id),
  accepted AS (
    UPDATE invitations SET platform_accepted_at = $2 WHERE id = (SELECT invitation_id FROM delivered) AND platform_accepted_at IS NULL
    RETURNING id, report_id)
  INSERT INTO mail_outbox (invitation_id, report_id, kind, next_attempt_at, give_up_at, created_at, updated_at)
  SELECT id, report_id, 'invitation', $2, $3, $2, $2 FROM accepted RETURNING id`;
const MAILED = `UPDATE mail_outbox SET status = 'sent', attempts = attempts + 1, recipient = $2, subject = $3, message_id = $4, message = $5,
    sent_at = $6, updated_at = $6 WHERE id = $1 AND status = 'pending'`;

/**
 * The three callbacks over `db` (a `driver`), on a database with the partner's schema.
 * `publicUrl`: where the candidate's links point. `counter.statements` counts the round trips.
 * `platformUrl`: where report updates are delivered, the links signed and the e-mail rendered
 * (send-work.mjs); without it, the background work's statements alone.
 */
export function callbacksOnPostgres(db, { publicUrl = 'https://partner.example', counter = { statements: 0 }, platformUrl } = {}) {
  const platform = platformUrl ? platformClient(platformUrl) : undefined;
  const mail = platformUrl ? invitationMail() : undefined;
  const query = (text, values) => (counter.statements++, db.query(text, values));
  const reply = (status, body) => ({ status, body });
  const invalidToken = reply(401, { error: 'Invalid token' });
  const sha256 = (s) => createHash('sha256').update(s).digest();

  /** The token's rows of `text` (`$1` its lookup key), or undefined when it names no account. */
  async function ofToken(authorization, text) {
    if (typeof authorization !== 'string' || !authorization.startsWith('Bearer ')) return undefined;
    const token = authorization.slice(7);
    const lookup = TOKEN.exec(token)?.[1];
    if (!lookup) return undefined;
    const rows = await query(text, [lookup]);
    return rows.length && timingSafeEqual(sha256(token), rows[0].digest) ? rows : undefined;
  }
  const account = async (authorization) => (await ofToken(authorization, ACCOUNT))?.[0];

  /** After the answer: what the partner's background loops do for a new invitation, in essence. */
  async function background(id, reportId, to, { testName, company }) {
    const now = new Date();
    const at = now.toISOString();
    const giveUp = new Date(now.getTime() + DAY_MS).toISOString();
    const link = platform ? signedLink(publicUrl, 'take', reportId, 14 * DAY_MS) : `${publicUrl}/take/${reportId}`;
    const show = platform ? signedLink(publicUrl, 'results', reportId, 365 * DAY_MS) : `${publicUrl}/results/${reportId}`;
    const body = JSON.stringify({ urls: { show, cancel: `${publicUrl}/callbacks/reports/${reportId}/cancel` } });
    const [update] = await query(START, [id, at, link, body, giveUp]);
    if (!update) return;
    if (platform) {
      const status = await platform.deliver(reportId, body);
      if (status < 200 || status >= 300) throw new Error(`the platform answered ${status}`);
    }
    const [queued] = await query(DELIVERED, [update.id, new Date().toISOString(), giveUp]);
    if (!queued) return;
    const { subject, messageId, message } = mail
      ? await mail({ reportId, firstName: to.firstName, lastName: to.lastName, email: to.address, testName, company, link })
      : {
          subject: 'Your assessment is ready',
          messageId: `<${reportId}@bench.invalid>`,
          message: JSON.stringify({ to: [{ name: to.name, address: to.address }], subject: 'Your assessment is ready', text: `Hello ${to.name},\n\nStart your assessment: ${link}\n` }),
        };
    await query(MAILED, [queued.id, to.address, subject, messageId, message, new Date().toISOString()]);
  }

  return {
    close: () => platform?.close(),
    async validateToken(authorization, body) {
      const acc = await account(authorization);
      if (!acc) return invalidToken;
      const company = body?.company_id;
      if (!Number.isSafeInteger(company) || company <= 0) return reply(422, { error: 'company_id must be a positive integer' });
      if (acc.company_id === company) return reply(200, { ok: true });
      if (acc.company_id === null && (await query(BIND, [company, new Date().toISOString(), acc.id])).length) return reply(200, { ok: true });
      return reply(403, { error: 'Token bound to another company' });
    },
    async tests(authorization) {
      const rows = await ofToken(authorization, ACCOUNT_TESTS);
      if (!rows) return invalidToken;
      return reply(200, rows[0].test_id === null ? [] : rows.map((r) => ({ id: r.test_id, name: r.test_name })));
    },
    async sendCandidate(authorization, b) {
      const acc = (await ofToken(authorization, SENDER))?.[0];
      if (!acc) return invalidToken;
      if (!b || typeof b !== 'object' || Array.isArray(b)) return reply(422, { error: 'Body must be an object' });
      for (const k of ['first_name', 'last_name']) if (typeof b[k] !== 'string' || !b[k].trim()) return reply(422, { error: `${k} is required` });
      if (typeof b.email !== 'string' || !EMAIL.test(b.email)) return reply(422, { error: 'email is invalid' });
      if (typeof b.report_id !== 'string' || !UUID.test(b.report_id)) return reply(422, { error: 'report_id must be a UUID' });
      if (!Number.isSafeInteger(b.candidate_id) || !Number.isSafeInteger(b.company_id)) return reply(422, { error: 'candidate_id and company_id must be integers' });
      const testId = String(b.test_id ?? '');
      if (b.company_id !== acc.company_id) return reply(403, { error: 'Token bound to another company' });
      // The tests' ids are the table's: an id that is no integer names none of them.
      const test = /^[1-9][0-9]{0,15}$/.test(testId) ? Number(testId) : undefined;
      if (test === undefined) return reply(422, { error: 'Unknown test' });
      const [created] = await query(INVITE, [
        b.report_id, b.company_id, b.candidate_id, testId, b.first_name, b.last_name, b.email, new Date().toISOString(), test, acc.id,
      ]);
      if (created) {
        const to = { name: `${b.first_name} ${b.last_name}`, firstName: b.first_name, lastName: b.last_name, address: b.email };
        background(created.id, b.report_id, to, { testName: created.test_name, company: acc.name }).catch((err) =>
          console.error(`background work of ${b.report_id} failed: ${err.message}`),
        );
        return reply(201, { id: b.report_id, status: 'sent' });
      }
      const [prior] = await query(NOT_STORED, [test, acc.id, b.report_id]);
      if (!prior.known) return reply(422, { error: 'Unknown test' });
      // A replay (same account, candidate and test) gets the first answer again.
      return prior.account_id === acc.id && prior.candidate_id === b.candidate_id && prior.test_id === testId
        ? reply(201, { id: b.report_id, status: 'sent' })
        : reply(409, { error: 'report_id already used for another candidate or test' });
    },
  };
}
