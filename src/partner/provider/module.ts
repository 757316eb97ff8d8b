import type { PartnerRoutes } from '../app.js';
import { PLATFORM_NAME, type PlatformDefinition, type WebhookHandler } from '../platforms/index.js';
import type { ProviderSource } from './types.js';

/**
 * [kit decision] The vendor's folder: `src/provider/`, whose `index.ts` is the one module every
 * entry point runs — the server (`npm start`, the Docker image), `npm run dev`, and
 * `npm run accounts` for its catalog. The kit never edits that folder, so upgrading the kit is
 * pulling it, never merging into the vendor's code. The module exports:
 *
 * - `default` — the provider: a `Provider`, or a factory `(kit) => Provider` (required);
 * - `webhookHandlers` — by event type, replacing the kit's `defaultWebhookHandlers` (optional);
 * - `routes` — routes of the vendor's own, mounted after the kit's (optional);
 * - `platforms` — platforms of the vendor's own, spoken beside the kit's (optional,
 *   docs/platforms.md): each a `definePlatform({ … })` from a folder under `src/provider/`.
 */
export const PROVIDER_MODULE = 'src/provider/index.ts';

/** What `src/provider/index.ts` exports, as `startPartner` takes it. */
export interface ProviderModule {
  provider: ProviderSource;
  webhookHandlers?: Readonly<Record<string, WebhookHandler>>;
  routes?: PartnerRoutes;
  platforms?: readonly PlatformDefinition[];
}

/** The vendor's module exports something of the wrong shape: the message says what and where. */
export class ProviderModuleError extends Error {
  constructor(problem: string) {
    super(`${PROVIDER_MODULE}: ${problem} (docs/adapting.md)`);
    this.name = 'ProviderModuleError';
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * Imports the vendor's module and checks what it exports. It is imported here, when called, never
 * by a static import: an entry point reads `.env` first, so a module that reads a setting as it is
 * imported (`const URL = process.env.PRODUCT_URL`) sees it. The type checker holds the exports to
 * `ProviderModule` too; `providerModuleOf` covers a module built or edited past it.
 */
export async function importProviderModule(): Promise<ProviderModule> {
  const exported: { default: ProviderSource; webhookHandlers?: ProviderModule['webhookHandlers']; routes?: PartnerRoutes; platforms?: readonly PlatformDefinition[] } = await import(
    '../../provider/index.js'
  );
  return providerModuleOf(exported);
}

/** The module's exports as `startPartner` takes them; a `ProviderModuleError` naming what is wrong. */
export function providerModuleOf(exported: Record<string, unknown>): ProviderModule {
  const { default: provider, webhookHandlers, routes, platforms } = exported;
  if (typeof provider !== 'function' && !(isObject(provider) && typeof provider.listTests === 'function')) {
    throw new ProviderModuleError('its default export must be your provider, a Provider or a factory (kit) => Provider');
  }
  if (webhookHandlers !== undefined && !(isObject(webhookHandlers) && Object.values(webhookHandlers).every((h) => typeof h === 'function'))) {
    throw new ProviderModuleError('webhookHandlers must map event types to handler functions');
  }
  if (routes !== undefined && typeof routes !== 'function') {
    throw new ProviderModuleError('routes must be a function (router, deps) => void');
  }
  if (platforms !== undefined) {
    const valid = (p: unknown) => isObject(p) && typeof p.name === 'string' && PLATFORM_NAME.test(p.name) && typeof p.label === 'string' && typeof p.create === 'function';
    if (!Array.isArray(platforms) || !platforms.every(valid)) {
      throw new ProviderModuleError('platforms must be a list of platform definitions, each definePlatform({ name, label, create, … }) with a lowercase name');
    }
  }
  return { provider, webhookHandlers, routes, platforms } as ProviderModule;
}
