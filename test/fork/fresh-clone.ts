import { cpSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/** The repository this test suite belongs to. */
export const ROOT = path.resolve(import.meta.dirname, '../..');

/** What a fresh clone has not: what installing, building, running and git leave. */
const NOT_COPIED = new Set(['node_modules', 'dist', 'data', '.git', '.env', 'coverage', 'bench-results', 'test-results']);

/**
 * The repository's files copied into `to`, as a fresh clone has them (the working tree's, not a
 * commit's), with node_modules a link to the project's own — the dependencies as `npm ci` installs
 * them, without installing them again: the cheap way to a copy a vendor's fork starts as.
 */
export function freshClone(to: string): void {
  for (const name of readdirSync(ROOT)) {
    if (NOT_COPIED.has(name)) continue;
    cpSync(path.join(ROOT, name), path.join(to, name), { recursive: true, filter: (from) => !/\.db(-wal|-shm)?$|\.demo-token$/.test(from) });
  }
  symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(to, 'node_modules'), 'dir');
}

/** git's environment in a fork: a vendor's name on its commits, nothing of the machine's or the user's configuration. */
export const vendorGitEnv = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Vendor',
  GIT_AUTHOR_EMAIL: 'dev@vendor.example',
  GIT_COMMITTER_NAME: 'Vendor',
  GIT_COMMITTER_EMAIL: 'dev@vendor.example',
});
