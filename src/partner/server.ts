import { chmodSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DestinationStream } from 'pino';
import type { Dispatcher } from 'undici';
import { accountStore } from './accounts/store.js';
import { createApp } from './app.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDb, type Db } from './db/open.js';
import { createLogger, logDestination, type Logger } from '../lib/http/logger.js';
import { requestsFirst, type Pause } from '../lib/perf/requests-first.js';
import { backgroundLoop } from './jobs/loop.js';
import { invitationLifecycle } from './invitations/lifecycle.js';
import { invitationLinks } from './invitations/links.js';
import { invitationStore } from './invitations/store.js';
import { invitationStarter } from './invitations/starter.js';
import { mailOutbox } from './mail/outbox.js';
import { mailSender } from './mail/sender.js';
import { createMailer, type Mailer } from './mail/transport.js';
import { demoProvider } from './provider/demo/index.js';
import { demoTokenFile, seedDemo } from './provider/demo/seed.js';
import { reportOutbox } from './reports/outbox.js';
import { deliveryAgent, deliveryWorker, type DeliveryTimeouts } from './reports/worker.js';
import { webhookProcessor } from './webhooks/processor.js';
import { loadEnvFile } from '../lib/env-file.js';
import { appServer } from '../lib/perf/app-server.js';

/** Replacements for tests: a fake clock, a dispatcher with short timeouts, a failing mailer. */
export interface MainOverrides {
  clock?: Clock;
  dispatcher?: Dispatcher;
  deliveryTimeouts?: DeliveryTimeouts;
  mailer?: Mailer;
  /** How often the background loops look for due work (default 1 s). */
  pollIntervalMs?: number;
}

export interface AssembleDeps {
  db: Db;
  logger: Logger;
  /** Where `logger` writes; the access log writes there too. */
  logDestination?: DestinationStream;
  clock: Clock;
  /** Where candidates and the platform reach this server (links, report urls). */
  publicUrl: string;
  mailer: Mailer;
  dispatcher: Dispatcher;
  deliveryTimeouts?: DeliveryTimeouts;
  random?: () => number;
  onInvitationCreated?: () => void;
  /** Called after something was queued for the mail sender or the delivery worker. */
  wake?: () => void;
  /** Called after a webhook event was stored for the webhook processor. */
  onWebhookStored?: () => void;
  /** Between two items of the starter's and the mail sender's work (default: one event-loop turn). */
  pause?: Pause;
}

/**
 * The partner's parts, wired: the app, and the three workers that run after the platform has
 * had its answer — the invitation starter, the mail sender and the report delivery worker. `main`
 * runs them in background loops; tests call their `runOnce` with a fake clock.
 */
export function assemble(config: Config, deps: AssembleDeps) {
  const { db, logger, clock, publicUrl } = deps;
  const links = invitationLinks({ ...config.links, publicUrl, clock });
  const provider = demoProvider(db, { candidateUrl: links.candidateUrl, kind: config.kind, passMark: config.passMark, clock });
  const invitations = invitationStore(db, clock);
  const reports = reportOutbox(db, clock);
  const mail = mailOutbox(db, clock);
  const lifecycle = invitationLifecycle({ db, clock, kind: config.kind, reports, mail, links, wake: deps.wake });
  const starter = invitationStarter({
    invitations,
    provider,
    clock,
    logger,
    random: deps.random,
    markStarted: (invitation, candidateUrl) => lifecycle.start(invitation, candidateUrl),
    inTransaction: (fn) => db.transaction(fn)(),
    pause: deps.pause,
  });
  const sender = mailSender({
    db,
    outbox: mail,
    invitations,
    mailer: deps.mailer,
    clock,
    logger,
    kind: config.kind,
    random: deps.random,
    pause: deps.pause,
    concurrency: config.mail.maxConnections,
  });
  const worker = deliveryWorker({
    outbox: reports,
    clock,
    logger,
    dispatcher: deps.dispatcher,
    platform: config.platform,
    timeouts: deps.deliveryTimeouts,
    random: deps.random,
  });
  const webhooks = webhookProcessor({
    db,
    clock,
    logger,
    random: deps.random,
    cancelInvitation: (reportId) => lifecycle.cancel(reportId, 'platform'),
  });
  const app = createApp({
    config,
    db,
    logger,
    logDestination: deps.logDestination,
    clock,
    provider,
    onInvitationCreated: deps.onInvitationCreated,
    onQueued: deps.wake,
    onWebhookStored: deps.onWebhookStored,
    web: {
      links,
      publicUrl,
      admin: config.admin,
      platform: { url: config.platform.url, codename: config.platform.codename },
      mailSettings: config.mail,
      deliveriesWaiting: () => worker.waiting(),
    },
  });
  return { app, links, provider, invitations, reports, mail, lifecycle, starter, sender, worker, webhooks };
}

