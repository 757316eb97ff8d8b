import type { DestinationStream } from 'pino';
import { createApp, platformContext, type PartnerRoutes } from './app.js';
import { partnerCore } from './core.js';
import type { Clock } from '../lib/clock.js';
import { ConfigError, settingsOf, type Config } from './config.js';
import type { Sql } from '../lib/sql.js';
import { migrateProvider } from './db/open.js';
import type { Logger } from '../lib/http/logger.js';
import type { Pause } from '../lib/perf/requests-first.js';
import type { Queued } from './jobs/wakeups.js';
import { invitationLinks } from './invitations/links.js';
import { invitationStarter } from './invitations/starter.js';
import { productCanceller } from './invitations/product-canceller.js';
import { mailSender } from './mail/sender.js';
import type { Mailer } from './mail/transport.js';
import type { Provider, ProviderKit, ProviderSource } from './provider/types.js';
import { deliveryWorker, type DeliveryClient, type DeliveryTimeouts } from './updates/worker.js';
import { kitPlatforms, PLATFORM_NAME, type Platform, type PlatformDefinition } from './platforms/index.js';

export interface AssembleDeps {
  /** The partner's database (`openPartnerDatabase`): SQLite, or PostgreSQL with DATABASE_URL. */
  sql: Sql;
  logger: Logger;
  /** Where `logger` writes; the access log writes there too. */
  logDestination?: DestinationStream;
  clock: Clock;
  /** Where candidates and the platform reach this server (links, report urls). */
  publicUrl: string;
  mailer: Mailer;
  /** Report deliveries' HTTP client: `deliveryAgent()`, or an undici Agent or MockAgent. */
  dispatcher: DeliveryClient;
  /** The vendor's product: a provider, or a factory given the kit (its migrations applied first). */
  provider: ProviderSource;
  /**
   * The platforms the partner speaks: `kitPlatforms()` (platforms/index.ts) when not given. Their
   * settings must be in `config` (`loadConfig(env, platforms)`).
   */
  platforms?: readonly PlatformDefinition[];
  /** Routes of the fork's own, mounted after the kit's. */
  routes?: PartnerRoutes;
  deliveryTimeouts?: DeliveryTimeouts;
  random?: () => number;
  onInvitationCreated?: () => void;
  /** Called after something was queued for the product canceller, the mail sender or the delivery worker: those named, or any. */
  wake?: (loops?: Queued) => void;
  /** Called when a platform queued work for one of its own workers (by its name: `webhook processor`). */
  kick?: (worker: string) => void;
  /** Between two items of the starter's and the mail sender's work (default: one event-loop turn). */
  pause?: Pause;
}

/**
 * The provider from what a fork passed: a factory gets its migrations applied (after the kit's,
 * tracked in `schema_migrations`) and is called with the kit; an object is taken as it is. Its kind
 * must be the partner's (PARTNER_KIND), or the platform would refuse what the kit sends.
 */
export async function buildProvider(source: ProviderSource, kit: ProviderKit): Promise<Provider> {
  let provider: Provider;
  if (typeof source === 'function') {
    if (source.migrations) await migrateProvider(kit.sql, source.migrations);
    provider = source(kit);
  } else {
    provider = source;
  }
  if (provider.kind !== kit.kind) {
    throw new ConfigError([`PARTNER_KIND: is ${kit.kind}, but the provider is a ${provider.kind} provider (use kit.kind, or set PARTNER_KIND=${provider.kind})`]);
  }
  return provider;
}

/**
 * The partner's parts, wired — the one place they are: the provider, the stores and lifecycle
 * (`partnerCore`), the app, and the workers that run after the platform has had its answer — the
 * invitation starter, the product canceller, the mail sender, the report delivery worker and the
 * platforms' own (the hiring platform's webhook processor).
 * `startPartner` runs the workers in background loops; tests call their `runOnce` with a fake clock.
 */
