/**
 * `npm run bench`: the partner server against the bare node:http baseline (bench/baseline-server.mjs),
 * side by side in one run, on the same data (BENCH_ACCOUNTS accounts × 20 tests, bound to companies,
 * and BENCH_INVITATIONS invitations already stored with their history, scripts/bench-history.ts),
 * with the same work in a plain Express 5 app (bench/express-server.mjs) beside them: what the
 * framework costs before the kit does anything. A send on the baselines does the partner's
 * background work by hand with the same durability (bench/send-work.mjs): the start, the report
 * update delivered, the e-mail rendered through nodemailer and kept.
 *
 * The partner runs twice on SQLite: with every platform the kit registers, and with two
 * (BENCH_TWO_PLATFORMS, `hiring-platform,greenhouse`; from a copy of the build that registers only
 * those, scripts/bench-platforms.ts): what the other platforms cost the callbacks, the start-up and
 * the idle memory.
 *
 * For each callback and each server: autocannon at 50 connections (throughput, p50, p99), and for
 * the baseline and the partner an evenly paced, open-loop 1,000 req/s load (latency under ordinary
 * traffic). After send_candidate, the e-mail's share alone (bench/mail-alone.mjs). Servers are pinned to one core and this process (the load generator) to the other when
 * `taskset` works. Several rounds, medians quoted; ratios are to the baseline in this run, the only
 * figures that mean anything on a noisy machine.
 *
 * Options (env): BENCH_ROUNDS (3), BENCH_SECONDS (5), BENCH_SKIP_BUILD=1, BENCH_JSON=<file>,
 * BENCH_CALLBACKS=tests,send_candidate (a subset), BENCH_PARTNER_ENV="LOG_LEVEL=warn …" (extra
 * environment for the partner server, to measure a configuration), BENCH_ACCOUNTS (1000),
 * BENCH_INVITATIONS (0; e.g. 1000000 for a partner with history), BENCH_STARTUP=0 to skip the
 * start-up and idle-memory measurement, BENCH_POSTGRES=0 to skip the PostgreSQL runs,
 * BENCH_CPU_PROF=<dir> to have each server process write its CPU profile (node --cpu-prof) there,
 * BENCH_TARGETS=pg-baseline,postgres to measure only these servers (each named by its label with
 * every run of non-word characters a dash: baseline, express, partner, partner-two-platforms,
 * pg-baseline, pg-baseline-postgres-js, pg-express, postgres, postgres-2), the rest started but
 * left idle, BENCH_TWO_PLATFORMS (hiring-platform,greenhouse): the platforms of the partner that
 * speaks fewer.
 *
 * PostgreSQL (DATABASE_URL): the same partner on a PostgreSQL server the bench starts (Debian's
 * postgresql; test/support/postgres.ts), with one instance and with two, the load split between
 * them, against the baseline on PostgreSQL (bench/baseline-server.mjs --postgres: the same work on
 * the partner's own tables, its sends' background work included), run with node-postgres and with
 * postgres.js, and plain Express doing that baseline's work (bench/express-server.mjs --postgres):
 * the most a server on the kit's framework can reach there. CPU time per request counts the
 * database server's processes too: work moved to the database is still work.
 *
 * The partners' report updates go to a stand-in for the platform that accepts them all
 * (bench/platform-accepts.mjs, on the load generator's core), so each send's background work goes
 * as far as with a real platform: the start, the update delivered, the e-mail sent.
 */
import autocannon from 'autocannon';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Pool } from 'undici';
import { seedAccounts, storeHistoryOnPostgres, storeHistoryOnSqlite, type Customer } from './bench-history.js';
import { buildWithPlatforms } from './bench-platforms.js';
import { loadConfig } from '../src/partner/config.js';
import { startPartner as startPartnerInProcess } from '../src/partner/start.js';
import { countingStatements } from '../src/lib/sql.js';
import { demoProvider, DEMO_MIGRATIONS } from '../src/partner/provider/demo/index.js';
import { createServer as createHttpServer } from 'node:http';
// The throwaway PostgreSQL server the tests start, started the same way for the PostgreSQL runs.
import { startPostgres, type RunningPostgres } from '../test/support/postgres.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const BASELINE = path.join(ROOT, 'bench', 'baseline-server.mjs');
const EXPRESS = path.join(ROOT, 'bench', 'express-server.mjs');
const MAIL_ALONE = path.join(ROOT, 'bench', 'mail-alone.mjs');
const PLATFORM = path.join(ROOT, 'bench', 'platform-accepts.mjs');
const BASELINE_POSTGRES_WORK = path.join(ROOT, 'bench', 'callbacks-work-postgres.mjs');
/** The platforms of the partner that speaks fewer (`partner, two platforms`): what the others cost is the difference. */
const TWO_PLATFORMS = process.env.BENCH_TWO_PLATFORMS ?? 'hiring-platform,greenhouse';
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1000);
const INVITATIONS = Number(process.env.BENCH_INVITATIONS ?? 0);
const TESTS_PER_ACCOUNT = 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;
const PACED_RATE = 1000;

/**
 * Which customer each request comes from. `uniform`: drawn evenly at random over all of them, so at
 * 100,000 accounts nearly every request misses the read caches and the database path underneath
 * is measured. `zipf`: drawn with the locality a real platform has, the k-th busiest customer
 * (in a fixed random order) calling with a probability proportional to 1/k (Zipf, s = 1): at
 * 100,000 accounts the busiest 10,000 make 80 % of the calls. `turn`: each in turn from the
 * first, as the bench did before (what a cache sees then depends on how far the last run got).
 */
