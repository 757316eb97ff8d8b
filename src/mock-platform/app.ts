import express, { Router, type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Dispatcher } from 'undici';
import type { Clock } from '../lib/clock.js';
import { CALLBACK_TIMEOUT_MS } from '../contract/decisions.js';
import type { Db } from '../lib/db.js';
import { errorHandler, notFoundPage, wellFormedPath } from '../lib/http/error-handler.js';
import { methodNotAllowed } from '../lib/http/method-not-allowed.js';
import type { DestinationStream } from 'pino';
import type { Logger } from '../lib/http/logger.js';
import { requestLog } from '../lib/http/request-log.js';
import { apiTokensRouter } from './api-tokens/routes.js';
import { apiTokenStore } from './api-tokens/store.js';
import { inboundLog } from './calls/inbound.js';
import { callsRouter } from './calls/routes.js';
import { callLog } from './calls/store.js';
import { careersRouter } from './careers/routes.js';
import { clockRouter } from './clock/routes.js';
import { offerActions } from './companies/offers.js';
import { pipeline as createPipeline } from './companies/pipeline.js';
import { photosRouter } from './companies/photos.js';
import { pipelineRouter } from './companies/routes.js';
import { companyStore } from './companies/store.js';
import type { PlatformEvents } from './events.js';
import { injectFault } from './faults/middleware.js';
import { faultsRouter } from './faults/routes.js';
import { faultStore, PLATFORM_CALLBACKS } from './faults/store.js';
import { mailLog, type MailLog } from './mail.js';
import { integrationStore } from './marketplace/integrations.js';
import { partnerClient } from './marketplace/partner-client.js';
import { marketplaceRouter } from './marketplace/routes.js';
import { marketplace as createMarketplace } from './marketplace/service.js';
import { openApiRouter } from './openapi/routes.js';
import { partnersRouter } from './partners/routes.js';
import { checkPlugins } from './platforms/assemble.js';
import { mockPlatforms } from './platforms/index.js';
import type { PlatformPlugin, PlatformSide } from './platforms/plugin.js';
import { platformsRouter } from './platforms/routes.js';
import { partnerStore } from './partners/store.js';
import { reportsRouter } from './reports/routes.js';
import { sentReportsRouter } from './reports/sent-elsewhere.js';
import { reportStore } from './reports/store.js';
import { sandboxNotFoundPage, sandboxRouter } from './sandbox/routes.js';
import { loadPluginViews, SANDBOX_ASSETS_DIR } from './sandbox/views.js';
import { mockWebhooks, type MockWebhooks } from './webhooks/index.js';
import { webhooksRouter } from './webhooks/routes.js';

export interface MockPlatformDeps {
  /** From `openMockDb()`; seeded or not, as the caller decides. */
  db: Db;
  /** `/_mock/clock` can move it when it has `advance` (see clock/adjustable.ts). */
  clock: Clock;
  logger: Logger;
  /** Where `logger` writes, for the access log to write there too (standard output when not given). */
  logDestination?: DestinationStream;
  /** For the calls the platform makes to partners; undici's global dispatcher when absent. */
  dispatcher?: Dispatcher;
  /** How long each partner callback may take (platform-contract.md §4). */
  callbackTimeoutMs?: number;
  /**
   * The platform's webhooks (configurations, events, the delivery worker). Whoever runs the app
   * builds it to start or drive its worker; an app built without one gets a worker nobody runs.
   */
  webhooks?: MockWebhooks;
  /** Also told about every event (besides the webhooks), e.g. by tests that record them. */
  events?: PlatformEvents;
  mail?: MailLog;
  /** Largest JSON body the platform's APIs accept. */
  bodyLimitBytes?: number;
  /** Where the mock is reached from outside; offers' careers URLs are built from it. */
  publicUrl?: string;
  /** Where careers-site applications' files are kept. */
  uploadsDir?: string;
  /**
   * The platforms it plays besides the hiring platform (platforms/): the registry's by default.
   * `db` must have been opened with the same (`openMockDb(file, platforms)`): their tables.
   */
  platforms?: readonly PlatformPlugin[];
}

/** The app, and the platform plugins made in it (their scripted recruiters, their workers). */
export interface BuiltMockPlatform {
  app: Express;
  platforms: ReadonlyMap<string, PlatformSide>;
  /** Wakes the background work: the webhooks' worker and each plugin's (after the clock moved). */
  wake(): void;
}

/** Shared by every mock built without an uploads folder of its own (tests that upload nothing). */
const DEFAULT_UPLOADS_DIR = path.join(tmpdir(), 'mock-platform-uploads');

/**
 * The bundled mock of the recruiting platform as an Express app. It never listens: `server.ts`
 * (or a test) does. It imports only contract-level code from the partner's side of the repo.
 *
 *   /api/p/…              partners API (§3.1) and reports API (§3.2) — what partners call
 *   /api/marketplace/…    the recruiter's actions (integrate, tests, send, cancel) as JSON
 *   /api/pipeline/…       candidates and offers: assign, move, disqualify, delete, publish (webhook events)
 *   /api/webhooks/…       webhook configurations, deliveries and the request log
 *   /careers/{subdomain}  a company's careers site: its API under /api (§7) and its pages
 *   /photos/…             candidates' thumbnails (photo_thumb_url)
 *   /openapi.json         the partners' API (§3.1, §3.2) as OpenAPI 3.1; /api-reference renders it,
 *                         /api-reference/partners/{codename} a registered partner's own API document
 *   /_mock/…              sandbox controls: API tokens, fault injection, call history, the clock,
 *                         reports sent outside the marketplace; /_mock/platforms/…, each plugin's recruiter
 *   /                     the sandbox UI (server-rendered forms)
 *
 * and what each platform plugin mounts (platforms/plugin.ts): the endpoints the partner calls on
 * that platform, its own JSON API, its pages — none of them named here.
 */
