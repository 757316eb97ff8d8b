#!/usr/bin/env node
// Where the partner's idle memory goes: its libraries and its own modules imported one after the
// other, in the order the partner loads them, then the partner started on a database and left to
// settle, then the pages that build something on their first request. After each step, with a
// full garbage collection first, the resident set (RSS), V8's heap in use and the memory held
// outside it (Buffers, better-sqlite3's and SQLite's own allocations show in RSS alone), and the
// time the step took (wall time: its share of the start-up). What a step adds is its delta: a
// module's dependencies are charged to the first step that loads them.
// Prints one line per step and {"steps": …} as JSON last.
//
// Run from the project's root after `npm run build`:
//   node --expose-gc bench/memory-by-import.mjs --db <a partner database> [--root <a build's folder>]
// The database is opened as the partner opens it (a copy is advisable: the partner migrates it).
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { argsOf } from './callbacks-work.mjs';

const args = argsOf(process.argv.slice(2));
if (!args.db) throw new Error('--db <a partner database> is required');
if (!global.gc) throw new Error('run with node --expose-gc');
const root = path.resolve(args.root ?? process.cwd());
const require = createRequire(path.join(root, 'package.json'));
const dist = (file) => import(pathToFileURL(path.join(root, 'dist', file)).href);

const steps = [];
let last = measure();
function measure() {
  global.gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external + m.arrayBuffers };
}
const mb = (bytes) => (bytes / 1048576).toFixed(1).padStart(6);
async function step(name, run) {
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  const now = measure();
  const delta = { rss: now.rss - last.rss, heap: now.heap - last.heap, external: now.external - last.external };
  steps.push({ name, ms, ...delta, rssAfter: now.rss });
  console.log(
    `${name.padEnd(58)} ${ms.toFixed(0).padStart(5)} ms   RSS ${mb(delta.rss)} MB   heap ${mb(delta.heap)} MB   outside ${mb(delta.external)} MB   (RSS ${mb(now.rss)} MB)`,
  );
  last = now;
}
const settle = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

console.log(`${'node itself'.padEnd(58)} RSS ${mb(last.rss)} MB   heap ${mb(last.heap)} MB`);
await step('express', () => require('express'));
await step('better-sqlite3', () => require('better-sqlite3'));
await step('zod', () => import(pathToFileURL(require.resolve('zod')).href));
await step('pino', () => require('pino'));
await step('jsonwebtoken', () => require('jsonwebtoken'));
await step('eta', () => import(pathToFileURL(require.resolve('eta')).href));
// (pg is loaded with a PostgreSQL pool only: a partner on SQLite never loads it.)
await step('the wire schemas (src/contract)', () => dist('src/contract/schemas.js'));
for (const platform of ['hiring-platform', 'greenhouse', 'ashby', 'hibob']) {
  await step(`platform: ${platform}`, () => dist(`src/partner/platforms/${platform}/index.js`).catch(() => undefined));
}
await step('the rest of the partner (start.js, app, pages, stores…)', () => dist('src/partner/start.js'));
await step('the vendor module (src/provider)', () => dist('src/provider/index.js'));
const { loadConfig } = await dist('src/partner/config.js');
const { servedPlatforms, main } = await dist('src/partner/server.js');
let partner;
await step('started: database open, routes mounted, listening', async () => {
  const platforms = await servedPlatforms();
  const config = loadConfig({ ...process.env, PORT: '0', DATABASE_PATH: path.resolve(args.db), LOG_LEVEL: 'warn' }, platforms);
  partner = await main(config);
});
await step('idle, 3 s later (the loops\' first runs done)', () => settle(3000));
const base = `http://127.0.0.1:${partner.server.address().port}`;
const get = async (at) => void (await (await fetch(base + at)).arrayBuffer());
// First a request that builds nothing: it charges this script's own HTTP client (Node's fetch,
// loaded on its first use, several MB) to a step of its own, not to the page asked for first.
await step("GET /healthz (and this script's fetch, first used)", () => get('/healthz'));
await step('GET /openapi.json (the API document, built on its first request, then kept)', () => get('/openapi.json'));
await step('GET /openapi.json again', () => get('/openapi.json'));
await step('GET / (the home page, its templates compiled)', () => get('/'));
// V8's heap by space, as it stands (physical: the resident part): the young generation's
// semi-spaces grow under the start's allocations and stay committed once idle.
const spaces = v8.getHeapSpaceStatistics().map((s) => ({ name: s.space_name, physical: s.physical_space_size, used: s.space_used_size }));
for (const s of spaces) console.log(`  V8 ${s.name.padEnd(24)} resident ${mb(s.physical)} MB, in use ${mb(s.used)} MB`);
await partner.close();
console.log(JSON.stringify({ steps, spaces }));