const PATTERNS = ['uniform', 'zipf', 'turn'] as const;
type Pattern = (typeof PATTERNS)[number];
/** Both ways when the customers outnumber the read caches (10,000 entries); at fewer, every one is cached either way. */
const patterns = (process.env.BENCH_PATTERNS?.split(',') ?? (ACCOUNTS > 10_000 ? ['uniform', 'zipf'] : ['uniform'])) as Pattern[];
for (const p of patterns) if (!PATTERNS.includes(p)) throw new Error(`BENCH_PATTERNS: ${p} is not one of ${PATTERNS.join(', ')}`);

/**
 * Zipf's cumulative weights of ranks 1…n, and which customer holds each rank: drawn once per run,
 * so the busiest customers stay the same from one load to the next, as a platform's do.
 */
const zipfOf = (() => {
  const made = new Map<number, { cumulative: Float64Array; order: Uint32Array }>();
  return (n: number) => {
    let z = made.get(n);
    if (!z) {
      const cumulative = new Float64Array(n);
      for (let k = 0, sum = 0; k < n; k++) cumulative[k] = sum += 1 / (k + 1);
      const order = Uint32Array.from({ length: n }, (_, i) => i);
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      made.set(n, (z = { cumulative, order }));
    }
    return z;
  };
})();

/** `next()`: the index of the next request's customer among `n`, by `pattern`. */
function customerPicker(pattern: Pattern, n: number): () => number {
  if (pattern === 'turn') {
    let i = 0;
    return () => i++ % n;
  }
  if (pattern === 'uniform') return () => Math.floor(Math.random() * n);
  const { cumulative, order } = zipfOf(n);
  return () => {
    const x = Math.random() * cumulative[n - 1]!;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return order[lo]!;
  };
}

interface Target {
  name: 'baseline' | 'express' | 'partner' | 'partner, two platforms' | 'pg baseline' | 'pg baseline, postgres.js' | 'pg express' | 'postgres' | 'postgres ×2';
  /** Where requests go: one server, or instances that share the load. */
  urls: string[];
  /** The processes whose CPU time the requests cost (a PostgreSQL server's included). */
  pids: () => number[];
  /** Of those, the PostgreSQL server's, for its share of the CPU time. */
  databasePids?: () => number[];
  /** How much of the sends' background work is not done yet, for a server that works on the partner's tables. */
  backgroundLeft?: () => Promise<number>;
  /** On PostgreSQL: vacuums the target's database, at the end of each of its runs (`databaseOf`). */
  vacuum?: () => Promise<void>;
  prefix: string;
  customers: Customer[];
}
interface Sample {
  /** Server CPU time (user + system) per answered request, in microseconds. */
  cpuUs: number;
  /** Of which the PostgreSQL server's processes. */
  databaseCpuUs?: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  unexpected: number;
}

const canPin = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const pinned = (core: number, cmd: string, args: string[]): [string, string[]] =>
  canPin ? ['taskset', ['-c', String(core), cmd, ...args]] : [cmd, args];

