#!/usr/bin/env node
// The benchmark's reference: the partner callbacks' data work on bare node:http with nothing else
// (no framework, no logging, no validation library) — on better-sqlite3 (callbacks-work.mjs), or on
// PostgreSQL with `--postgres` (callbacks-work-postgres.mjs, on the partner's own tables, its
// background work's essential statements included). With `--platform <url>`, a send also does the
// partner's background work by hand, with its durability (send-work.mjs): the invitation started,
// its report update delivered to the platform at that URL, the e-mail rendered through nodemailer's
// JSON transport and kept. Its throughput is the practical limit for
// Node and that database on the machine at hand; `npm run bench` (scripts/bench.ts) runs it beside
// the partner server in the same run and reports the partner's figures as ratios of its own. It is
// a measuring stick, not part of the kit: nothing imports it and it is never deployed. See
// bench/README.md and docs/performance.md.
//
// Run from the project's root (better-sqlite3, pg and postgres are resolved from there):
//   node bench/baseline-server.mjs --port 3999 --db /tmp/baseline.db \
//        --seed 1000x20 --tokens-out /tmp/baseline-tokens.json
//   node bench/baseline-server.mjs --port 3999 --postgres postgres://… [--driver pg|postgres]
//   … --platform http://127.0.0.1:<port>   (bench/platform-accepts.mjs, or anything that answers 2xx)
// --seed (re)creates the SQLite database with N accounts x M tests; --tokens-out writes
// [{ "token", "company_id", "tests": [{ "id", "name" }] }] for the load generator. A PostgreSQL
// database is seeded by whoever runs it, through the partner's migrations and account store (as
// `npm run bench` does); --driver picks node-postgres (pg, the partner's: the default) or
// postgres.js. The server prints "listening <port>" when ready. Callbacks, as in
// docs/platform-contract.md §4:
//   POST /validate_token   Authorization: Bearer <token>, body {"company_id": n}  -> 200 | 401 | 403
//   GET  /tests            Authorization: Bearer <token>                          -> 200 [{id,name}] | 401
//   POST /send_candidate   Authorization: Bearer <token>, candidate JSON          -> 201 (also on a replay) | 409 | 422 | 403 | 401
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { argsOf, callbacks, seed } from './callbacks-work.mjs';
import { callbacksOnPostgres, driver } from './callbacks-work-postgres.mjs';

const args = argsOf(process.argv.slice(2));
const dbPath = args.db || '/tmp/baseline.db';

if (args.seed) {
  const [accounts, perAccount] = args.seed.split('x').map(Number);
  const tokens = seed(dbPath, accounts, perAccount);
  if (args['tokens-out']) writeFileSync(args['tokens-out'], JSON.stringify(tokens));
}

const port = Number(args.port ?? 3999);
const database = args.postgres ? driver(args.driver ?? 'pg', args.postgres) : undefined;
const work = database ? callbacksOnPostgres(database, { platformUrl: args.platform }) : callbacks(dbPath, { platformUrl: args.platform });
const LIMIT = 64 * 1024;

/** A reply, or (on PostgreSQL) the promise of one; a query that failed is a 503. */
function answer(res, reply) {
  if (!(reply instanceof Promise)) return send(res, reply);
  reply.then(
    (r) => send(res, r),
    (err) => {
      console.error(`query failed: ${err.message}`);
      send(res, { status: 503, body: { error: 'The database is unavailable' } });
    },
  );
}
function send(res, { status, body: payload }) {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
function readJson(req, res, then) {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size > LIMIT) { send(res, { status: 413, body: { error: 'Body too large' } }); req.destroy(); } else chunks.push(c);
  });
  req.on('end', () => {
    let body;
    try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { return send(res, { status: 400, body: { error: 'Malformed JSON' } }); }
    answer(res, then(body));
  });
}

const server = http.createServer((req, res) => {
  const url = req.url.split('?')[0];
  const { authorization } = req.headers;
  if (req.method === 'GET' && url === '/tests') return answer(res, work.tests(authorization));
  if (req.method === 'POST' && url === '/validate_token') return readJson(req, res, (body) => work.validateToken(authorization, body));
  if (req.method === 'POST' && url === '/send_candidate') return readJson(req, res, (body) => work.sendCandidate(authorization, body));
  send(res, { status: 404, body: { error: 'Not Found' } });
});
// `--port 0`: any free port, the one it got printed.
server.listen(port, '127.0.0.1', () => console.log(`listening ${server.address().port}`));

const close = async () => (work.close(), database?.close());
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => close().finally(() => process.exit(0)));
