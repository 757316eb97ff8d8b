import express, { type Express } from 'express';
import helmet from 'helmet';
import { accountStore } from './accounts/store.js';
import { callbacksRouter } from './callbacks/routes.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Db } from './db/open.js';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import type { Logger } from './http/logger.js';
import { requestLog } from './http/request-log.js';
import { invitationStore } from './invitations/store.js';
import type { Provider } from './provider/types.js';

export interface AppDeps {
  config: Pick<Config, 'bodyLimitBytes' | 'trustProxy'>;
  db: Db;
  logger: Logger;
  clock: Clock;
  provider: Provider;
  onInvitationCreated?: (reportId: string) => void;
}

/** The partner server as an Express app. It never listens: `server.ts` (or a test) does. */
export function createApp(deps: AppDeps): Express {
  const { config, db, logger, clock, provider } = deps;
  const app = express();
  app.disable('x-powered-by');
  // Callbacks answer JSON that changes with every call; an ETag would be hashed for nothing.
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);

  app.use(helmet());
  app.use(requestLog(logger));

  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });

  app.use(
    '/callbacks',
    callbacksRouter({
      accounts: accountStore(db, clock),
      invitations: invitationStore(db, clock),
      provider,
      bodyLimitBytes: config.bodyLimitBytes,
      onInvitationCreated: deps.onInvitationCreated,
    }),
  );

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
