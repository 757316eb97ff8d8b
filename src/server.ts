import { chmodSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { accountStore } from './accounts/store.js';
import { createApp } from './app.js';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDb } from './db/open.js';
import { createLogger } from './http/logger.js';
import { invitationStore } from './invitations/store.js';
import { invitationStarter } from './invitations/starter.js';
import { demoProvider } from './provider/demo/index.js';
import { seedDemo } from './provider/demo/seed.js';

/** Builds the real dependencies, listens, runs the background worker, and shuts down gracefully. */
export async function main(config: Config): Promise<{ server: Server; close: () => Promise<void> }> {
  const logger = createLogger(config.logLevel);
  const clock = systemClock;
  const db = openDb(config.databasePath);

  if (config.demoSeed) {
    const seeded = seedDemo(db, clock, accountStore(db, clock));
    if (seeded) {
      // The token is a credential: it goes to a file only its owner can read, never to the log.
      const file = path.join(path.dirname(path.resolve(config.databasePath)), 'demo-token');
      writeFileSync(file, seeded.token + '\n', { mode: 0o600 });
      chmodSync(file, 0o600);
      logger.info({ accountId: seeded.accountId, tokenFile: file }, 'demo account created');
    }
  }

  const provider = demoProvider(db, { candidateUrl: (reportId) => `${config.publicUrl}/take/${reportId}` });
  const starter = invitationStarter({ invitations: invitationStore(db, clock), provider, clock, logger });
  let draining: Promise<unknown> = Promise.resolve();
  const kick = () => {
    draining = draining.then(() => starter.runOnce()).catch((err) => logger.error({ err }, 'invitation starter failed'));
  };
  const poll = setInterval(kick, 1000);

  const app = createApp({ config, db, logger, clock, provider, onInvitationCreated: kick });
  const server = app.listen(config.port, config.host);
  // Explicit timeouts: a slow or stalled client cannot hold a connection open indefinitely.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  server.timeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  logger.info({ port: typeof address === 'object' && address ? address.port : config.port }, 'partner server listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      logger.info('shutting down');
      clearInterval(poll);
      // Stop accepting, let in-flight requests finish, then drop idle keep-alive connections.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections become idle as their last response goes out; close them as they do.
      const reap = setInterval(() => server.closeIdleConnections(), 50);
      const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
      await closed;
      clearInterval(reap);
      clearTimeout(grace);
      await draining;
      db.close();
      logger.info('stopped');
      logger.flush();
    })());
  return { server, close };
}

const isEntryPoint = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isEntryPoint) {
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
