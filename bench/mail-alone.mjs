#!/usr/bin/env node
// The e-mail's share of a send: the partner's own invitation e-mail, as its database stored it,
// rendered again and again by the partner's mailer (nodemailer's JSON transport, the default) and
// nothing else. `npm run bench` runs it after send_candidate, on the servers' core, and sets it
// beside the baseline's whole send: what any send that e-mails through nodemailer pays for that
// alone. Prints {"cpuUsPerEmail": …} on stdout.
// Run from the project's root after `npm run build`:
//   node bench/mail-alone.mjs --db <the partner's database> [--count 5000]
import { createRequire } from 'node:module';
import path from 'node:path';
import { argsOf } from './callbacks-work.mjs';

const args = argsOf(process.argv.slice(2));
if (!args.db) throw new Error('--db <the partner database> is required');
const require = createRequire(path.join(process.cwd(), 'package.json'));
const Database = require('better-sqlite3');
const { createMailer } = await import(path.join(process.cwd(), 'dist/src/partner/mail/transport.js'));

const db = new Database(args.db, { readonly: true, fileMustExist: true });
const stored = db.prepare("SELECT message FROM mail_outbox WHERE status = 'sent' AND message IS NOT NULL LIMIT 1").pluck().get();
db.close();
if (!stored) throw new Error('the partner database holds no e-mail sent through the JSON transport');
const { to, subject, text, html } = JSON.parse(stored);
const recipient = Array.isArray(to) ? to[0] : to;
const message = { to: { name: recipient.name, address: recipient.address }, subject, text, html };

const mailer = createMailer({ transport: 'json', smtpUrl: undefined, from: 'Partner <noreply@partner.example>', maxConnections: 1 });
const count = Number(args.count ?? 5000);
for (let i = 0; i < 1000; i++) await mailer.send(message); // warm-up
const before = process.cpuUsage();
for (let i = 0; i < count; i++) await mailer.send(message);
const used = process.cpuUsage(before);
mailer.close();
console.log(JSON.stringify({ cpuUsPerEmail: (used.user + used.system) / count }));
