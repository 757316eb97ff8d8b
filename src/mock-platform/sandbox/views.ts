import { Eta } from 'eta';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root: the nearest folder above this module with a package.json. Works from `src/`
 * under tsx and from `dist/src/` after a build, where a fixed `../..` would not.
 */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the mock platform');
    dir = parent;
  }
  return dir;
}

const ROOT = packageRoot();
export const SANDBOX_VIEWS_DIR = path.join(ROOT, 'views', 'mock');
export const SANDBOX_ASSETS_DIR = path.join(SANDBOX_VIEWS_DIR, 'assets');

/** Templates escape every `<%= %>` interpolation; none of them contains a script. */
export const views = new Eta({ views: SANDBOX_VIEWS_DIR, cache: true, autoEscape: true });