async function main() {
  if (!existsSync(BASELINE)) throw new Error(`Baseline not found at ${BASELINE}`);
  if (canPin) execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' });
  if (!process.env.BENCH_SKIP_BUILD) {
    console.log('building…');
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  }
  // The partner with two platforms runs from a copy of the build that registers only those.
  twoPlatformsRoot = buildWithPlatforms(ROOT, TWO_PLATFORMS.split(','));
  const dir = mkdtempSync(path.join(tmpdir(), 'partner-bench-'));
  const children: ChildProcess[] = [];
  /** The bench's own connections to the targets' databases (`databaseOf`), closed before the servers stop. */
  const closing: (() => unknown)[] = [];
  const closeAll = async () => {
    for (const close of closing.splice(0)) await close();
  };
  try {
    // The platform the servers deliver their report updates to: on the load generator's core.
    const platform = await startServer('platform', pinned(0, process.execPath, [PLATFORM, '--port', '0']), {}, children, dir);
    const baselineTokens = path.join(dir, 'baseline-tokens.json');
    const baselineDb = path.join(dir, 'baseline.db');
    const baseline = await startServer(
      'baseline',
      pinned(1, process.execPath, [
        ...profile(), BASELINE, '--port', String(await freePort()), '--db', baselineDb, '--seed', `${ACCOUNTS}x${TESTS_PER_ACCOUNT}`, '--tokens-out', baselineTokens,
        '--platform', platform.url,
      ]),
      {},
      children,
      dir,
    );
    const partnerDb = path.join(dir, 'partner.db');
    const partnerCustomers = await seedPartner({ DATABASE_PATH: partnerDb });
    // The partner with fewer platforms, on a database of its own: one process per SQLite database.
    const fewerDb = path.join(dir, 'partner-two-platforms.db');
    const fewerCustomers = await seedPartner({ DATABASE_PATH: fewerDb });
    if (INVITATIONS > 0) storeInvitations([partnerDb, fewerDb], baselineDb);
    // The Express reference works on a copy of the baseline's data: one server writes to a database.
    const expressDb = path.join(dir, 'express.db');
    const seeded = new Database(baselineDb, { readonly: true });
    seeded.exec(`VACUUM INTO '${expressDb}'`);
    seeded.close();
    const express = await startServer(
      'express',
      pinned(1, process.execPath, [...profile(), EXPRESS, '--port', String(await freePort()), '--db', expressDb, '--platform', platform.url]),
      {},
      children,
      dir,
    );
    const partnerEnv = {
      NODE_ENV: 'production',
      // Production refuses to start without these; the bench makes throwaway ones.
      CANDIDATE_LINK_SECRET: randomBytes(48).toString('base64'),
      ADMIN_TOKEN: randomBytes(24).toString('base64url'),
      PLATFORM_URL: platform.url,
      PARTNER_SECRET: randomBytes(24).toString('base64url'),
      ...Object.fromEntries(
        (process.env.BENCH_PARTNER_ENV ?? '')
          .split(/\s+/)
          .filter(Boolean)
          .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      ),
    };
    const startPartner = async (name: string, database: Record<string, string>, platforms?: 'two') => {
      const port = await freePort();
      const env = { PORT: String(port), ...database, ...partnerEnv };
      return startServer(name, pinned(1, process.execPath, startArgs(platforms)), env, children, dir, port);
    };
    const partner = await startPartner('partner', { DATABASE_PATH: partnerDb });
    const fewer = await startPartner('partner-two-platforms', { DATABASE_PATH: fewerDb }, 'two');
    const baselineCustomers = JSON.parse(readFileSync(baselineTokens, 'utf8')) as Customer[];
    const one = (server: { url: string; pid: number }) => ({ urls: [server.url], pids: () => [server.pid] });
    const targets: Target[] = [
      { name: 'baseline', ...one(baseline), prefix: '', customers: baselineCustomers, ...baselineDatabaseOf(baselineDb, closing) },
      { name: 'express', ...one(express), prefix: '', customers: baselineCustomers, ...baselineDatabaseOf(expressDb, closing) },
      { name: 'partner', ...one(partner), prefix: '/callbacks', customers: partnerCustomers, ...databaseOf({ DATABASE_PATH: partnerDb }, closing) },
      { name: 'partner, two platforms', ...one(fewer), prefix: '/callbacks', customers: fewerCustomers, ...databaseOf({ DATABASE_PATH: fewerDb }, closing) },
    ];
    if (process.env.BENCH_POSTGRES !== '0') {
      postgres = await startPostgres({ durable: true });
      // The database server works for the partner: on the servers' core, as the partner is.
      if (canPin) for (const pid of postgres.pids()) execFileSync('taskset', ['-a', '-cp', '1', String(pid)], { stdio: 'ignore' });
      const pg = postgres;
      const onPostgres = async (name: 'postgres' | 'postgres ×2', instances: number): Promise<Target> => {
        const database = { DATABASE_URL: await pg.createDatabase(name === 'postgres' ? 'bench_one' : 'bench_two'), DATABASE_PATH: partnerDb };
        const customers = await seedPartner(database);
        if (INVITATIONS > 0) await storeInvitationsOnPostgres(database.DATABASE_URL);
        const servers: { url: string; pid: number }[] = [];
        for (let i = 0; i < instances; i++) servers.push(await startPartner(`${name.replace(' ×', '-')}-${i + 1}`, database));
        return {
          name,
          urls: servers.map((s) => s.url),
          pids: () => [...servers.map((s) => s.pid), ...pg.pids()],
          databasePids: pg.pids,
          ...databaseOf(database, closing),
          prefix: '/callbacks',
          customers,
        };
      };
      // The references on PostgreSQL, each on a database of its own seeded as the partner's: the
      // baseline with each driver, and plain Express doing the baseline's work (node-postgres), what a
      // server on the kit's framework can reach there. `script`: the server and its own arguments.
      const referenceOn = async (name: 'pg baseline' | 'pg baseline, postgres.js' | 'pg express', script: string[]): Promise<Target> => {
        const url = await pg.createDatabase(`bench_${name.replace(/\W+/g, '_')}`);
        const customers = await seedPartner({ DATABASE_URL: url, DATABASE_PATH: partnerDb });
        if (INVITATIONS > 0) await storeInvitationsOnPostgres(url);
        const server = await startServer(slug(name), pinned(1, process.execPath, [...profile(), ...script, '--port', '0', '--postgres', url, '--platform', platform.url]), {}, children, dir);
        return {
          name,
          urls: [server.url],
          pids: () => [server.pid, ...pg.pids()],
          databasePids: pg.pids,
          ...databaseOf({ DATABASE_URL: url }, closing),
          prefix: '',
          customers,
        };
      };
      targets.push(
        await referenceOn('pg baseline', [BASELINE, '--driver', 'pg']),
        await referenceOn('pg baseline, postgres.js', [BASELINE, '--driver', 'postgres']),
        await referenceOn('pg express', [EXPRESS]),
      );
      targets.push(await onPostgres('postgres', 1), await onPostgres('postgres ×2', 2));
    }
    console.log(
      `servers up (pinned: ${canPin ? 'yes, servers on core 1, load on core 0' : 'no'}); ${ACCOUNTS} accounts × ${TESTS_PER_ACCOUNT} tests, ` +
        `${INVITATIONS} invitations stored; ${ROUNDS} rounds × ${SECONDS}s each\n`,
    );

    // Seeding leaves work behind (PostgreSQL's autovacuum, SQLite's checkpoints): done before the first run.
    await settle(() => [...new Set(targets.flatMap((t) => t.pids()))]);
    const results: Record<string, Record<string, { load: Sample[]; paced: Sample[] }>> = {};
    const only = process.env.BENCH_CALLBACKS?.split(',');
    const measured = targetsNamed(targets, process.env.BENCH_TARGETS);
    for (const callback of CALLBACKS.filter((c) => !only || only.includes(c.name))) {
      for (const pattern of patterns) {
        const label = `${callback.name}, customers ${pattern}`;
        const r: Record<string, { load: Sample[]; paced: Sample[] }> = (results[label] = Object.fromEntries(measured.map((t) => [t.name, { load: [], paced: [] }])));
        for (const t of measured) await run(t, callback, pattern, { connections: CONNECTIONS, duration: 1 }); // warm-up
        for (let round = 0; round < ROUNDS; round++) {
          // Alternate the order so neither server always runs on a warmer machine.
          const order = round % 2 === 0 ? measured : [...measured].reverse();
          for (const t of order) {
            r[t.name]!.load.push(await run(t, callback, pattern, { connections: CONNECTIONS, duration: SECONDS }));
            // References for CPU and throughput (the framework, the other driver); their latency is not in question.
            if (t.name === 'express' || t.name === 'pg express' || t.name === 'pg baseline, postgres.js') continue;
            r[t.name]!.paced.push(await paced(t, callback, pattern, { rate: PACED_RATE, duration: SECONDS, connections: 10 }));
          }
        }
        printCallback(label, r);
        if (callback.name === 'send_candidate' && pattern === patterns[0] && r.baseline) printMailAlone(partnerDb, r.baseline.load);
      }
    }
    if (process.env.BENCH_STATEMENTS !== '0') {
      const counted: [string, Record<string, number>][] = [['partner on SQLite', await countStatements({ DATABASE_PATH: path.join(dir, 'count.db') })]];
      if (postgres) {
        counted.push(['partner on PostgreSQL', await countStatements({ DATABASE_PATH: path.join(dir, 'count-pg.db'), DATABASE_URL: await postgres.createDatabase('bench_count') })]);
        counted.push(['baseline on PostgreSQL', await countBaselineStatements({ DATABASE_PATH: path.join(dir, 'count-pg.db'), DATABASE_URL: await postgres.createDatabase('bench_count_baseline') })]);
      }
      printStatements(counted);
    }
    // Measured alone, on the same database: one partner process per SQLite database.
    await closeAll();
    await stopAll(children);
    postgres?.stop();
    postgres = undefined;
    if (process.env.BENCH_STARTUP !== '0') await startupAndIdle(partnerDb);
    if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(results, null, 2));
  } finally {
    await closeAll();
    await stopAll(children);
    postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What each callback sends to the database, counted in the query layer (`countingStatements`,
 * src/lib/sql.ts): the partner started in this process on a database of its own (20 accounts),
 * its background loops woken by the work itself (they never poll on their own here), the report
 * updates accepted by a stand-in for the platform that answers 200. Each callback 20 times, one
 * after the other, each waited for until nothing more is sent; a send counts its background work
 * (the start, the report update delivered, the e-mail sent). On PostgreSQL each statement is a
 * round trip. Statements per request, by callback.
 */
async function countStatements(database: { DATABASE_PATH: string; DATABASE_URL?: string }): Promise<Record<string, number>> {
  const customers = await seedPartner(database, 20);
  const platform = createHttpServer((req, res) => req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}')));
  await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
  const counter = { statements: 0 };
  const partner = await startPartnerInProcess({
    config: loadConfig({
      PORT: '0',
      DATABASE_PATH: database.DATABASE_PATH,
      ...(database.DATABASE_URL && { DATABASE_URL: database.DATABASE_URL }),
      PLATFORM_URL: `http://127.0.0.1:${(platform.address() as AddressInfo).port}`,
      PARTNER_SECRET: randomBytes(24).toString('base64url'),
      LOG_LEVEL: 'silent',
    }),
    provider: demoProvider(),
    overrides: { sql: (sql) => countingStatements(sql, counter), pollIntervalMs: 3_600_000 },
  });
  const { port } = partner.server.address() as AddressInfo;
  try {
    return await countEach(customers, counter, async (callback, customer) => {
      const { method, path: at, body, headers } = callback.request(customer, '/callbacks');
      const res = await fetch(`http://127.0.0.1:${port}${at}`, { method, body, headers });
      return { status: res.status, body: await res.text() };
    });
  } finally {
    await partner.close();
    platform.close();
  }
}

/**
 * The same count for the baseline on PostgreSQL (bench/callbacks-work-postgres.mjs, node-postgres),
 * its work called in this process on a database seeded as the partner's: each call is a query.
 */
async function countBaselineStatements(database: { DATABASE_PATH: string; DATABASE_URL?: string }): Promise<Record<string, number>> {
  const customers = await seedPartner(database, 20);
  type Reply = { status: number; body: unknown };
  const work = (await import(pathToFileURL(BASELINE_POSTGRES_WORK).href)) as {
    driver(name: string, url: string): { close(): Promise<void> };
    callbacksOnPostgres(
      db: unknown,
      options: { counter: { statements: number } },
    ): Record<'validateToken' | 'sendCandidate', (authorization: string, body: unknown) => Promise<Reply>> & { tests(authorization: string): Promise<Reply> };
  };
  const db = work.driver('pg', database.DATABASE_URL!);
  const counter = { statements: 0 };
  const callbacks = work.callbacksOnPostgres(db, { counter });
  try {
    return await countEach(customers, counter, async (callback, customer) => {
      const { path: at, body, headers } = callback.request(customer, '');
      const parsed: unknown = body === undefined ? undefined : JSON.parse(body);
      const reply =
        at === '/tests' ? await callbacks.tests(headers.authorization!) : await callbacks[at === '/validate_token' ? 'validateToken' : 'sendCandidate'](headers.authorization!, parsed);
      return { status: reply.status, body: JSON.stringify(reply.body) };
    });
  } finally {
    await db.close();
  }
}

/** Statements per request of each callback, `call`ed once per customer, each waited for until nothing more is sent. */
async function countEach(
  customers: Customer[],
  counter: { statements: number },
  call: (callback: Callback, customer: Customer) => Promise<{ status: number; body: string }>,
): Promise<Record<string, number>> {
  /** Until nothing has been sent for 300 ms: the background work a request set off is done. */
  const quiet = async () => {
    for (let last = -1; last !== counter.statements; ) {
      last = counter.statements;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  };
  await quiet();
  const counts: Record<string, number> = {};
  for (const callback of CALLBACKS) {
    const before = counter.statements;
    for (const customer of customers) {
      const { status, body } = await call(callback, customer);
      if (status !== callback.expected) throw new Error(`${callback.name} answered ${status}: ${body}`);
      await quiet();
    }
    counts[callback.name] = (counter.statements - before) / customers.length;
  }
  return counts;
}

function printStatements(counted: [string, Record<string, number>][]): void {
  console.log('statements sent to the database per request, one request at a time (on PostgreSQL each a round trip); send_candidate with its background work');
  console.log(`  ${''.padEnd(24)}${CALLBACKS.map((c) => c.name.padStart(16)).join('')}`);
  for (const [label, counts] of counted) console.log(`  ${label.padEnd(24)}${CALLBACKS.map((c) => (counts[c.name] ?? Number.NaN).toFixed(1).padStart(16)).join('')}`);
  console.log('');
}

/** The PostgreSQL server of the bench's PostgreSQL runs, while it runs. */
let postgres: RunningPostgres | undefined;

/** Stops the servers and waits for them to exit: the partner may still be writing to its database. */
async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map((c) => (c.exitCode !== null ? undefined : new Promise((resolve) => (c.once('exit', resolve), c.kill('SIGTERM'))))),
  );
}

