import { ashbyPlugin } from './ashby/index.js';
import { greenhousePlugin } from './greenhouse/index.js';
import { hibobPlugin } from './hibob/index.js';
import type { PlatformPlugin } from './plugin.js';

export type { Connected, PlatformPlugin, PlatformSide, PluginSetup, ScriptedPlatform, ScriptedReport, ScriptOutcome } from './plugin.js';
export { definePlatformPlugin } from './plugin.js';

/**
 * The registry: the platforms the mock plays besides the hiring platform, one line each, each its
 * own folder here (platforms/plugin.ts says what a plugin brings). The mock's core, `npm run dev`
 * and the test harness are given this list; none of them names a platform.
 */
export function mockPlatforms(): readonly PlatformPlugin[] {
  return [
    greenhousePlugin,
    ashbyPlugin,
    hibobPlugin,
  ];
}