export function createMockPlatform(deps: MockPlatformDeps): Express {
  return buildMockPlatform(deps).app;
}

/** `createMockPlatform`, with the plugins' sides as made in it. */
export function buildMockPlatform(deps: MockPlatformDeps): BuiltMockPlatform {
  const { db, clock, logger } = deps;
  const plugins = checkPlugins(deps.platforms ?? mockPlatforms());
  const bodyLimitBytes = deps.bodyLimitBytes ?? 256 * 1024;
  const mail = deps.mail ?? mailLog(db, clock);
  const webhooks = deps.webhooks ?? mockWebhooks({ db, clock, logger, mail, dispatcher: deps.dispatcher });
  const observer = deps.events;
  const events: PlatformEvents = observer
    ? {
        emit(...args) {
          webhooks.events.emit(...args);
          observer.emit(...args);
        },
      }
    : webhooks.events;
  const publicUrl = deps.publicUrl ?? 'http://127.0.0.1:4000';
  const pipeline = createPipeline(db, clock, events, publicUrl);
  const offers = offerActions(db, clock, events, publicUrl);

  const companies = companyStore(db);
  const tokens = apiTokenStore(db, clock);
  const partners = partnerStore(db, clock);
  const reports = reportStore(db, clock);
  const integrations = integrationStore(db, clock);
  const calls = callLog(db, clock);
  const faults = faultStore(clock, [...PLATFORM_CALLBACKS, ...plugins.flatMap((p) => p.callbacks ?? [])]);
  const client = partnerClient({
    calls,
    timeoutMs: deps.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS,
    dispatcher: deps.dispatcher,
    faults,
  });
  const marketplace = createMarketplace({ companies, partners, integrations, reports, client });
  // Every endpoint a partner calls is logged and can be given faults, under one name.
  const endpoint = (name: string): RequestHandler[] => [inboundLog(calls, logger, name), injectFault(faults, name)];
  const made = plugins.map((plugin) => {
    if (plugin.views) loadPluginViews(plugin.name, plugin.views);
    const side = plugin.create({
      db,
      clock,
      logger,
      publicUrl,
      calls,
      faults,
      callbackTimeoutMs: deps.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS,
      dispatcher: deps.dispatcher,
      bodyLimitBytes,
      endpoint,
    });
    return { plugin, side };
  });
  const sides = made.map((m) => m.side);
  const wake = () => {
    webhooks.kick();
    for (const side of sides) side.worker?.wake();
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(helmet());
  app.use(requestLog(logger, deps.logDestination));
  app.use(wellFormedPath);

  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  // The partners' API as OpenAPI 3.1 (/openapi.json) and its Redoc page (/api-reference).
  app.use(openApiRouter({ publicUrl, platforms: plugins, partners, dispatcher: deps.dispatcher }));

  app.use('/api/p', partnersRouter({ partners, tokens, endpoint, bodyLimitBytes }));
  app.use(
    '/api/p',
    reportsRouter({
      partners,
      reports,
      companies,
      isIntegrated: (companyId, codename) => integrations.find(companyId, codename) !== undefined,
      endpoint,
      bodyLimitBytes,
    }),
  );
  app.use(
    '/api/marketplace',
    marketplaceRouter({ marketplace, companies, partners, integrations, reports, bodyLimitBytes }),
  );
  app.use('/api/pipeline', pipelineRouter({ pipeline, offers, companies, bodyLimitBytes }));
  app.use(
    '/api/webhooks',
    webhooksRouter({
      configurations: webhooks.configurations,
      store: webhooks.store,
      companies,
      bodyLimitBytes,
      kick: webhooks.kick,
    }),
  );
  for (const { side } of made) {
    const router = Router();
    side.mount(router);
    app.use(router);
  }
  app.use('/photos', photosRouter(db));
  app.use('/_mock/api-tokens', apiTokensRouter({ tokens, companies }));
  app.use('/_mock/faults', faultsRouter(faults));
  app.use('/_mock/reports', sentReportsRouter({ partners, reports, companies }));
  app.use('/_mock/calls', callsRouter(calls));
  app.use('/_mock/clock', clockRouter({ clock, wake }));
  app.use('/_mock/platforms', platformsRouter({ platforms: made, bodyLimitBytes }));
  app.get('/_mock/mail', (_req, res) => {
    res.json({ mail: mail.list() });
  });

  app.use(
    '/careers/:subdomain',
    careersRouter({
      db,
      clock,
      mail,
      events,
      logger,
      uploadsDir: deps.uploadsDir ?? DEFAULT_UPLOADS_DIR,
      publicUrl,
    }),
  );

  app.use('/assets', express.static(SANDBOX_ASSETS_DIR, { index: false, maxAge: '1h' }));
  app.use(
    sandboxRouter({
      companies,
      partners,
      integrations,
      reports,
      tokens,
      calls,
      faults,
      mail,
      marketplace,
      pipeline,
      offers,
      webhooks,
      platforms: sides,
      logger,
    }),
  );

  // A browser lost in the sandbox gets a page with its menu; API clients, the JSON 404.
  app.use(methodNotAllowed(app), notFoundPage(sandboxNotFoundPage));
  app.use(errorHandler(logger));
  return { app, platforms: new Map(made.map((m) => [m.plugin.name, m.side])), wake };
}