/** Where the build that registers only TWO_PLATFORMS is (scripts/bench-platforms.ts). */
let twoPlatformsRoot = ROOT;

/**
 * The partner is started as `npm start` starts it (node flags included), so the bench measures that.
 * `two`: the same build with only TWO_PLATFORMS registered (`twoPlatformsRoot`).
 */
function startArgs(platforms?: 'two'): string[] {
  const start = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const [node, ...args] = start.split(/\s+/);
  if (node !== 'node') throw new Error(`npm start must run node directly to be benchmarked: ${start}`);
  const root = platforms === 'two' ? twoPlatformsRoot : ROOT;
  return [...profile(), ...args.map((a) => (a.endsWith('.js') ? path.join(root, a) : a))];
}

/**
 * BENCH_CPU_PROF=<dir>: each server process (the partners, the baselines, plain Express) writes its
 * CPU profile there as it exits, named after the server's pid (as its log is).
 */
function profile(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', '--cpu-prof-interval=10000', `--cpu-prof-dir=${path.resolve(dir)}`] : [];
}

/** The baseline prints the port it was given, so it gets a free one rather than 0. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });
}

/** The partner's database with the baseline's shape of data: accounts bound to companies 1…N (scripts/bench-history.ts). */
const seedPartner = (settings: { DATABASE_PATH: string; DATABASE_URL?: string }, count = ACCOUNTS): Promise<Customer[]> =>
  seedAccounts({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL }, count, TESTS_PER_ACCOUNT, DEMO_MIGRATIONS);

