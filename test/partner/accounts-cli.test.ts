import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { openPartnerDatabase } from '../../src/partner/db/open.js';
import { accountsCli, type AccountsIo } from '../../scripts/accounts.js';
import type { Provider } from '../../src/partner/index.js';
import { freshDatabase, rowsOf } from '../support/database.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/**
 * The command in this process, as its entry point runs it, answering as `execFile` does: its
 * output when it exits 0, else a rejection carrying the exit code and the output.
 */
async function inProcess(args: string[], env: NodeJS.ProcessEnv, provider?: AccountsIo['provider']): Promise<{ stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await accountsCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env, ...(provider && { provider }) });
  if (code !== 0) throw Object.assign(new Error(`accounts ${args.join(' ')} exited ${code}`), { code, stdout, stderr });
  return { stdout, stderr };
}

describe('accounts CLI', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'accounts-cli-'));
    env = { ...process.env, ...(await freshDatabase(dir)) };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const cli = (...args: string[]) => inProcess(args, env);

  it('when an account is created with --json, then it prints {id, name, token} once and the token authenticates', async () => {
    const { stdout } = await cli('create', 'Acme Hiring', '--test', 'JavaScript', '--json');
    const created = JSON.parse(stdout) as { id: number; name: string; token: string };
    expect(created).toMatchObject({ id: 1, name: 'Acme Hiring' });
    const database = await openPartnerDatabase({ databasePath: env.DATABASE_PATH!, databaseUrl: env.DATABASE_URL });
    try {
      expect((await accountStore(database.sql, systemClock).authenticate(created.token))?.id).toBe(1);
      expect(await rowsOf(database.sql, 'SELECT name FROM tests WHERE account_id = 1')).toEqual([{ name: 'JavaScript' }]);
    } finally {
      await database.close();
    }
    const { stdout: list } = await cli('list', '--json');
    expect(list).not.toContain(created.token);
    const listed = JSON.parse(list) as { keyIds: string[] }[];
    expect(listed).toEqual([expect.objectContaining({ id: 1, name: 'Acme Hiring', activeTokens: 1, keyIds: [created.token.slice(0, 16)] })]);
    // As a person reads it: a header, then each account with the key ids the dashboard shows.
    const { stdout: text } = await cli('list');
    expect(text.split('\n').slice(0, 2)).toEqual([
      'Account  Name         Company  Active tokens (key ids)',
      `1        Acme Hiring  —        ${created.token.slice(0, 16)}…`,
    ]);
  });

  it('when tokens are revoked, then the CLI says how many and the account has none active', async () => {
    const { stdout } = await cli('revoke', '1', '--json');
    expect(JSON.parse(stdout)).toEqual({ id: 1, revoked: 1 });
    const { stdout: list } = await cli('list', '--json');
    expect(JSON.parse(list)[0].activeTokens).toBe(0);
  });

  it('when the command is wrong, then it exits 2 with the usage', async () => {
    await expect(cli('revoke', 'abc')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('Usage') });
    await expect(cli('token', '99')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('No account 99') });
  });

  it.each([
    ['an option without its value', ['create', 'Foo', '--test']],
    ['an unknown option', ['create', 'Foo', '--bogus']],
    ['an unknown command', ['rename', '1']],
    ['a missing account id', ['token']],
  ])('when given %s, then it prints the usage, exits 2 and shows no stack trace', async (_what, args) => {
    const failed = await cli(...args).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain('Usage:');
    expect(failed?.stderr).toContain('npm run accounts -- create');
    expect(failed?.stderr).not.toMatch(/^ {4}at /m);
  });

  it('when an unknown account is revoked, then it is an error like an unknown account\'s token', async () => {
    await expect(cli('revoke', '99')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('No account 99') });
    await expect(cli('revoke', '99', '--json')).rejects.toMatchObject({ code: 2, stdout: '' });
  });

  it('when the provider has no catalog, then create --test refuses with exit 2, says so, and creates no account', async () => {
    // A product that keeps its tests itself: no `catalog` to add tests to.
    const hosted: Provider = {
      kind: 'assessment',
      listTests: async () => [{ id: 'js', name: 'JavaScript' }],
      startInvitation: async (invitation) => ({ candidateUrl: `https://product.example/${invitation.reportId}` }),
    };
    const before = JSON.parse((await cli('list', '--json')).stdout) as unknown[];
    const failed = await inProcess(['create', 'Hosted Inc', '--test', 'SQL'], env, async () => hosted).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain('the provider has no catalog');
    expect(failed?.stderr).not.toMatch(/^ {4}at /m);
    expect(JSON.parse((await cli('list', '--json')).stdout)).toEqual(before);
    // Without --test, the account is created as for any provider.
    expect((await inProcess(['create', 'Hosted Inc'], env, async () => hosted)).stdout).toContain('(Hosted Inc)');
  });

  it('when asked for help, then it prints the usage and exits 0', async () => {
    const { stdout } = await cli('--help');
    expect(stdout).toContain('Usage:');
  });

  it('as its own process (npm run accounts): an unknown account on stderr, exit 2, nothing on stdout, no stack trace', async () => {
    // Node itself with tsx's loader, as `npm run accounts` runs it (without tsx's wrapper process).
    const failed = await run(process.execPath, ['--import', 'tsx', 'scripts/accounts.ts', 'token', '99', '--json'], { cwd: ROOT, env }).then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain('No account 99');
    expect(failed?.stderr).not.toMatch(/^ {4}at /m);
    expect(failed?.stdout).toBe('');
  });
});
