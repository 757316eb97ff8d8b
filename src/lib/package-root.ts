import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root: the nearest folder above `moduleUrl` that holds a package.json. It finds
 * views/ and scripts/ from `src/` under tsx and from `dist/src/` after a build alike, where a fixed
 * `../..` would not.
 */
export function packageRoot(moduleUrl: string | URL = import.meta.url): string {
  for (let dir = path.dirname(fileURLToPath(moduleUrl)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json above ${fileURLToPath(moduleUrl)}`);
  }
}