/**
 * Invitations already stored, the same number in every database of the run, as a partner with
 * history has: finished ones, with their report updates delivered and e-mails sent
 * (scripts/bench-history.ts).
 */
function storeInvitations(partnerFiles: string[], baselineFile: string): void {
  storeHistoryOnSqlite(partnerFiles, baselineFile, INVITATIONS, ACCOUNTS);
}
const storeInvitationsOnPostgres = (url: string): Promise<void> => storeHistoryOnPostgres(url, INVITATIONS, ACCOUNTS);

/**
 * Time from process start to the first answered /healthz, and resident memory once idle: the
 * partner as `npm start` runs it, on the bench's database, beside two references — a bare
 * node:http process answering /healthz (bench/healthz-bare.mjs), and an Express app that opens the
 * same database and does nothing else (bench/healthz-express.mjs): the floor for any server on the
 * kit's framework and database. Medians of five starts each, the three taking turns.
 */
async function startupAndIdle(partnerDb: string): Promise<void> {
  const env = {
    NODE_ENV: 'production',
    DATABASE_PATH: partnerDb,
    CANDIDATE_LINK_SECRET: randomBytes(48).toString('base64'),
    ADMIN_TOKEN: randomBytes(24).toString('base64url'),
    LOG_LEVEL: 'warn',
  };
  const measure = async (args: string[]) => {
    const port = await freePort();
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port) }, stdio: 'ignore' });
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
      if (up) break;
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const startMs = performance.now() - started;
    await settle([child.pid!]);
    const rssMb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;
    await new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM')));
    return { startMs, rssMb };
  };
  const programs = {
    'bare node': [path.join(ROOT, 'bench', 'healthz-bare.mjs')],
    'express + db': [path.join(ROOT, 'bench', 'healthz-express.mjs')],
    partner: startArgs(),
    // The same partner with two of the kit's platforms: what the others add.
    'partner ×2p': startArgs('two'),
  };
  const runs: Record<string, { startMs: number; rssMb: number }[]> = {};
  for (let i = 0; i < 5; i++) for (const [name, args] of Object.entries(programs)) (runs[name] ??= []).push(await measure(args));
  const startOf = (name: string) => median(runs[name]!.map((r) => r.startMs));
  const bare = startOf('bare node');
  const framework = startOf('express + db');
  console.log(`start-up (process start to the first /healthz answer) and idle memory, medians of 5; ×2p: the partner with ${TWO_PLATFORMS} only`);
  for (const [name, r] of Object.entries(runs)) {
    const startMs = startOf(name);
    const rss = median(r.map((x) => x.rssMb));
    const goals = name.startsWith('partner') ? `   ${(startMs / framework).toFixed(2)}× Express + db (goal ≤ 2×), idle ${rss <= 80 ? 'within' : 'above'} 80 MB` : '';
    console.log(`  ${name.padEnd(13)} ${startMs.toFixed(0).padStart(5)} ms (${(startMs / bare).toFixed(2)}× bare)   ${rss.toFixed(1).padStart(6)} MB RSS${goals}`);
  }
  console.log('');
}

