import { ashbyPlatform } from './ashby/index.js';
import { greenhousePlatform } from './greenhouse/index.js';
import { hibobPlatform } from './hibob/index.js';
import { hiringPlatform, type HiringPlatformOptions } from './hiring-platform/index.js';
import type { PlatformDefinition } from './platform.js';

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
} from './platform.js';
export { definePlatform, DeliveryNotYet, PLATFORM_NAME } from './platform.js';
export type { HiringPlatformOptions };
export { hiringPlatform } from './hiring-platform/index.js';
export { greenhousePlatform } from './greenhouse/index.js';
export type { WebhookHandler, HandlerContext, CancelInvitation } from './hiring-platform/webhooks/handlers/index.js';
export { DEFAULT_HANDLERS as defaultWebhookHandlers, recordEvent } from './hiring-platform/webhooks/handlers/index.js';
export type { ReceivedEvent } from './hiring-platform/webhooks/inbox.js';

/**
 * The registry: the platforms the kit speaks, one line each, each its own folder here, none
 * importing another (docs/platforms.md). The core names no platform: it is given these
 * definitions (and a fork's own, `platformsOf`), and composes their settings, tables, routes, API
 * document, deliveries and workers.
 */
export function kitPlatforms(options: HiringPlatformOptions = {}): PlatformDefinition[] {
  return [
    hiringPlatform(options) as PlatformDefinition,
    greenhousePlatform() as PlatformDefinition,
    ashbyPlatform() as PlatformDefinition,
    hibobPlatform() as PlatformDefinition,
  ];
}

/**
 * The platforms a partner speaks, from what the vendor's module (`src/provider/index.ts`) exports:
 * the kit's (the hiring platform with the module's `webhookHandlers`, when it exports them), then
 * the module's own `platforms`. A name used twice is an error (`assemble` says which).
 */
export function platformsOf(module: { webhookHandlers?: HiringPlatformOptions['webhookHandlers']; platforms?: readonly PlatformDefinition[] } = {}): PlatformDefinition[] {
  return [...kitPlatforms({ webhookHandlers: module.webhookHandlers }), ...(module.platforms ?? [])];
}
