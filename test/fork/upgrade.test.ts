import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshClone, vendorGitEnv } from './fresh-clone.js';

/**
 * Upgrading a fork (docs/upgrading.md), as a vendor does it: a repository with the kit's older
 * version; the vendor's branch, whose commit changes src/provider/ only (its provider, its
 * manifest, its test); the kit's newer version, a commit changing kit files all over (the public
 * entry, a migration for each database, the version, the docs). `git merge` of the newer kit into
 * the fork is clean, and the fork's own test passes on the merged tree, run as the vendor runs it.
 */
let repo: string;
/** git in the repository, with no configuration of the machine's or the user's. */
const git = (...args: string[]) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      'git',
      args,
      {
        cwd: repo,
        env: vendorGitEnv(),
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
  });
const ok = async (...args: string[]) => {
  const ran = await git(...args);
  if (ran.code !== 0) throw new Error(`git ${args.join(' ')} failed (${ran.code}):\n${ran.output}`);
  return ran.output;
};
const write = (file: string, text: string) => writeFileSync(path.join(repo, file), text);
const read = (file: string) => readFileSync(path.join(repo, file), 'utf8');

/** The vendor's product, in its folder: read its product's address from its settings when built. */
const FORK_PROVIDER = `import type { Provider, ProviderKit } from '../partner/index.js';

export default (kit: ProviderKit): Provider => {
  const productUrl = process.env.TYPING_PRODUCT_URL ?? 'https://typing.example';
  return {
    kind: kit.kind,
    listTests: async () => [{ id: 'typing', name: 'Typing speed' }],
    startInvitation: async (invitation) => ({ candidateUrl: \`\${productUrl}/take/\${invitation.reportId}\` }),
  };
};
`;
/** Its test, written with the harness, beside it. */
const FORK_TEST = `import { expect, it } from 'vitest';
import { startHarness } from '../testing/index.js';
import provider from './index.js';

it('lists its tests, and the result its product posts reaches the platform', async () => {
  const harness = await startHarness({
    provider,
    manifest: 'src/provider/partner-manifest.json',
    env: { TYPING_PRODUCT_URL: 'https://typing.example' },
  });
  try {
    expect(await harness.listTests()).toEqual([{ id: 'typing', name: 'Typing speed' }]);
    const reportId = await harness.send('typing');
    expect((await harness.postResult(reportId, { status: 'completed', score: '72%' })).status).toBe(200);
    expect((await harness.waitForReport(reportId, (r) => r.status === 'completed')).score).toBe('72%');
  } finally {
    await harness.close();
  }
});
`;

/** The next free NNN_ of a folder of migrations. */
const nextMigration = (dir: string) => {
  const numbers = readdirSync(path.join(repo, dir)).map((f) => Number.parseInt(f, 10)).filter(Number.isFinite);
  return String(Math.max(...numbers) + 1).padStart(3, '0');
};

beforeAll(async () => {
  repo = realpathSync(mkdtempSync(path.join(tmpdir(), 'kit-upgrade-')));
  // The kit's older version: the repository as it is.
  freshClone(repo);
  await ok('init', '--quiet', '--initial-branch=kit');
  await ok('add', '--all');
  await ok('commit', '--quiet', '--no-gpg-sign', '-m', 'The kit, older version');

  // The vendor's fork: its commit changes src/provider/ only.
  await ok('switch', '--quiet', '--create', 'fork');
  write('src/provider/index.ts', FORK_PROVIDER);
  write('src/provider/index.test.ts', FORK_TEST);
  const manifest = JSON.parse(read('scripts/partner-manifest.json')) as Record<string, unknown>;
  write('src/provider/partner-manifest.json', `${JSON.stringify({ ...manifest, name: 'Typing Co', description: 'Typing tests.' }, null, 2)}\n`);
  await ok('add', '--all');
  await ok('commit', '--quiet', '--no-gpg-sign', '-m', 'Our product');

  // The kit's newer version, on its own branch: kit files everywhere but src/provider/.
  await ok('switch', '--quiet', 'kit');
  const pkg = JSON.parse(read('package.json')) as { version: string };
  const [major, minor] = pkg.version.split('.').map(Number);
  const next = `${major}.${minor! + 1}.0`;
  write('package.json', read('package.json').replace(`"version": "${pkg.version}"`, `"version": "${next}"`));
  write('CHANGELOG.md', read('CHANGELOG.md').replace('## [Unreleased]\n', `## [Unreleased]\n\n## [${next}] - 2027-01-15\n\n### Added\n\n- A table of the kit's release notes.\n`));
  write('src/partner/index.ts', `${read('src/partner/index.ts')}// The kit's version, for a fork's logs.\nexport const KIT_VERSION = '${next}';\n`);
  for (const dir of ['src/partner/db/migrations', 'src/partner/db/migrations-postgres']) {
    write(`${dir}/${nextMigration(dir)}_release_notes.sql`, '-- What each version of the kit changed.\nCREATE TABLE kit_release_notes (version TEXT PRIMARY KEY, notes TEXT NOT NULL);\n');
  }
  write('docs/upgrading.md', `${read('docs/upgrading.md')}\nFrom ${pkg.version} to ${next}: nothing to do.\n`);
  await ok('add', '--all');
  await ok('commit', '--quiet', '--no-gpg-sign', '-m', `The kit, ${next}`);
  expect(await ok('diff', '--name-only', 'HEAD~1', 'HEAD', '--', 'src/provider')).toBe('');
});
afterAll(() => {
  if (repo) rmSync(repo, { recursive: true, force: true });
});

describe('a fork whose code is in src/provider/ only', () => {
  it('merges the kit\'s next version without a conflict, and its own test passes on the merged tree', async () => {
    await ok('switch', '--quiet', 'fork');
    const merge = await git('merge', '--no-edit', '--no-gpg-sign', 'kit');
    expect(merge.output).not.toContain('CONFLICT');
    expect(merge.code, merge.output).toBe(0);
    expect(await ok('status', '--porcelain')).toBe('');
    // Both sides are in: the vendor's folder as the vendor wrote it, the kit's files as the kit did.
    expect(read('src/provider/index.ts')).toBe(FORK_PROVIDER);
    expect(read('src/partner/index.ts')).toContain('export const KIT_VERSION');
    expect(readdirSync(path.join(repo, 'src/partner/db/migrations')).filter((f) => f.endsWith('_release_notes.sql'))).toHaveLength(1);

    // As the vendor runs its tests (docs/adapting.md): `npx vitest run src/provider`, on the newer kit.
    const tests = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        'npx',
        ['vitest', 'run', 'src/provider'],
        { cwd: repo, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? repo, TMPDIR: tmpdir(), NO_COLOR: '1', npm_config_update_notifier: 'false' } },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    expect(tests.code, tests.output).toBe(0);
    expect(tests.output).toMatch(/src\/provider\/index\.test\.ts/);
    expect(tests.output).toMatch(/Tests\s+1 passed \(1\)/);
  });
});