function startServer(
  name: string,
  [cmd, args]: [string, string[]],
  env: Record<string, string>,
  children: ChildProcess[],
  logDir: string,
  healthzPort?: number,
): Promise<{ url: string; pid: number }> {
  // The partner's log goes to a file, as in a deployment: through a pipe to this (busy) process,
  // a full pipe would block the server's synchronous log writes and show up as latency.
  const logFile = healthzPort === undefined ? 'pipe' : openSync(path.join(logDir, `${name}.log`), 'w');
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', logFile, 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const ready = (port: number | string) => {
      // Keep draining the logs (a full pipe would stall the server) without keeping them.
      child.stdout?.off('data', onData);
      child.stdout?.resume();
      clearInterval(poll);
      resolve({ url: `http://127.0.0.1:${port}`, pid: child.pid! });
    };
    const onData = (d: Buffer) => {
      output += d;
      const port = /listening (\d+)/.exec(output)?.[1]; // the baseline's "listening <port>"
      if (port && healthzPort === undefined) ready(port);
    };
    // The partner logs nothing at quieter log levels: ask /healthz instead.
    const poll = setInterval(() => {
      if (healthzPort === undefined) return;
      fetch(`http://127.0.0.1:${healthzPort}/healthz`).then(
        (r) => r.ok && ready(healthzPort),
        () => undefined,
      );
    }, 100);
    child.stdout?.on('data', onData);
    child.stderr!.on('data', (d) => (output += d));
    child.once('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`${name} exited with ${code}:\n${output}`));
    });
  });
}

interface Callback {
  name: string;
  expected: number;
  request(customer: Customer, prefix: string): { method: 'GET' | 'POST'; path: string; body?: string; headers: Record<string, string> };
}

const CALLBACKS: Callback[] = [
  {
    name: 'validate_token',
    expected: 200,
    request: (c, prefix) => ({
      method: 'POST',
      path: `${prefix}/validate_token`,
      body: JSON.stringify({ company_id: c.company_id }),
      headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
    }),
  },
  {
    name: 'tests',
    expected: 200,
    request: (c, prefix) => ({ method: 'GET', path: `${prefix}/tests`, headers: { authorization: `Bearer ${c.token}` } }),
  },
  {
    name: 'send_candidate',
    expected: 201,
    request: (c, prefix) => {
      const test = c.tests[Math.floor(Math.random() * c.tests.length)]!;
      return {
        method: 'POST',
        path: `${prefix}/send_candidate`,
        body: JSON.stringify({
          first_name: 'Ada',
          last_name: 'Lovelace',
          email: 'ada@example.com',
          candidate_id: 17,
          company_id: c.company_id,
          report_id: randomUUID(),
          test_id: String(test.id),
          test_name: test.name,
        }),
        headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
      };
    },
  },
];

/** Closed-loop load: each of `connections` sends its next request as soon as the last is answered. */
async function run(target: Target, callback: Callback, pattern: Pattern, opts: { connections: number; duration: number }): Promise<Sample> {
  const next = customerPicker(pattern, target.customers.length);
  const cpuBefore = cpuTimes(target.pids());
  // Several instances: the connections split between them, as a load balancer splits them.
  const results = await Promise.all(
    target.urls.map((url) =>
      autocannon({
        url,
        connections: opts.connections / target.urls.length,
        duration: opts.duration,
        requests: [
          {
            // A customer (token) drawn by the pattern on every request, fresh report ids for send_candidate.
            setupRequest: (req) => {
              const customer = target.customers[next()]!;
              return { ...req, ...callback.request(customer, target.prefix) };
            },
          },
        ],
      }),
    ),
  );
  const total = results.reduce((n, r) => n + r.requests.total, 0);
  const ok = results.reduce((n, r) => n + ((r.statusCodeStats as Record<string, { count: number }>)[String(callback.expected)]?.count ?? 0), 0);
  await settle(target.pids, target.backgroundLeft);
  await target.vacuum?.();
  return {
    cpuUs: cpuSince(cpuBefore, target.pids()) / Math.max(1, total),
    ...(target.databasePids && { databaseCpuUs: cpuSince(cpuBefore, target.databasePids()) / Math.max(1, total) }),
    rps: results.reduce((n, r) => n + r.requests.average, 0),
    // Of several instances', the slower: what the platform would see of the pair.
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    errors: results.reduce((n, r) => n + r.errors + r.timeouts, 0),
    unexpected: total - ok,
  };
}

/**
 * Open-loop load at an even rate, as ordinary traffic arrives: request i is due at start + i/rate
 * whatever became of the earlier ones, and its latency runs from when it was due, so a server that
 * stalls is charged for every request it kept waiting (no coordinated omission). autocannon's
 * `overallRate` is not this: each connection sends its quota for the second back to back at the top
 * of every second, which measures how fast a burst drains rather than latency under a steady load.
 */
async function paced(target: Target, callback: Callback, pattern: Pattern, opts: { rate: number; duration: number; connections: number }): Promise<Sample> {
  const next = customerPicker(pattern, target.customers.length);
  const pools = target.urls.map((url) => new Pool(url, { connections: Math.ceil(opts.connections / target.urls.length), pipelining: 1 }));
  const total = opts.rate * opts.duration;
  const interval = 1000 / opts.rate;
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  let errors = 0;
  let unexpected = 0;
  const cpuBefore = cpuTimes(target.pids());
  const start = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    // setImmediate, not setTimeout: timers fire on whole milliseconds, late by up to one interval.
    // This core runs only the load generator, so spinning on it costs the servers nothing.
    const tick = () => {
      const now = performance.now();
      for (; sent < total && start + sent * interval <= now; sent++) {
        const due = start + sent * interval;
        const { method, path, body, headers } = callback.request(target.customers[next()]!, target.prefix);
        pending.push(
          pools[sent % pools.length]!.request({ method, path, body, headers }).then(
            async (res) => {
              await res.body.dump();
              latencies.push(performance.now() - due);
              if (res.statusCode !== callback.expected) unexpected++;
            },
            () => void errors++,
          ),
        );
      }
      if (sent < total) setImmediate(tick);
      else resolve();
    };
    tick();
  });
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  await settle(target.pids, target.backgroundLeft);
  await target.vacuum?.();
  const cpuUs = cpuSince(cpuBefore, target.pids()) / Math.max(1, total);
  const databaseCpuUs = target.databasePids && cpuSince(cpuBefore, target.databasePids()) / Math.max(1, total);
  await Promise.all(pools.map((p) => p.close()));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return { cpuUs, ...(databaseCpuUs !== undefined && { databaseCpuUs }), rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors, unexpected };
}

