import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { systemClock, type Clock } from '../lib/clock.js';
import type { Db } from '../lib/db.js';
import { LOG_FORMATS, createLogger, logDestination, type LogFormat, type Logger } from '../lib/http/logger.js';
import { buildMockPlatform, type createMockPlatform } from './app.js';
import { seedCareers } from './careers/seed.js';
import { adjustableClock, isAdjustable, type AdjustableClock } from './clock/adjustable.js';
import { seedPlacements } from './companies/seed-placements.js';
import { openMockDb } from './db.js';
import type { PlatformEvents } from './events.js';
import { mailLog } from './mail.js';
import { checkPlugins } from './platforms/assemble.js';
import { mockPlatforms } from './platforms/index.js';
import type { PlatformPlugin, PlatformSide } from './platforms/plugin.js';
import { SEED_API_TOKENS, SEED_COMPANIES, seedApiTokens, seedCompanies } from './seed.js';
import { mockWebhooks, type MockWebhooks } from './webhooks/index.js';
import { loadEnvFile } from '../lib/env-file.js';
import { appServer } from '../lib/perf/app-server.js';
import { EX_CONFIG, exitOnStartupError, exitUnlessRun, isEntryPoint, listenFailure, readCommandLine, type CliOutput } from '../lib/cli.js';

export interface MockPlatformOptions {
  /** 0 picks a free port (tests). */
  port?: number;
  host?: string;
  /** ':memory:' (default): a fresh platform on every start. */
  databasePath?: string;
  logger?: Logger;
  logLevel?: string;
  /** How the logger built here writes (default json); ignored with `logger`. */
  logFormat?: LogFormat;
  /** The system clock by default; either way wrapped so `POST /_mock/clock` can move it forward. */
  clock?: Clock;
  dispatcher?: Dispatcher;
  callbackTimeoutMs?: number;
  events?: PlatformEvents;
  /** Webhook requests' timeout (10 s) and the rate limit's random draw; for tests. */
  webhookTimeoutMs?: number;
  random?: () => number;
  /**
   * Run the background workers: the webhooks' (every second and after each event) and each platform
   * plugin's; default true. Tests that drive the webhooks' leave it off.
   */
  webhookWorker?: boolean;
  /** Seed the sandbox's companies, members, candidates, API tokens, careers site and each platform plugin's world (default true). */
  seed?: boolean;
  /** The platforms it plays besides the hiring platform (platforms/): the registry's by default. */
  platforms?: readonly PlatformPlugin[];
  /** Where the mock is reached from outside (a proxy, a tunnel); the listening address by default. */
  publicUrl?: string;
  /** Careers applications' files: next to a database file, else a temporary folder removed on close. */
  uploadsDir?: string;
}

export interface RunningMockPlatform {
  /** e.g. http://127.0.0.1:4000 — the `{integrations_url}` partners talk to. */
  url: string;
  app: ReturnType<typeof createMockPlatform>;
  db: Db;
  server: Server;
  /** The webhooks: its `deliverer.runOnce()` sends what is due now. */
  webhooks: MockWebhooks;
  /** Where careers applications' files go. */
  uploadsDir: string;
  logger: Logger;
  /** The platform's clock; `advance(ms)` moves it as `POST /_mock/clock` does. */
  clock: AdjustableClock;
  /** The platform plugins as made in this mock, by name: their scripted recruiters (`/_mock/platforms/…`). */
  platforms: ReadonlyMap<string, PlatformSide>;
  close(): Promise<void>;
}

/** Opens the database, seeds it, and listens. Used by `npm run mock`, `npm run dev` and the tests. */
export async function startMockPlatform(options: MockPlatformOptions = {}): Promise<RunningMockPlatform> {
  // Movable through /_mock/clock: the system clock (or the one given) plus an offset.
  const given = options.clock ?? systemClock;
  const clock = isAdjustable(given) ? given : adjustableClock(given);
  const logStream = options.logger ? undefined : logDestination(options.logFormat);
  const logger = options.logger ?? createLogger(options.logLevel ?? 'info', logStream, { server: 'mock' });
  const databasePath = options.databasePath ?? ':memory:';
  const plugins = checkPlugins(options.platforms ?? mockPlatforms());
  const db = openMockDb(databasePath, plugins);
  if (options.seed ?? true) {
    seedCompanies(db, clock);
    seedApiTokens(db, clock);
    seedCareers(db, clock);
    seedPlacements(db, clock);
    for (const plugin of plugins) plugin.seed?.(db, clock);
  }
  // Uploads live next to a database file; an in-memory platform gets a folder that goes with it.
  const inMemory = databasePath === ':memory:';
  const uploadsDir =
    options.uploadsDir ??
    (inMemory ? mkdtempSync(path.join(tmpdir(), 'mock-platform-')) : path.join(path.dirname(path.resolve(databasePath)), 'mock-uploads'));

  // Listen first: the careers site builds absolute URLs, and with port 0 the port is known only now.
  const host = options.host ?? '127.0.0.1';
  const { server, serve } = appServer();
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
      server.listen(options.port ?? 0, host);
    });
  } catch (err) {
    db.close();
    throw listenFailure(err, { port: options.port ?? 0, host }, { port: 'MOCK_PORT', host: 'MOCK_HOST' });
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const mail = mailLog(db, clock);
  const webhooks = mockWebhooks({
    db,
    clock,
    logger,
    mail,
    dispatcher: options.dispatcher,
    timeoutMs: options.webhookTimeoutMs,
    random: options.random,
  });
  const { app, platforms } = buildMockPlatform({
    db,
    clock,
    logger,
    mail,
    webhooks,
    dispatcher: options.dispatcher,
    callbackTimeoutMs: options.callbackTimeoutMs,
    events: options.events,
    logDestination: logStream,
    publicUrl: options.publicUrl ?? url,
    uploadsDir,
    platforms: plugins,
  });
  serve(app);
  const workers = options.webhookWorker ?? true;
  if (workers) {
    webhooks.start();
    for (const side of platforms.values()) side.worker?.start();
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Stop accepting, let in-flight requests finish (a fault may be holding one), then drop the rest.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), 5_000);
      await closed;
      clearTimeout(grace);
      await webhooks.stop();
      if (workers) for (const side of platforms.values()) await side.worker?.stop();
      db.close();
      if (inMemory && options.uploadsDir === undefined) rmSync(uploadsDir, { recursive: true, force: true });
    })());
  return { url, app, db, server, webhooks, uploadsDir, logger, clock, platforms, close };
}

