import { greenhousePlatform } from './greenhouse/index.js';
import { hiringPlatform, type HiringPlatformOptions } from './hiring-platform/index.js';
import type { PlatformFactory } from './platform.js';

export type { Platform, PlatformContext, PlatformFactory, PlatformWorker, DeliveryRequest, DeliveryTarget } from './platform.js';
export { hiringPlatform, type HiringPlatformOptions } from './hiring-platform/index.js';
export { greenhousePlatform } from './greenhouse/index.js';

/**
 * The platforms the partner speaks unless told otherwise: each its own folder here, none importing
 * another (docs/platforms.md). The one module of the core that names them is `assemble.ts`, through
 * this list.
 */
export function kitPlatforms(options: HiringPlatformOptions = {}): PlatformFactory[] {
  return [hiringPlatform(options), greenhousePlatform()];
}
