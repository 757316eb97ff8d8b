/**
 * The partner kit's public entry point: everything a fork's module imports. A fork writes one
 * provider for its product and default-exports it from src/provider/index.ts, the folder that is
 * its own (src/partner/provider/module.ts says what that module exports):
 *
 *   import type { Provider, ProviderKit } from '../partner/index.js';
 *   export default (kit: ProviderKit): Provider => ({ kind: kit.kind, … });
 *
 * `startPartner` and `runPartner` start a partner with any provider, for a server of one's own.
 *
 * Results come back whichever way the product produces them: submitted on the kit's candidate
 * page (`candidateTask`/`submit`), pushed in process (`partner.reports.complete(…)`), or posted
 * over HTTP to `POST /vendor/reports/{report_id}/result` (docs/results-endpoint.md).
 */
export { startPartner, runPartner, type StartOptions, type RunningPartner, type MainOverrides } from './start.js';
export { loadConfig, ConfigError, type Config } from './config.js';
export type {
  Provider,
  ProviderKit,
  ProviderFactory,
  ProviderSource,
  ProviderMigrations,
  ProviderCatalog,
  ProviderTest,
  ProviderInvitation,
  ProviderResult,
  InvitationToStart,
  InvitationToCancel,
  CandidateTask,
  Question,
  Submission,
  Decision,
  ResultDetail,
} from './provider/types.js';
export type { Account } from './accounts/store.js';
export { InvalidResultError, type VendorReports, type VendorResult, type ReportOutcome, type ProgressStage } from './results/api.js';
export { signVendorResult, VENDOR_SIGNATURE_HEADER } from '../contract/vendor-signature.js';
export { VENDOR_RESULTS_PATH } from './results/routes.js';
export type { PartnerRoutes } from './app.js';
export { DEFAULT_HANDLERS as defaultWebhookHandlers, recordEvent } from './platforms/hiring-platform/webhooks/handlers/index.js';
export type { WebhookHandler, HandlerContext, CancelInvitation } from './platforms/hiring-platform/webhooks/handlers/index.js';
export type { ReceivedEvent } from './platforms/hiring-platform/webhooks/inbox.js';
export type { PartnerKind } from '../contract/decisions.js';
// The platforms the partner speaks (docs/platforms.md): `startPartner({ platforms })` takes a list of
// them; `kitPlatforms()` is the kit's own, and a platform of a fork's own implements `Platform`.
export { kitPlatforms, hiringPlatform, greenhousePlatform, type HiringPlatformOptions } from './platforms/index.js';
export type { Platform, PlatformContext, PlatformFactory, PlatformWorker, DeliveryRequest, DeliveryTarget } from './platforms/index.js';
export type { InvitationUpdate } from './invitations/update.js';
// The kit's own provider, the built-in quiz: what src/provider/index.ts hands on until a fork replaces it.
export { demoProvider } from './provider/demo/index.js';
export type { DemoSettings } from './provider/demo/settings.js';
