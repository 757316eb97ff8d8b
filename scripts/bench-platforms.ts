/**
 * The partner with only some of the kit's platforms, for `npm run bench` to measure what the others
 * cost: their routes, settings and API document, and their modules' memory and start-up. The
 * bench starts it from a copy of the build (`dist/`) whose registry, platforms/index.js, lists only
 * the platforms named, their imports gone, so the others' modules are never loaded. Nothing of the
 * kit changes, and the process is started as `npm start` starts it: no loader, no hook thread, whose
 * own memory and start-up would be counted against the partner.
 *
 * The copy lives under node_modules/.cache/, inside the project: packages resolve from the
 * project's node_modules and the package root (views/, scripts/) is the project's, as for dist/.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Copies `root`/dist to a folder of its own with the registry cut down to `names` (e.g.
 * `['hiring-platform', 'greenhouse']`); returns that folder, which holds `dist/` as the project
 * does. Throws, naming it, for a platform the registry does not list, or a registry line not of the
 * registry's form (`import { xPlatform } from './x/index.js';` and `xPlatform(…),` in
 * `kitPlatforms`): the bench then measures nothing rather than the wrong thing.
 */
export function buildWithPlatforms(root: string, names: readonly string[]): string {
  const copy = path.join(root, 'node_modules', '.cache', `partner-bench-${names.join('+')}`);
  rmSync(copy, { recursive: true, force: true });
  cpSync(path.join(root, 'dist'), path.join(copy, 'dist'), { recursive: true });
  const registry = path.join(copy, 'dist', 'src', 'partner', 'platforms', 'index.js');
  writeFileSync(registry, onlyPlatforms(readFileSync(registry, 'utf8'), names));
  return copy;
}

/** The built registry's source with only `names` registered. */
export function onlyPlatforms(source: string, names: readonly string[]): string {
  const imports = [...source.matchAll(/^import \{ (\w+) \} from '\.\/([\w-]+)\/index\.js';\n/gm)];
  for (const name of names) {
    if (!imports.some(([, , folder]) => folder === name)) {
      throw new Error(`BENCH_TWO_PLATFORMS: no platform ${name} in the registry (${imports.map(([, , folder]) => folder).join(', ')})`);
    }
  }
  let cut = source;
  for (const [line, factory, folder] of imports) {
    if (names.includes(folder!)) continue;
    const call = new RegExp(`^\\s*${factory}\\([^)]*\\),\\n`, 'm');
    if (!call.test(cut)) throw new Error(`BENCH_TWO_PLATFORMS: the registry line of ${folder} was not found in dist/src/partner/platforms/index.js`);
    cut = cut.replace(line, '').replace(call, '');
  }
  return cut;
}