/**
 * Waits until the server is idle: the background work a run set off (an invitation's e-mail and
 * report update are sent after the answer) is charged to that run's CPU time per request, and the
 * next run starts on a quiet server. Idle is under 5% of a core for a whole second, five 200 ms
 * windows in a row: a server held up in a long disk write uses no CPU either, and a single window
 * took it for idle with its backlog still queued, which the next run then paid for. With
 * `backgroundLeft`, idle is not enough: the sends' background work must be done too (work waiting
 * for a poll or a retry uses no CPU meanwhile). Gives up after 120 s, and says so.
 */
async function settle(pids: number[] | (() => number[]), backgroundLeft?: () => Promise<number>): Promise<void> {
  const now = () => (typeof pids === 'function' ? pids() : pids);
  let quiet = 0;
  let left = 0;
  for (let waited = 0; waited < 120_000; waited += 200) {
    const before = cpuTimes(now());
    await new Promise((resolve) => setTimeout(resolve, 200));
    quiet = cpuSince(before, now()) < 10_000 ? quiet + 1 : 0;
    if (quiet < 5) continue;
    // Quiet is not done: work waiting for a poll or a retry would be charged to the next run.
    left = backgroundLeft ? await backgroundLeft() : 0;
    if (left === 0) return;
    quiet = 0;
  }
  if (left > 0) console.log(`  (still ${left} sends' background work left after 120 s: this run's CPU time leaves it out)`);
}

/**
 * What the bench asks of a target's database with the partner's tables (the partner's, and the
 * PostgreSQL references', which use them), on one connection of its own:
 * - `backgroundLeft`: the sends' background work not done yet (invitations not started, report
 *   updates and e-mails not sent), read once the servers are quiet, so it costs a run one statement;
 * - on PostgreSQL, `vacuum`: `VACUUM (ANALYZE)`, run at the end of each of the target's runs, in its
 *   CPU time, so the dead rows a run's writes leave are cleaned up, and charged, in that run. Left to
 *   autovacuum, the cleanup of one target's sends came in another's run on the same server (the
 *   partner's send followed plain Express's or the two instances' in every round, and measured 4×
 *   the baseline's where it measured 2× run beside the baseline alone).
 */
function databaseOf(
  database: { DATABASE_PATH?: string; DATABASE_URL?: string },
  closing: (() => unknown)[],
): Pick<Target, 'backgroundLeft' | 'vacuum'> {
  const text = `SELECT (SELECT count(*) FROM invitations WHERE status = 'sent' AND started_at IS NULL)
    + (SELECT count(*) FROM report_updates WHERE status = 'pending') + (SELECT count(*) FROM mail_outbox WHERE status = 'pending') AS n`;
  if (database.DATABASE_URL) {
    const pool = new pg.Pool({ connectionString: database.DATABASE_URL, max: 1 });
    closing.push(() => pool.end());
    return {
      backgroundLeft: async () => Number((await pool.query<{ n: string }>(text)).rows[0]!.n),
      vacuum: async () => void (await pool.query('VACUUM (ANALYZE)')),
    };
  }
  const db = new Database(database.DATABASE_PATH!, { readonly: true });
  closing.push(() => db.close());
  const statement = db.prepare<[], { n: number }>(text);
  return { backgroundLeft: async () => statement.get()!.n };
}

/**
 * `backgroundLeft` for the SQLite baselines (bench/send-work.mjs): the steps of sends' background
 * work still pending in their outbox.
 */
function baselineDatabaseOf(file: string, closing: (() => unknown)[]): Pick<Target, 'backgroundLeft'> {
  const db = new Database(file, { readonly: true });
  closing.push(() => db.close());
  const statement = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM outbox WHERE status = 'pending'");
  return { backgroundLeft: async () => statement.get()!.n };
}

/**
 * CPU time each process has used, from /proc (Linux), keyed by pid and start time (a pid used
 * again is another process). Per request, it is a steadier measure than req/s on a machine with
 * other work on it: other processes take wall time, not this one's CPU.
 */
function cpuTimes(pids: number[]): Map<string, number> {
  const times = new Map<string, number>();
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // After the command name: utime, stime (fields 14 and 15 of proc(5)) and starttime (22).
      times.set(`${pid}@${fields[19]}`, ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS);
    } catch {
      // Ended meanwhile.
    }
  }
  return times;
}

/**
 * CPU time `pids` used since `before` was taken: each process's time since then, all of it for a
 * process started since (a PostgreSQL backend for a new connection). A process that ended
 * meanwhile is not counted at all: a PostgreSQL backend whose connection an idle pool closed, its
 * time spent before the run. (Subtracting the sums instead, such a backend's whole past went
 * negative into the run.) NaN when none of them is there any more.
 */
