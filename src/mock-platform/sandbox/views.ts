import { Eta } from 'eta';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../lib/package-root.js';

const ROOT = packageRoot();
export const SANDBOX_VIEWS_DIR = path.join(ROOT, 'views', 'mock');
export const SANDBOX_ASSETS_DIR = path.join(SANDBOX_VIEWS_DIR, 'assets');

/** Templates escape every `<%= %>` interpolation; none of them contains a script. */
export const views = new Eta({ views: SANDBOX_VIEWS_DIR, cache: true, autoEscape: true });

/** The plugin template folders loaded so far, by the name they are loaded under. */
const loaded = new Map<string, string>();

/**
 * A platform plugin's templates, kept in its own folder (platforms/<name>/views/): `company.eta` is
 * loaded as `@<name>/company`, once per process, and rendered like the sandbox's own — inside
 * `./layout`, which a named template finds in views/mock/.
 */
export function loadPluginViews(name: string, dir: string): void {
  if (loaded.get(name) === dir) return;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.eta'))) {
    views.loadTemplate(`@${name}/${file.slice(0, -'.eta'.length)}`, readFileSync(path.join(dir, file), 'utf8'));
  }
  loaded.set(name, dir);
}
