// The partner callbacks' data work on better-sqlite3 and nothing else — token lookup by hash,
// company binding, test listing, idempotent invitation insert — shared by the two reference servers
// `npm run bench` measures the partner against: baseline-server.mjs (bare node:http) and
// express-server.mjs (the same work in a plain Express 5 app). Each callback takes the
// Authorization header (and the parsed body) and returns { status, body } for the server to send.
// Given the platform's URL, a send also does what the partner's does after its answer, with the same
// durability (send-work.mjs): its start queued in the insert's transaction, then started, the
// report update delivered to the platform, the e-mail rendered and kept; without, the insert alone.
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { SQLITE_OUTBOX, sqliteSendWork } from './send-work.mjs';

// Resolved from the project's root, where the servers are run from.
const Database = createRequire(path.join(process.cwd(), 'package.json'))('better-sqlite3');
const sha256 = (s) => createHash('sha256').update(s).digest('hex');

/** (Re)creates the database with `accounts` accounts × `perAccount` tests; returns each account's token, company and tests. */
export function seed(dbPath, accounts, perAccount) {
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE, company_id INTEGER);
    CREATE TABLE tests (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id), name TEXT NOT NULL);
    CREATE INDEX tests_by_account ON tests(account_id);
    CREATE TABLE invitations (report_id TEXT PRIMARY KEY, account_id INTEGER NOT NULL, candidate_id INTEGER NOT NULL,
      test_id INTEGER NOT NULL, first_name TEXT NOT NULL, last_name TEXT NOT NULL, email TEXT NOT NULL,
      status TEXT NOT NULL, created_at TEXT NOT NULL, started_at TEXT, candidate_url TEXT, accepted_at TEXT);
    ${SQLITE_OUTBOX}`);
  const out = [];
  const addAccount = db.prepare('INSERT INTO accounts (id, name, token_hash, company_id) VALUES (?, ?, ?, ?)');
  const addTest = db.prepare('INSERT INTO tests (id, account_id, name) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let a = 1; a <= accounts; a++) {
      const token = 'bl_' + randomBytes(24).toString('base64url');
      addAccount.run(a, `Account ${a}`, sha256(token), a); // bound to company a, as after validate_token
      const tests = [];
      for (let t = 1; t <= perAccount; t++) {
        const id = (a - 1) * perAccount + t;
        addTest.run(id, a, `Test ${id}`);
        tests.push({ id, name: `Test ${id}` });
      }
      out.push({ token, company_id: a, tests });
    }
  })();
  db.close();
  return out;
}

/**
 * The three callbacks over the database at `dbPath` (seeded). With `platformUrl`, each new
 * invitation's background work too (send-work.mjs), delivering its report update there.
 */
export function callbacks(dbPath, { platformUrl } = {}) {
  const db = new Database(dbPath, { fileMustExist: true });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const byToken = db.prepare('SELECT id, company_id FROM accounts WHERE token_hash = ?');
  const bind = db.prepare('UPDATE accounts SET company_id = ? WHERE id = ? AND (company_id IS NULL OR company_id = ?)');
  const testsOf = db.prepare('SELECT id, name FROM tests WHERE account_id = ? ORDER BY id');
  const testOf = db.prepare('SELECT id FROM tests WHERE id = ? AND account_id = ?');
  const invitation = db.prepare('SELECT candidate_id, test_id FROM invitations WHERE report_id = ?');
  const invite = db.prepare(`INSERT INTO invitations (report_id, account_id, candidate_id, test_id, first_name, last_name, email, status, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, 'sent', ?) ON CONFLICT(report_id) DO NOTHING`);
  const work = platformUrl ? sqliteSendWork(db, { platformUrl }) : undefined;
  /** The invitation and, with the background work, its start queued: one transaction, committed before the answer. */
  const store = work
    ? db.transaction((...values) => {
        const { changes, lastInsertRowid } = invite.run(...values);
        if (changes) work.queue(lastInsertRowid);
        return changes;
      })
    : (...values) => invite.run(...values).changes;

  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
  const reply = (status, body) => ({ status, body });
  const invalidToken = reply(401, { error: 'Invalid token' });
  const account = (authorization) =>
    typeof authorization === 'string' && authorization.startsWith('Bearer ') ? byToken.get(sha256(authorization.slice(7))) : undefined;

  return {
    tests(authorization) {
      const acc = account(authorization);
      return acc ? reply(200, testsOf.all(acc.id)) : invalidToken;
    },
    validateToken(authorization, body) {
      const acc = account(authorization);
      if (!acc) return invalidToken;
      const company = Number(body?.company_id);
      if (!Number.isSafeInteger(company)) return reply(422, { error: 'company_id must be an integer' });
      return bind.run(company, acc.id, company).changes ? reply(200, { ok: true }) : reply(403, { error: 'Token bound to another company' });
    },
    sendCandidate(authorization, b) {
      const acc = account(authorization);
      if (!acc) return invalidToken;
      if (!b || typeof b !== 'object') return reply(422, { error: 'Body must be an object' });
      for (const k of ['first_name', 'last_name']) if (typeof b[k] !== 'string' || !b[k].trim()) return reply(422, { error: `${k} is required` });
      if (typeof b.email !== 'string' || !EMAIL.test(b.email)) return reply(422, { error: 'email is invalid' });
      if (typeof b.report_id !== 'string' || !UUID.test(b.report_id)) return reply(422, { error: 'report_id must be a UUID' });
      const candidate = Number(b.candidate_id), test = Number(b.test_id);
      if (!Number.isSafeInteger(candidate) || !Number.isSafeInteger(test)) return reply(422, { error: 'candidate_id and test_id must be integers' });
      if (Number(b.company_id) !== acc.company_id) return reply(403, { error: 'Token bound to another company' });
      if (!testOf.get(test, acc.id)) return reply(422, { error: 'Unknown test' });
      if (store(b.report_id, acc.id, candidate, test, b.first_name, b.last_name, b.email, new Date().toISOString())) {
        work?.wake();
        return reply(201, { id: b.report_id, status: 'sent' });
      }
      const prior = invitation.get(b.report_id);
      return prior.candidate_id === candidate && prior.test_id === test
        ? reply(201, { id: b.report_id, status: 'sent' }) // a replay gets the first answer again
        : reply(409, { error: 'report_id already used for another candidate or test' });
    },
    close: () => (work?.close(), db.close()),
  };
}

/** --name value pairs from the command line. */
export const argsOf = (argv) =>
  Object.fromEntries(argv.reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
