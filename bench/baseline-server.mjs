#!/usr/bin/env node
// The benchmark's reference: the partner callbacks' data work (callbacks-work.mjs) on bare
// node:http + better-sqlite3, with nothing else (no framework, no logging, no validation library).
// Its throughput is the practical limit for Node + SQLite on the machine at hand; `npm run bench`
// (scripts/bench.ts) runs it beside the partner server in the same run and reports the partner's
// figures as ratios of its own. It is a measuring stick, not part of the kit: nothing imports it
// and it is never deployed. See bench/README.md and docs/performance.md.
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
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { argsOf, callbacks, seed } from './callbacks-work.mjs';

const args = argsOf(process.argv.slice(2));
const port = Number(args.port || 3999);
const dbPath = args.db || '/tmp/baseline.db';

if (args.seed) {
  const [accounts, perAccount] = args.seed.split('x').map(Number);
  const tokens = seed(dbPath, accounts, perAccount);
  if (args['tokens-out']) writeFileSync(args['tokens-out'], JSON.stringify(tokens));
}

const work = callbacks(dbPath);
const LIMIT = 64 * 1024;

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
    send(res, then(body));
  });
}

http.createServer((req, res) => {
  const url = req.url.split('?')[0];
  const { authorization } = req.headers;
  if (req.method === 'GET' && url === '/tests') return send(res, work.tests(authorization));
  if (req.method === 'POST' && url === '/validate_token') return readJson(req, res, (body) => work.validateToken(authorization, body));
  if (req.method === 'POST' && url === '/send_candidate') return readJson(req, res, (body) => work.sendCandidate(authorization, body));
  send(res, { status: 404, body: { error: 'Not Found' } });
}).listen(port, '127.0.0.1', () => console.log(`listening ${port}`));

for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => { work.close(); process.exit(0); });
