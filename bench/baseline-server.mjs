#!/usr/bin/env node
// The benchmark's reference: the partner callbacks' data work on bare node:http + better-sqlite3,
// with nothing else (no framework, no logging, no validation library). Its throughput is the
// practical limit for Node + SQLite on the machine at hand; `npm run bench` (scripts/bench.ts) runs
// it beside the partner server in the same run and reports the partner's figures as ratios of its
// own. It is a measuring stick, not part of the kit: nothing imports it and it is never deployed.
// See bench/README.md and docs/performance.md.
//
// Run from the project's root (better-sqlite3 is resolved from there):
//   node bench/baseline-server.mjs --port 3999 --db /tmp/baseline.db \
//        --seed 1000x20 --tokens-out /tmp/baseline-tokens.json
// --seed (re)creates the database with N accounts x M tests; --tokens-out writes
// [{ "token", "company_id", "tests": [{ "id", "name" }] }] for the load generator. The server
// prints "listening <port>" when ready. Callbacks, as in docs/platform-contract.md §4:
//   POST /validate_token   Authorization: Bearer <token>, body {"company_id": n}  -> 200 | 401 | 403
//   GET  /tests            Authorization: Bearer <token>                          -> 200 [{id,name}] | 401
//   POST /send_candidate   Authorization: Bearer <token>, candidate JSON          -> 201 (also on a replay) | 409 | 422 | 403 | 401
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const port = Number(args.port || 3999);
const dbPath = args.db || '/tmp/baseline.db';
const Database = createRequire(path.join(process.cwd(), 'package.json'))('better-sqlite3');
const sha256 = (s) => createHash('sha256').update(s).digest('hex');

if (args.seed) {
  const [accounts, perAccount] = args.seed.split('x').map(Number);
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE, company_id INTEGER);
    CREATE TABLE tests (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id), name TEXT NOT NULL);
    CREATE INDEX tests_by_account ON tests(account_id);
    CREATE TABLE invitations (report_id TEXT PRIMARY KEY, account_id INTEGER NOT NULL, candidate_id INTEGER NOT NULL,
      test_id INTEGER NOT NULL, first_name TEXT NOT NULL, last_name TEXT NOT NULL, email TEXT NOT NULL,
      status TEXT NOT NULL, created_at TEXT NOT NULL);`);
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
  if (args['tokens-out']) writeFileSync(args['tokens-out'], JSON.stringify(out));
}

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LIMIT = 64 * 1024;

function send(res, status, payload) {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
function account(req) {
  const h = req.headers.authorization;
  if (typeof h !== 'string' || !h.startsWith('Bearer ')) return undefined;
  return byToken.get(sha256(h.slice(7)));
}
function readJson(req, res, then) {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size > LIMIT) { send(res, 413, { error: 'Body too large' }); req.destroy(); } else chunks.push(c);
  });
  req.on('end', () => {
    let body;
    try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { return send(res, 400, { error: 'Malformed JSON' }); }
    then(body);
  });
}

http.createServer((req, res) => {
  const url = req.url.split('?')[0];
  if (req.method === 'GET' && url === '/tests') {
    const acc = account(req);
    return acc ? send(res, 200, testsOf.all(acc.id)) : send(res, 401, { error: 'Invalid token' });
  }
  if (req.method === 'POST' && url === '/validate_token') {
    return readJson(req, res, (body) => {
      const acc = account(req);
      if (!acc) return send(res, 401, { error: 'Invalid token' });
      const company = Number(body?.company_id);
      if (!Number.isSafeInteger(company)) return send(res, 422, { error: 'company_id must be an integer' });
      return bind.run(company, acc.id, company).changes ? send(res, 200, { ok: true }) : send(res, 403, { error: 'Token bound to another company' });
    });
  }
  if (req.method === 'POST' && url === '/send_candidate') {
    return readJson(req, res, (b) => {
      const acc = account(req);
      if (!acc) return send(res, 401, { error: 'Invalid token' });
      if (!b || typeof b !== 'object') return send(res, 422, { error: 'Body must be an object' });
      for (const k of ['first_name', 'last_name']) if (typeof b[k] !== 'string' || !b[k].trim()) return send(res, 422, { error: `${k} is required` });
      if (typeof b.email !== 'string' || !EMAIL.test(b.email)) return send(res, 422, { error: 'email is invalid' });
      if (typeof b.report_id !== 'string' || !UUID.test(b.report_id)) return send(res, 422, { error: 'report_id must be a UUID' });
      const candidate = Number(b.candidate_id), test = Number(b.test_id);
      if (!Number.isSafeInteger(candidate) || !Number.isSafeInteger(test)) return send(res, 422, { error: 'candidate_id and test_id must be integers' });
      if (Number(b.company_id) !== acc.company_id) return send(res, 403, { error: 'Token bound to another company' });
      if (!testOf.get(test, acc.id)) return send(res, 422, { error: 'Unknown test' });
      if (invite.run(b.report_id, acc.id, candidate, test, b.first_name, b.last_name, b.email, new Date().toISOString()).changes)
        return send(res, 201, { id: b.report_id, status: 'sent' });
      const prior = invitation.get(b.report_id);
      return prior.candidate_id === candidate && prior.test_id === test
        ? send(res, 201, { id: b.report_id, status: 'sent' }) // a replay gets the first answer again
        : send(res, 409, { error: 'report_id already used for another candidate or test' });
    });
  }
  send(res, 404, { error: 'Not Found' });
}).listen(port, '127.0.0.1', () => console.log(`listening ${port}`));

for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => { db.close(); process.exit(0); });
