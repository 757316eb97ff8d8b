#!/usr/bin/env node
// The framework's reference: the same callbacks' data work as baseline-server.mjs
// (callbacks-work.mjs) in a plain Express 5 app, written as Express's guide writes one —
// express.json() for the body, res.status().json() for the answer — and nothing else: no
// validation library, no logging, no security headers. `npm run bench` measures it beside the
// baseline and the partner: what Express itself costs before a server does anything of its own.
//
// Run from the project's root, on a database seeded by baseline-server.mjs (a copy of it: one
// server writes to a database):
//   node bench/express-server.mjs --port 3998 --db /tmp/express.db
import { createRequire } from 'node:module';
import path from 'node:path';
import { argsOf, callbacks } from './callbacks-work.mjs';

const express = createRequire(path.join(process.cwd(), 'package.json'))('express');
const args = argsOf(process.argv.slice(2));
const work = callbacks(args.db);

const app = express();
app.use(express.json({ limit: '64kb' }));
const send = (res, { status, body }) => res.status(status).json(body);
app.get('/tests', (req, res) => send(res, work.tests(req.headers.authorization)));
app.post('/validate_token', (req, res) => send(res, work.validateToken(req.headers.authorization, req.body)));
app.post('/send_candidate', (req, res) => send(res, work.sendCandidate(req.headers.authorization, req.body)));

const port = Number(args.port || 3998);
app.listen(port, '127.0.0.1', () => console.log(`listening ${port}`));
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => { work.close(); process.exit(0); });
