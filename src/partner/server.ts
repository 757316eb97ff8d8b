import { isEntryPoint } from '../lib/cli.js';
import { loadEnvFile } from '../lib/env-file.js';
import { ConfigError, type Config } from './config.js';
import { runPartner, startPartner, type MainOverrides } from './index.js';
import { importProviderModule, ProviderModuleError } from './provider/module.js';
import { platformsOf, type PlatformDefinition } from './platforms/index.js';

/**
 * The server this kit ships (`npm start`, the Docker image, `npm run dev`): the partner with the
 * vendor's module, src/provider/index.ts — its provider, and its webhook handlers and routes if it
 * exports them. Nothing here names a provider: a fork changes src/provider/ only.
 */

export type { MainOverrides };

/**
 * The platforms the shipped server speaks: the kit's and the vendor module's own (`platforms`), whose
 * settings `loadConfig` must be given with the kit's: `loadConfig(env, await servedPlatforms())`.
 */
export const servedPlatforms = async (): Promise<PlatformDefinition[]> => platformsOf(await importProviderModule());

/** The shipped server with `config` (tests, `npm run dev`, which read `.env` first themselves). */
export const main = async (config: Config, overrides: MainOverrides = {}) => startPartner({ config, ...(await importProviderModule()), overrides });

if (isEntryPoint(import.meta.url)) {
  // Before the vendor's module is imported: it may read its settings as it loads.
  loadEnvFile();
  const vendor = await importProviderModule().catch((err: unknown) => {
    // A setting the module reads as it loads, or an export of the wrong shape: the message alone.
    if (!(err instanceof ConfigError || err instanceof ProviderModuleError)) throw err;
    console.error(err.message);
    return process.exit(err instanceof ConfigError ? 78 : 1);
  });
  await runPartner(vendor);
}
