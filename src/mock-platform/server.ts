import type { Server } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { systemClock, type Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { createLogger, type Logger } from '../http/logger.js';
import { createMockPlatform } from './app.js';
import { openMockDb } from './db.js';
import type { PlatformEvents } from './events.js';
import { SEED_API_TOKENS, SEED_COMPANIES, seedApiTokens, seedCompanies } from './seed.js';

export interface MockPlatformOptions {
  /** 0 picks a free port (tests). */
  port?: number;
  host?: string;
  /** ':memory:' (default): a fresh platform on every start. */
  databasePath?: string;
  logger?: Logger;
  logLevel?: string;
  clock?: Clock;
  dispatcher?: Dispatcher;
  callbackTimeoutMs?: number;
  events?: PlatformEvents;
  /** Seed the sandbox's companies, members, candidates and API tokens (default true). */
  seed?: boolean;
}

export interface RunningMockPlatform {
  /** e.g. http://127.0.0.1:4000 — the `{integrations_url}` partners talk to. */
  url: string;
  app: ReturnType<typeof createMockPlatform>;
  db: Db;
  server: Server;
  close(): Promise<void>;
}

/** Opens the database, seeds it, and listens. Used by `npm run mock`, `npm run dev` and the tests. */
export async function startMockPlatform(options: MockPlatformOptions = {}): Promise<RunningMockPlatform> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(options.logLevel ?? 'info');
  const db = openMockDb(options.databasePath ?? ':memory:');
  if (options.seed ?? true) {
    seedCompanies(db, clock);
    seedApiTokens(db, clock);
  }
  const app = createMockPlatform({
    db,
    clock,
    logger,
    dispatcher: options.dispatcher,
    callbackTimeoutMs: options.callbackTimeoutMs,
    events: options.events,
  });

  const host = options.host ?? '127.0.0.1';
  const server = app.listen(options.port ?? 0, host);
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (err) {
    db.close();
    throw err;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Stop accepting, let in-flight requests finish (a fault may be holding one), then drop the rest.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), 5_000);
      await closed;
      clearTimeout(grace);
      db.close();
    })());
  return { url, app, db, server, close };
}

const Env = z.object({
  MOCK_PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  MOCK_HOST: z.string().min(1).default('127.0.0.1'),
  MOCK_DATABASE_PATH: z.string().min(1).default(':memory:'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

const isEntryPoint = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isEntryPoint) {
  const present = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== ''));
  const env = Env.safeParse(present);
  if (!env.success) {
    console.error(
      `Invalid configuration; fix these environment variables:\n${env.error.issues.map((i) => `  - ${i.path.join('.')}: ${i.message}`).join('\n')}`,
    );
    process.exit(78); // EX_CONFIG
  }
  const logger = createLogger(env.data.LOG_LEVEL);
  const mock = await startMockPlatform({
    port: env.data.MOCK_PORT,
    host: env.data.MOCK_HOST,
    databasePath: env.data.MOCK_DATABASE_PATH,
    logger,
  });
  logger.info({ url: mock.url, database: env.data.MOCK_DATABASE_PATH }, 'mock platform listening');
  // The sandbox tokens are public by design (a local tool), so printing them is fine.
  const tokens = SEED_API_TOKENS.map((t) => `${SEED_COMPANIES.find((c) => c.id === t.companyId)?.name} (company ${t.companyId}): ${t.token}`);
  process.stdout.write(`\nMock platform sandbox: ${mock.url}\nPersonal API tokens:\n  ${tokens.join("\n  ")}\n\n`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      mock.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}
