import express, { type Express } from 'express';
import helmet from 'helmet';
import { accountStore } from './accounts/store.js';
import { registerCallbacks } from './callbacks/routes.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Db } from './db/open.js';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import type { Logger } from './http/logger.js';
import { requestLog } from './http/request-log.js';
import { helmetHeaders } from './http/security-headers.js';
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

  const securityHeaders = helmetHeaders();

  app.use(requestLog(logger));

  // The platform's callbacks come first and set helmet's headers themselves, in one write.
  registerCallbacks(app, '/callbacks', {
    accounts: accountStore(db, clock),
    invitations: invitationStore(db, clock),
    provider,
    bodyLimitBytes: config.bodyLimitBytes,
    securityHeaders,
    onInvitationCreated: deps.onInvitationCreated,
  });

  app.use(helmet());

  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });

  app.use(notFoundHandler);
  app.use(errorHandler(logger, securityHeaders));
  return app;
}