function cpuSince(before: Map<string, number>, pids: number[]): number {
  const after = cpuTimes(pids);
  if (after.size === 0) return Number.NaN;
  let us = 0;
  for (const [key, time] of after) us += time - (before.get(key) ?? 0);
  return us;
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function printCallback(name: string, r: Record<string, { load: Sample[]; paced: Sample[] }>) {
  // A row for each server measured (BENCH_TARGETS may leave some out), a ratio where both sides were.
  const row = (label: string, s: Sample[] | undefined) => {
    if (!s?.length) return;
    console.log(
      `  ${label.padEnd(12)} ${median(s.map((x) => x.rps)).toFixed(0).padStart(7)} req/s   ${median(s.map((x) => x.cpuUs)).toFixed(0).padStart(4)} µs CPU/req   p50 ${median(s.map((x) => x.p50)).toFixed(1).padStart(5)} ms   p99 ${median(s.map((x) => x.p99)).toFixed(1).padStart(5)} ms` +
        (s[0]?.databaseCpuUs === undefined ? '' : `   (the database's ${median(s.map((x) => x.databaseCpuUs!)).toFixed(0)} µs)`) +
        (s.some((x) => x.errors || x.unexpected) ? `   (${s.reduce((n, x) => n + x.errors + x.unexpected, 0)} errors/unexpected statuses)` : ''),
    );
  };
  /** `s` against `reference`: throughput, and CPU time per request (the reference's over `s`'s, so higher is better for both). */
  const ratio = (label: string, s: Sample[] | undefined, reference: Sample[] | undefined, of: string, note = '') => {
    if (!s?.length || !reference?.length) return;
    const rps = median(s.map((x) => x.rps)) / median(reference.map((x) => x.rps));
    const cpu = median(reference.map((x) => x.cpuUs)) / median(s.map((x) => x.cpuUs));
    console.log(`  ${label.padEnd(12)} ${rps.toFixed(2)}× of ${of} throughput; ${cpu.toFixed(2)}× by CPU time per request${note}`);
  };
  /** A send's CPU time as a multiple of the reference's, against the goal (≤ 2×): how the issue states it. */
  const times = (label: string, s: Sample[] | undefined, reference: Sample[] | undefined) => {
    if (!name.startsWith('send_candidate') || !s?.length || !reference?.length) return;
    const x = median(s.map((v) => v.cpuUs)) / median(reference.map((v) => v.cpuUs));
    console.log(`  ${label.padEnd(12)} ${x.toFixed(2)}× the baseline's CPU time per send, background work included on both (goal ≤ 2×)`);
  };
  const load = (n: string) => r[n]?.load;
  const fewer = 'partner, two platforms';
  console.log(`${name} — ${CONNECTIONS} connections`);
  for (const n of ['baseline', 'express', 'partner']) row(n, load(n));
  row('partner ×2p', load(fewer));
  ratio('express', load('express'), load('baseline'), "the baseline's");
  ratio('partner', load('partner'), load('baseline'), "the baseline's", ' (background work included)');
  ratio('partner ×2p', load(fewer), load('baseline'), "the baseline's", ` (${TWO_PLATFORMS} only)`);
  times('partner', load('partner'), load('baseline'));
  const labels = { postgres: 'partner', 'postgres ×2': 'partner ×2' } as const;
  const onPostgres = (['postgres', 'postgres ×2'] as const).filter((n) => r[n]);
  if (['pg baseline', 'pg baseline, postgres.js', 'pg express', ...onPostgres].some((n) => r[n])) {
    console.log(`${name} — on PostgreSQL, CPU time of the server(s) and of the database server's processes together`);
    row('baseline', load('pg baseline'));
    row('postgres.js', load('pg baseline, postgres.js'));
    row('express', load('pg express'));
    for (const n of onPostgres) row(labels[n], load(n));
    ratio('postgres.js', load('pg baseline, postgres.js'), load('pg baseline'), "the baseline's (node-postgres)");
    ratio('express', load('pg express'), load('pg baseline'), "the PostgreSQL baseline's");
    for (const n of onPostgres) ratio(labels[n], load(n), load('pg baseline'), "the PostgreSQL baseline's", ' (background work included)');
    for (const n of onPostgres) times(labels[n], load(n), load('pg baseline'));
    // The reference is the baseline on the partner's own driver (node-postgres); the other driver's, for comparison.
    for (const n of onPostgres) ratio(labels[n], load(n), load('pg baseline, postgres.js'), "the postgres.js baseline's");
  }
  console.log(`${name} — paced: ${PACED_RATE} req/s, evenly spaced, open loop`);
  row('baseline', r.baseline?.paced);
  row('partner', r.partner?.paced);
  row('partner ×2p', r[fewer]?.paced);
  row('pg baseline', r['pg baseline']?.paced);
  for (const n of onPostgres) row(`pg ${labels[n]}`, r[n]!.paced);
  console.log('');
}

/** A target's label as BENCH_TARGETS and the log files name it: each run of non-word characters a dash. */
const slug = (name: string) => name.replace(/\W+/g, '-');

/** The targets `BENCH_TARGETS` names (comma-separated, each label with its non-word runs as dashes); all without it. */
function targetsNamed(targets: Target[], names: string | undefined): Target[] {
  if (!names) return targets;
  const wanted = names.split(',').map((n) => n.trim());
  for (const n of wanted) {
    if (!targets.some((t) => slug(t.name) === n)) throw new Error(`BENCH_TARGETS: ${n} is none of ${targets.map((t) => slug(t.name)).join(', ')}`);
  }
  return targets.filter((t) => wanted.includes(slug(t.name)));
}

/**
 * nodemailer's share of a send, measured in this run (bench/mail-alone.mjs, on the servers' core):
 * the partner's own invitation e-mail rendered by its mailer and nothing else, beside the
 * baseline's whole send_candidate.
 */
function printMailAlone(partnerDb: string, baseline: Sample[]): void {
  const [cmd, args] = pinned(1, process.execPath, [MAIL_ALONE, '--db', partnerDb]);
  const { cpuUsPerEmail } = JSON.parse(execFileSync(cmd, args, { cwd: ROOT, encoding: 'utf8' })) as { cpuUsPerEmail: number };
  const baselineUs = median(baseline.map((x) => x.cpuUs));
  console.log(
    `send_candidate — the e-mail alone: nodemailer's JSON transport, the partner's invitation e-mail\n` +
      `  ${cpuUsPerEmail.toFixed(0)} µs CPU per e-mail = ${(cpuUsPerEmail / baselineUs).toFixed(2)}× the baseline's whole send (${baselineUs.toFixed(0)} µs)\n`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
