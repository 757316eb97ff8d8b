import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import type { Dispatcher } from 'undici';
import { demoTokenFile, seedDemoAccount } from './accounts/demo-seed.js';
import type { PartnerRoutes } from './app.js';
import { assemble } from './assemble.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { ConfigError, configWarnings, loadConfig, type Config } from './config.js';
import { openPartnerDatabase, type Sql } from './db/open.js';
import { createLogger, logDestination } from '../lib/http/logger.js';
import { requestsFirst } from '../lib/perf/requests-first.js';
import { backgroundLoop } from './jobs/loop.js';
import { createMailer, type Mailer } from './mail/transport.js';
import type { ProviderSource } from './provider/types.js';
import type { VendorReports } from './results/api.js';
import { deliveryAgent, type DeliveryTimeouts } from './updates/worker.js';
import { platformsOf, type PlatformDefinition, type WebhookHandler } from './platforms/index.js';
import { wakeups, type Queued } from './jobs/wakeups.js';
import { loadEnvFile } from '../lib/env-file.js';
import { appServer } from '../lib/perf/app-server.js';
import { EX_CONFIG, exitOnStartupError, listenFailure } from '../lib/cli.js';

/** Replacements for tests: a fake clock, a dispatcher with short timeouts, a failing mailer. */
export interface MainOverrides {
  clock?: Clock;
  dispatcher?: Dispatcher;
  deliveryTimeouts?: DeliveryTimeouts;
  mailer?: Mailer;
  /** How often the background loops look for due work (default 1 s). */
  pollIntervalMs?: number;
  /** The query layer every part is given, in place of the database's own (the bench counts its statements). */
  sql?: (sql: Sql) => Sql;
}

export interface StartOptions {
  /** Every setting; `loadConfig(process.env, platforms)` when not given. */
  config?: Config;
  /** The vendor's product: a `Provider`, or a factory `(kit) => Provider` (see provider/types.ts). */
  provider: ProviderSource;
  /** By webhook event type; `defaultWebhookHandlers` when not given. Spread them to add or replace one. */
  webhookHandlers?: Readonly<Record<string, WebhookHandler>>;
  /**
   * The platforms the partner speaks besides the kit's (`platformsOf`, platforms/index.ts): what
   * `src/provider/index.ts` exports as `platforms` (docs/platforms.md).
   */
  platforms?: readonly PlatformDefinition[];
  /** Routes of your own (a callback of your product, say), mounted after the kit's. */
  routes?: PartnerRoutes;
  /** For tests. */
  overrides?: MainOverrides;
}

export interface RunningPartner {
  server: Server;
  /** Where the platform and candidates reach this server (PUBLIC_URL, or the address it listens on). */
  publicUrl: string;
  /** Results pushed by your product in process: complete, fail, progress, cancel. */
  reports: VendorReports;
  /** Stops accepting, lets in-flight work finish within SHUTDOWN_GRACE_SECONDS, closes the database. */
  close: () => Promise<void>;
}

/**
 * The partner server with your provider: opens the database, listens, runs the background loops
 * (invitation starter, product canceller, mail sender, report delivery, webhook processor) and returns what you
 * need to push results and to stop it. On SQLite, one process per database file; on PostgreSQL
 * (DATABASE_URL), as many instances as you run (docs/deploy.md).
 */
