#!/usr/bin/env node
// Start-up reference: an Express 5 app that opens the partner's SQLite database and answers
// GET /healthz with a query, and nothing else: the floor any server built on the kit's framework
// and database starts from. `npm run bench` times it beside healthz-bare.mjs and the partner.
// Run from the project's root (express and better-sqlite3 are resolved from its node_modules);
// PORT and DATABASE_PATH from the environment.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.cwd(), 'package.json'));
const express = require('express');
const Database = require('better-sqlite3');

const db = new Database(process.env.DATABASE_PATH, { fileMustExist: true });
const ping = db.prepare('SELECT 1 AS ok');
const app = express();
app.get('/healthz', (req, res) => res.json({ ok: ping.get().ok === 1 }));
app.listen(Number(process.env.PORT), '127.0.0.1');
