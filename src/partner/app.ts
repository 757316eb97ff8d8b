import express, { Router, type Express } from 'express';
import type { DestinationStream } from 'pino';
import type { Clock } from '../lib/clock.js';
import type { Config } from './config.js';
import { groupCommit } from '../lib/perf/group-commit.js';
import type { Sql } from '../lib/sql.js';
import { errorHandler, notFoundHandler, notFoundPage, wellFormedPath } from '../lib/http/error-handler.js';
import { methodNotAllowed } from '../lib/http/method-not-allowed.js';
import type { Logger } from '../lib/http/logger.js';
import { requestLog } from '../lib/http/request-log.js';
import { securityHeaders } from '../lib/perf/security-headers.js';
import type { InvitationLinks } from './invitations/links.js';
import { partnerApiDocument } from './openapi.js';
import { candidatePages } from './pages/candidate.js';
import { dashboard } from './pages/dashboard.js';
import { homePage } from './pages/home.js';
import { resultsPage } from './pages/results.js';
import { notFoundMessage } from './pages/render.js';
import { PARTNER_ASSETS_DIR } from './pages/views.js';
import type { PartnerCore } from './core.js';
import type { Platform, PlatformContext, PlatformDefinition } from './platforms/platform.js';
import type { Provider } from './provider/types.js';
import type { VendorReports } from './results/api.js';
import { registerVendorResults } from './results/routes.js';

/** What the browser-facing half needs: candidate pages, the results page and the dashboard. */
export interface WebDeps {
  publicUrl: string;
  admin: Config['admin'];
  mailSettings: Pick<Config['mail'], 'transport' | 'from'>;
  /** The vendor's name (PARTNER_NAME, else the manifest's): the pages' and the dashboard's header. */
  partnerName: string;
  /** Why report deliveries cannot run (no partner secret), if they cannot. */
  deliveriesWaiting: () => string | undefined;
}


/** Routes of a fork's own (a product's callback, say), mounted after the kit's. */
export type PartnerRoutes = (router: Router, context: { reports: VendorReports; sql: Sql; clock: Clock; logger: Logger }) => void;

export interface AppDeps {
  /**
   * Without `vendorResults.secret`, the results endpoint answers 401 "not configured".
   */
  config: Pick<Config, 'bodyLimitBytes' | 'trustProxy'> & { vendorResults?: Config['vendorResults'] };
  sql: Sql;
  logger: Logger;
  /** Where `logger` writes, for the access log to write there too (standard output when not given). */
  logDestination?: DestinationStream;
  clock: Clock;
  provider: Provider;
  core: PartnerCore;
  /** The platforms the partner speaks: each mounts its routes (its callbacks, its webhooks) first. */
  platforms: readonly Platform[];
  /** Their definitions, for the API document (`GET /openapi.json`); the kit's when not given. */
  platformDefinitions?: readonly PlatformDefinition[];
  /** The kit's signed links, for the pages and the platforms' answers. */
  links: InvitationLinks;
  routes?: PartnerRoutes;
  onInvitationCreated?: (reportId: string) => void;
  /** Told when an e-mail or report update was queued, so the workers need not wait for their next poll. */
  onQueued?: () => void;
  /** Told when a platform queued work for one of its workers (`PlatformContext.kick`), so it need not wait for its next poll. */
  kick?: (worker: string) => void;
  /** The pages and the dashboard; without them the app serves the platform's callbacks only. */
  web?: WebDeps;
}

/** What the platforms' routes and workers are given (`PlatformContext`): the core's parts. */
export function platformContext(
  deps: Pick<AppDeps, 'config' | 'sql' | 'clock' | 'logger' | 'provider' | 'core' | 'links' | 'onInvitationCreated' | 'kick'>,
): PlatformContext {
  const { sql, core } = deps;
  return {
    bodyLimitBytes: deps.config.bodyLimitBytes,
    sql,
    clock: deps.clock,
    logger: deps.logger,
    provider: deps.provider,
    core,
    links: deps.links,
    // Sends arriving in one event-loop turn share one commit.
    createInvitation: groupCommit(sql, (tx, input) => core.invitations.create(input, tx)),
    onInvitationCreated: deps.onInvitationCreated,
    kick: (worker) => deps.kick?.(worker),
  };
}

/** The partner server as an Express app. It never listens: `server.ts` (or a test) does. */
export function createApp(deps: AppDeps): Express {
  const { config, sql, logger, clock, provider, web } = deps;
  const { accounts, invitations, updates, mail, lifecycle } = deps.core;
  const app = express();
  app.disable('x-powered-by');
  // Callbacks answer JSON that changes with every call; an ETag would be hashed for nothing.
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);

  app.use(requestLog(logger, deps.logDestination));
  // Security headers on every answer, the callbacks' and errors included, and on any route added below.
  app.use(securityHeaders());
  app.use(wellFormedPath);

  const context = platformContext(deps);
  for (const platform of deps.platforms) {
    const router = Router();
    platform.mount(router, context);
    app.use(router);
  }

  // Results pushed by the vendor's product: raw body and signature first, like the webhooks.
  registerVendorResults(app, {
    secret: config.vendorResults?.secret,
    reports: deps.core.results,
    invitations,
    clock,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
  });

  // Liveness: the process answers. Readiness: it can reach its database too, so a load balancer
  // sends it work (docs/deploy.md). A database that does not answer is a 503, never a hang.
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/readyz', async (_req, res) => {
    const reachable = await Promise.race([
      sql.get('SELECT 1 AS ok').then(() => true, () => false),
      new Promise<false>((resolve) => setTimeout(resolve, 2_000, false).unref()),
    ]);
    if (reachable) return void res.json({ ok: true });
    res.status(503).json({ error: 'The database does not answer' });
  });
  app.get('/openapi.json', (_req, res) => void res.json(partnerApiDocument(deps.platformDefinitions)));

  if (web) {
    app.use('/assets', express.static(PARTNER_ASSETS_DIR, { index: false, maxAge: '1h' }));
    app.use(homePage({ publicUrl: web.publicUrl, kind: provider.kind, platforms: deps.platforms }));
    const vendorName = web.partnerName;
    app.use(candidatePages({ invitations, lifecycle, links: deps.links, provider, logger, vendorName }));
    app.use(resultsPage({ invitations, links: deps.links, provider, logger, vendorName }));
    app.use(
      '/admin',
      dashboard({
        sql,
        accounts,
        invitations,
        lifecycle,
        links: deps.links,
        updates,
        mail,
        provider,
        logger,
        clock,
        admin: web.admin,
        publicUrl: web.publicUrl,
        platforms: deps.platforms,
        connections: deps.core.connections,
        credentials: deps.platformDefinitions ?? [],
        notices: deps.core.notices,
        mailSettings: web.mailSettings,
        vendorName,
        deliveriesWaiting: web.deliveriesWaiting,
        wake: deps.onQueued,
      }),
    );
  }

  if (deps.routes) {
    const router = Router();
    deps.routes(router, { reports: deps.core.results, sql, clock, logger });
    app.use(router);
  }

  // A browser lost on a server with pages gets a page; API clients, the JSON 404.
  app.use(methodNotAllowed(app), web ? notFoundPage(notFoundMessage(web.partnerName)) : notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