export async function assemble(config: Config, deps: AssembleDeps) {
  const { sql, logger, clock, publicUrl } = deps;
  const links = invitationLinks({ ...config.links, publicUrl, clock });
  const definitions = deps.platforms ?? kitPlatforms();
  for (const [i, definition] of definitions.entries()) {
    if (!PLATFORM_NAME.test(definition.name)) throw new Error(`A platform's name is lowercase letters, digits and "-": "${definition.name}" is not`);
    if (definitions.findIndex((d) => d.name === definition.name) !== i) throw new Error(`Two platforms are named "${definition.name}"`);
  }
  // Each platform's own tables, after the kit's (and before its provider's, which may refer to them).
  for (const definition of definitions) {
    if (definition.migrations) await migrateProvider(sql, { ...definition.migrations, prefix: definition.name });
  }
  const platforms = new Map<string, Platform>();
  // The provider is built after the core (a factory is handed the core's results API); the
  // lifecycle asks for its cancel hook only at a cancel, once it exists.
  let built: Provider | undefined;
  const core = partnerCore(sql, clock, {
    kind: config.kind,
    links,
    wake: deps.wake,
    hasCancelHook: () => built?.cancelInvitation !== undefined,
    linkSecret: config.links.secret,
    emailAfterAcceptance: (name) => platforms.get(name)?.emailAfterAcceptance ?? true,
    hearsProgress: (name) => platforms.get(name)?.hearsProgress === true,
  });
  for (const definition of definitions) {
    const setup = { config, settings: settingsOf(config, definition), publicUrl, connections: core.connections, sql, clock, logger };
    platforms.set(definition.name, definition.create(setup));
  }
  const { invitations, updates, mail, lifecycle } = core;
  const provider = (built = await buildProvider(deps.provider, {
    sql,
    clock,
    kind: config.kind,
    logger,
    publicUrl,
    candidateUrl: links.candidateUrl,
    reports: core.results,
  }));
  const starter = invitationStarter({
    sql,
    invitations,
    provider,
    clock,
    logger,
    random: deps.random,
    markStarted: (invitation, candidateUrl, tx) => lifecycle.start(invitation, candidateUrl, tx),
    onRecorded: lifecycle.wake,
    leaseMs: config.jobLeaseMs,
    pause: deps.pause,
  });
  const canceller = productCanceller({
    invitations,
    provider,
    clock,
    logger,
    random: deps.random,
    leaseMs: config.jobLeaseMs,
    pause: deps.pause,
  });
  const sender = mailSender({
    sql,
    outbox: mail,
    mailer: deps.mailer,
    clock,
    logger,
    kind: config.kind,
    partnerName: config.partnerName,
    greeting: (invitation) => platforms.get(invitation.platform)?.greetingName?.(invitation) ?? invitation.firstName,
    random: deps.random,
    pause: deps.pause,
    concurrency: config.mail.maxConnections,
    leaseMs: config.jobLeaseMs,
  });
  const worker = deliveryWorker({
    outbox: updates,
    connections: core.connections,
    clock,
    logger,
    dispatcher: deps.dispatcher,
    platforms,
    timeouts: deps.deliveryTimeouts,
    random: deps.random,
    leaseMs: config.jobLeaseMs,
    recordAnswer: lifecycle.platformAnswered,
    onRecorded: lifecycle.answerRecorded,
  });
  const app = createApp({
    config,
    sql,
    logger,
    logDestination: deps.logDestination,
    clock,
    provider,
    core,
    platforms: [...platforms.values()],
    platformDefinitions: definitions,
    links,
    routes: deps.routes,
    onInvitationCreated: deps.onInvitationCreated,
    onQueued: deps.wake,
    kick: deps.kick,
    web: {
      publicUrl,
      admin: config.admin,
      mailSettings: config.mail,
      partnerName: config.partnerName,
      deliveriesWaiting: () => worker.waiting(),
    },
  });
  // The platforms' own background work (the hiring platform's webhook processor), run beside the kit's.
  const platformWorkers = [...platforms.values()].flatMap((platform) =>
    platform.workers?.(platformContext({ config, sql, clock, logger, provider, core, links, kick: deps.kick })) ?? [],
  );
  return { app, links, provider, platforms, ...core, starter, canceller, sender, worker, platformWorkers };
}
