import type { Db } from '../../lib/db.js';
import { migrateNamed } from '../../lib/db.js';
import { PLUGIN_NAME, type PlatformPlugin } from './plugin.js';

/**
 * The plugins a mock is built with, checked: each name well formed and used once (it is a URL
 * segment, a migration prefix and a template prefix), and each of its calls to the partner named
 * after it (`<name>.send_test`), so that no two platforms' calls share a name in the call log
 * and the faults. Throws, naming the problem, at start-up: a plugin list is the kit's code, not a
 * user's input.
 */
export function checkPlugins(plugins: readonly PlatformPlugin[]): readonly PlatformPlugin[] {
  const names = new Set<string>();
  for (const plugin of plugins) {
    if (!PLUGIN_NAME.test(plugin.name)) throw new Error(`Platform plugin name "${plugin.name}" must be lowercase letters, digits and -`);
    if (names.has(plugin.name)) throw new Error(`Two platform plugins are named "${plugin.name}"`);
    names.add(plugin.name);
    const stray = (plugin.callbacks ?? []).find((call) => !call.startsWith(`${plugin.name}.`));
    if (stray !== undefined) throw new Error(`Platform plugin "${plugin.name}" names a call "${stray}": its calls are named "${plugin.name}.…"`);
  }
  return plugins;
}

/** Applies each plugin's migrations after the mock's own, each once, tracked as `<name>/NNN_name.sql`. */
export function migratePlugins(db: Db, plugins: readonly PlatformPlugin[]): void {
  for (const plugin of plugins) if (plugin.migrations) migrateNamed(db, plugin.migrations, plugin.name);
}
