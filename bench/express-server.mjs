#!/usr/bin/env node
// The framework's reference: the same callbacks' data work as baseline-server.mjs in a plain
// Express 5 app, written as Express's guide writes one — express.json() for the body,
// res.status().json() for the answer — and nothing else: no validation library, no logging, no
// security headers. `npm run bench` measures it beside the baseline and the partner: what Express
// itself costs before a server does anything of its own. On SQLite (callbacks-work.mjs) by
// default; with `--postgres <url>` on PostgreSQL (callbacks-work-postgres.mjs, node-postgres, the
// statements and background work of the PostgreSQL baseline), where it is the most a server on
// Express can reach against that baseline. With `--platform <url>`, a send's background work as the
// baseline's (send-work.mjs).
//
// Run from the project's root, on a database seeded by baseline-server.mjs (a copy of it: one
// server writes to a database), or on one seeded as the PostgreSQL baseline's:
//   node bench/express-server.mjs --port 3998 --db /tmp/express.db
//   node bench/express-server.mjs --port 0 --postgres postgres://…
import { createRequire } from 'node:module';
import path from 'node:path';
import { argsOf, callbacks } from './callbacks-work.mjs';
import { callbacksOnPostgres, driver } from './callbacks-work-postgres.mjs';

const express = createRequire(path.join(process.cwd(), 'package.json'))('express');
const args = argsOf(process.argv.slice(2));
const database = args.postgres ? driver('pg', args.postgres) : undefined;
const work = database ? callbacksOnPostgres(database, { platformUrl: args.platform }) : callbacks(args.db, { platformUrl: args.platform });

const app = express();
app.use(express.json({ limit: '64kb' }));
const answer = (res, { status, body }) => res.status(status).json(body);
// On PostgreSQL the work is a promise; Express 5 passes a rejected one to its error handler (a 500).
const send = (res, reply) => (reply instanceof Promise ? reply.then((r) => answer(res, r)) : answer(res, reply));
app.get('/tests', (req, res) => send(res, work.tests(req.headers.authorization)));
app.post('/validate_token', (req, res) => send(res, work.validateToken(req.headers.authorization, req.body)));
app.post('/send_candidate', (req, res) => send(res, work.sendCandidate(req.headers.authorization, req.body)));

// `--port 0`: any free port, the one it got printed.
const server = app.listen(Number(args.port ?? 3998), '127.0.0.1', () => console.log(`listening ${server.address().port}`));
const close = async () => (work.close(), database?.close());
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => close().finally(() => process.exit(0)));