/** Builds the real dependencies, listens, runs the background workers, and shuts down gracefully. */
export async function main(
  config: Config,
  overrides: MainOverrides = {},
): Promise<{ server: Server; publicUrl: string; close: () => Promise<void> }> {
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
  const db = openDb(config.databasePath);

  if (config.demoSeed) {
    const seeded = seedDemo(db, clock, accountStore(db, clock), config.kind);
    if (seeded) {
      // The token is a credential: it goes to a file only its owner can read, never to the log.
      const file = demoTokenFile(config.databasePath);
      writeFileSync(file, seeded.token + '\n', { mode: 0o600 });
      chmodSync(file, 0o600);
      logger.info({ accountId: seeded.accountId, tokenFile: file }, 'demo account created');
    }
  }

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
    db.close();
    throw err;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const publicUrl = config.port === 0 && config.publicUrl.endsWith(':0') ? config.publicUrl.replace(/:0$/, `:${port}`) : config.publicUrl;

  const ownDispatcher = overrides.dispatcher ? undefined : deliveryAgent();
  const mailer = overrides.mailer ?? createMailer(config.mail);
  const intervalMs = overrides.pollIntervalMs ?? 1000;
  // The loops need the parts and the parts need to wake the loops: `wake` is bound once both exist.
  let wakeAll = () => {};
  const partner = assemble(config, {
    db,
    logger,
    logDestination: logStream,
    clock,
    publicUrl,
    mailer,
    dispatcher: overrides.dispatcher ?? ownDispatcher!,
    deliveryTimeouts: overrides.deliveryTimeouts,
    onInvitationCreated: () => startLoop.kick(),
    wake: () => wakeAll(),
    onWebhookStored: () => webhookLoop.kick(),
    // Under a burst of callbacks, invitations start and e-mails go out in the gaps.
    pause: requestsFirst(server),
  });
  const startLoop = backgroundLoop('invitation starter', (stopping) => partner.starter.runOnce(stopping), { logger, intervalMs });
  const mailLoop = backgroundLoop('mail sender', (stopping) => partner.sender.runOnce(stopping), { logger, intervalMs });
  const deliveryLoop = backgroundLoop('report delivery', (stopping) => partner.worker.runOnce(stopping), { logger, intervalMs });
  const webhookLoop = backgroundLoop('webhook processor', (stopping) => partner.webhooks.runOnce(stopping), { logger, intervalMs });
  wakeAll = () => {
    mailLoop.kick();
    deliveryLoop.kick();
  };
  const waiting = partner.worker.waiting();
  if (waiting) logger.warn(waiting);
  const { app, worker } = partner;

  serve(app);
  // Whatever the last run left behind (a crash, a restart) is picked up at once.
  startLoop.kick();
  webhookLoop.kick();
  wakeAll();
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
      const loopsStopped = Promise.all([startLoop.stop(), mailLoop.stop(), deliveryLoop.stop(), webhookLoop.stop()]);
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
      mailer.close();
      await (inTime ? ownDispatcher?.close() : ownDispatcher?.destroy());
      db.close();
      logger.info('stopped');
      logger.flush();
    })());
  return { server, publicUrl, close };
}

const isEntryPoint = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isEntryPoint) {
  loadEnvFile();
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  const { close } = await main(config);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}