const NOT_A_PORT = 'must be a port number 0–65535';

/** The mock's own variables, read by `npm run mock` and `npm run dev` alike. */
export const MockEnv = z.object({
  MOCK_PORT: z.coerce.number({ error: NOT_A_PORT }).int(NOT_A_PORT).min(0, NOT_A_PORT).max(65535, NOT_A_PORT).default(4000),
  MOCK_HOST: z.string().min(1).default('127.0.0.1'),
  MOCK_DATABASE_PATH: z.string().min(1).default(':memory:'),
  MOCK_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  MOCK_UPLOADS_DIR: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(LOG_FORMATS).default('json'),
});

/**
 * `startMockPlatform` options from the environment (unset or empty: the default); the problems as
 * "NAME: message" lines when a value is wrong.
 */
export function mockOptionsFrom(
  env: Record<string, string | undefined>,
): { ok: true; options: MockPlatformOptions & { databasePath: string; logLevel: string; logFormat: LogFormat } } | { ok: false; problems: string[] } {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = MockEnv.safeParse(present);
  if (!parsed.success) return { ok: false, problems: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
  const e = parsed.data;
  return {
    ok: true,
    options: {
      port: e.MOCK_PORT,
      host: e.MOCK_HOST,
      databasePath: e.MOCK_DATABASE_PATH,
      publicUrl: e.MOCK_PUBLIC_URL?.replace(/\/+$/, ''),
      uploadsDir: e.MOCK_UPLOADS_DIR,
      logLevel: e.LOG_LEVEL,
      logFormat: e.LOG_FORMAT,
    },
  };
}

const USAGE = `Usage: npm run mock

Serves the mock platform sandbox. It takes no arguments; it reads the environment (and .env):

  MOCK_PORT            default 4000
  MOCK_HOST            default 127.0.0.1 (the sandbox has no login: keep it there)
  MOCK_DATABASE_PATH   :memory: (default, a fresh platform per start) or a file kept across restarts
  MOCK_PUBLIC_URL      where the mock is reached from outside (a proxy, a tunnel)
  MOCK_UPLOADS_DIR     careers applications' files (default: next to the database file)
  LOG_LEVEL            fatal | error | warn | info | debug | trace | silent
  LOG_FORMAT           json (default) | pretty`;

/** `npm run mock`'s command line, read before anything starts: it takes no arguments (see readCommandLine). */
export const readMockCommandLine = (args: string[], out?: CliOutput) => readCommandLine(USAGE, args, {}, false, out);

if (isEntryPoint(import.meta.url)) {
  exitUnlessRun(readMockCommandLine(process.argv.slice(2)));
  loadEnvFile();
  const env = mockOptionsFrom(process.env);
  if (!env.ok) {
    console.error(`Invalid configuration; fix these environment variables:\n${env.problems.map((p) => `  - ${p}`).join('\n')}`);
    process.exit(EX_CONFIG);
  }
  // The port in use prints one line naming MOCK_PORT, not a stack.
  const starting = startMockPlatform(env.options).catch(exitOnStartupError);
  // Listening for signals before the banner: a Ctrl-C right after it must still close the mock.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      starting
        .then((mock) => (mock.logger.info({ signal }, 'shutting down'), mock.close()))
        .then(
          () => process.exit(0),
          () => process.exit(1),
        );
    });
  }
  const mock = await starting;
  const { logger } = mock;
  logger.info({ url: mock.url, database: env.options.databasePath }, 'mock platform listening');
  // The sandbox tokens are public by design (a local tool), so printing them is fine.
  const tokens = SEED_API_TOKENS.map(
    (t) => `${SEED_COMPANIES.find((c) => c.id === t.companyId)?.name} (company ${t.companyId}): ${t.token}`,
  );
  process.stdout.write(`\nMock platform sandbox: ${mock.url}\nPersonal API tokens:\n  ${tokens.join("\n  ")}\n\n`);
}
