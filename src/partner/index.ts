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
export { defaultWebhookHandlers, recordEvent } from './platforms/index.js';
export type { WebhookHandler, HandlerContext, CancelInvitation, ReceivedEvent } from './platforms/index.js';
export type { PartnerKind } from '../contract/decisions.js';
// The platforms the partner speaks (docs/platforms.md): the kit's (`kitPlatforms()`), and a fork's own,
// each a `definePlatform({ … })` that `src/provider/index.ts` exports in `platforms`.
export { kitPlatforms, platformsOf, definePlatform, hiringPlatform, greenhousePlatform, type HiringPlatformOptions } from './platforms/index.js';
export type {
  AnswerVerdict,
  DeliveryAnswer,
  DeliveryRequest,
  DeliveryTarget,
  InvitationUpdate,
  Platform,
  PlatformApi,
  PlatformContext,
  PlatformDefinition,
  PlatformHearing,
  PlatformSetup,
  PlatformWorker,
} from './platforms/index.js';
export type { ApiOperation } from '../contract/openapi/document.js';
export type { Connection, ConnectionStore } from './connections/store.js';
export { scoreNumber } from './invitations/score.js';
export { basicKey, basicHeader } from '../lib/http/basic-key.js';
export { flatMetadata } from '../lib/flat-metadata.js';
// The kit's own provider, the built-in quiz: what src/provider/index.ts hands on until a fork replaces it.
export { demoProvider } from './provider/demo/index.js';
export type { DemoSettings } from './provider/demo/settings.js';