export async function startPartner(options: StartOptions): Promise<RunningPartner> {
  const platforms = platformsOf({ webhookHandlers: options.webhookHandlers, platforms: options.platforms });
  const config = options.config ?? loadConfig(process.env, platforms);
  const overrides = options.overrides ?? {};
  const logStream = logDestination(config.logFormat);
  const logger = createLogger(config.logLevel, logStream, { server: 'partner' });
  const clock = overrides.clock ?? systemClock;
  if (config.links.developmentKey) {
    // Allowed only on a loopback public URL (config.ts); still, whoever reaches it can forge links.
    logger.warn(
      'candidate and results links are signed with the public development key (CANDIDATE_LINK_SECRET is not set): anyone can forge them. ' +
        'Set CANDIDATE_LINK_SECRET (e.g. `openssl rand -base64 48`) before anyone else can reach this server',
    );
  }
  const database = await openPartnerDatabase(config, {
    onConnectionError: (err) => logger.warn({ err: err.message }, 'a database connection broke; the next query opens another'),
  });
  const sql = overrides.sql ? overrides.sql(database.sql) : database.sql;
  logger.info({ database: database.where, dialect: sql.dialect }, 'database ready');

  // Listen first: with PORT=0 and no PUBLIC_URL, links must name the port actually chosen.
  const { server, serve } = appServer();
  // Explicit timeouts: a slow or stalled client cannot hold a connection open indefinitely.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  server.timeout = 60_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
      server.listen(config.port, config.host);
    });
  } catch (err) {
    await database.close();
    throw listenFailure(err, { port: config.port, host: config.host }, { port: 'PORT', host: 'HOST' });
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const publicUrl = config.port === 0 && config.publicUrl.endsWith(':0') ? config.publicUrl.replace(/:0$/, `:${port}`) : config.publicUrl;
  for (const warning of configWarnings({ ...config, publicUrl })) logger.warn(warning);

  const ownDispatcher = overrides.dispatcher ? undefined : deliveryAgent();
  const mailer = overrides.mailer ?? createMailer(config.mail);
  const intervalMs = overrides.pollIntervalMs ?? 1000;
  // The parts queue work and kick the loop that does it, by name; the loops answer once started.
  const loops = wakeups();
  // The loops a change left work for, or every loop that works on what the lifecycle queues.
  const wake = (names: Queued = ['product canceller', 'mail sender', 'report delivery']) => names.forEach(loops.kick);
  const assembled = async () => {
    const parts = await assemble(config, {
      sql,
      logger,
      logDestination: logStream,
      clock,
      publicUrl,
      mailer,
      dispatcher: overrides.dispatcher ?? ownDispatcher!,
      deliveryTimeouts: overrides.deliveryTimeouts,
      provider: options.provider,
      platforms,
      routes: options.routes,
      onInvitationCreated: () => loops.kick('invitation starter'),
      wake,
      kick: loops.kick,
      // Under a burst of callbacks, invitations start and e-mails go out in the gaps.
      pause: requestsFirst(server),
    });
    // A platform configured in part says so once (its routes answer 503 until the rest is set).
    for (const platform of parts.platforms.values()) for (const warning of platform.warnings?.() ?? []) logger.warn({ platform: platform.name }, warning);
    if (config.demoSeed) {
      const seeded = await seedDemoAccount(sql, parts.accounts, parts.provider.catalog);
      if (seeded) {
        // The token is a credential: it goes to a file only its owner can read, never to the log.
        const file = demoTokenFile(config.databasePath);
        mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
        writeFileSync(file, seeded.token + '\n', { mode: 0o600 });
        chmodSync(file, 0o600);
        logger.info({ accountId: seeded.accountId, tokenFile: file }, 'demo account created');
      }
    }
    return parts;
  };
  const partner = await assembled().catch(async (err: unknown) => {
    // A provider that cannot start (a bad setting of its own) stops start-up like a bad setting of the kit's.
    await new Promise((resolve) => server.close(resolve));
    mailer.close();
    await ownDispatcher?.close();
    await database.close();
    throw err;
  });
  const loop = (name: string, run: (stopping: AbortSignal) => Promise<unknown>) => {
    const running = backgroundLoop(name, run, { logger, intervalMs });
    loops.answer(name, running);
    return running;
  };
  const running = [
    loop('invitation starter', (stopping) => partner.starter.runOnce(stopping)),
    // Only a provider with a cancel hook has cancels to tell its product of.
    ...(partner.provider.cancelInvitation ? [loop('product canceller', (stopping) => partner.canceller.runOnce(stopping))] : []),
    loop('mail sender', (stopping) => partner.sender.runOnce(stopping)),
    loop('report delivery', (stopping) => partner.worker.runOnce(stopping)),
    ...partner.platformWorkers.map((worker) => loop(worker.name, (stopping) => worker.runOnce(stopping))),
  ];
  const waiting = partner.worker.waiting();
  if (waiting) logger.warn(waiting);
  const { app, worker } = partner;

  serve(app);
  // Whatever the last run left behind (a crash, a restart) is picked up at once.
  for (const each of running) each.kick();
  logger.info({ port, publicUrl }, 'partner server listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      logger.info('shutting down');
      // The grace bounds the whole shutdown: in-flight requests, and the item each background loop
      // is on. The loops stop between items at once, recording what they did; what is still due
      // stays in the database for the next start. In-flight deliveries are abandoned: their
      // updates stay pending.
      worker.stop();
      const loopsStopped = Promise.all(running.map((each) => each.stop()));
      // Stop accepting, let in-flight requests finish, then drop idle keep-alive connections.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections become idle as their last response goes out; close them as they do.
      const reap = setInterval(() => server.closeIdleConnections(), 50);
      let graceOver: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([
        Promise.all([closed, loopsStopped]).then(() => true),
        new Promise<false>((resolve) => (graceOver = setTimeout(() => resolve(false), config.shutdownGraceMs))),
      ]);
      clearInterval(reap);
      clearTimeout(graceOver);
      if (!inTime) {
        // Past the grace: requests still open are cut, and an item that hangs (an SMTP send that
        // gets no answer) is abandoned unrecorded; it is done again on the next start.
        logger.warn('shutdown grace is over: closing what is still open');
        server.closeAllConnections();
        await closed;
      }
      // What the loops claimed and did not finish is due again at once, for the other instances
      // or the next start, rather than when its lease runs out (PostgreSQL).
      await Promise.all([partner.starter.release(), partner.canceller.release(), partner.sender.release(), worker.release()]).catch((err: unknown) =>
        logger.warn({ err }, 'could not give back the work in hand: it is taken up again when its lease runs out'),
      );
      mailer.close();
      await (inTime ? ownDispatcher?.close() : ownDispatcher?.destroy());
      await database.close();
      logger.info('stopped');
      logger.flush();
    })());
  return { server, publicUrl, reports: partner.results, close };
}

/**
 * `startPartner` as a process's entry point: reads `.env`, starts, and stops gracefully on SIGTERM
 * and SIGINT. A bad setting (the kit's or the provider's) prints one message naming every variable
 * to fix and exits 78 (EX_CONFIG). A start that fails on what a setting names prints one line
 * naming the variable, never a stack: exit 78 when the setting is wrong (a password PostgreSQL
 * refuses, a SQLite file that cannot be opened, a privileged port), 69 (EX_UNAVAILABLE) when what
 * it names is not there now (PostgreSQL refusing connections or not answering, the port in use).
 */
export async function runPartner(options: Omit<StartOptions, 'config'>): Promise<RunningPartner> {
  loadEnvFile();
  let config: Config;
  try {
    config = loadConfig(process.env, platformsOf({ platforms: options.platforms }));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(EX_CONFIG);
    }
    throw err;
  }
  const starting = startPartner({ ...options, config }).catch((err: unknown) => {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(EX_CONFIG);
    }
    return exitOnStartupError(err);
  });
  // Listening before "partner server listening" is logged: a SIGTERM right after it, as an
  // orchestrator may send, must still shut down gracefully.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      starting
        .then((running) => running.close())
        .then(
          () => process.exit(0),
          () => process.exit(1),
        );
    });
  }
  return starting;
}
