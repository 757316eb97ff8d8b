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
import { connectionStore } from '../../src/partner/connections/store.js';
import { definePlatform, kitPlatforms, type PlatformDefinition } from '../../src/partner/platforms/index.js';
import type { Sql } from '../../src/lib/sql.js';
import { freshDatabase, rowOf, rowsOf } from '../support/database.js';

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
      'Account  Name         Company  Active tokens (key ids)  Connections',
      `1        Acme Hiring  —        ${created.token.slice(0, 16)}…        —`,
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

/**
 * A customer's credential for a platform (its own API key there), given through the CLI: sealed
 * under CANDIDATE_LINK_SECRET, shown masked, never printed, and refused for an account or a
 * platform that cannot have one.
 */
describe('accounts CLI: a customer\'s credential for a platform', () => {
  const LINK = 'accounts-cli-link-secret-0123456789abcdefghij';
  /** What Acme's administrator copied from Acme ATS's settings: 36 characters, ending in "wxyz". */
  const SECRET = 'acme_live_8f3b2c1d9e0a7f6b5c4d3wxyz';
  const ROTATED = 'acme_live_rotated_key_000000001234';
  /** A platform of a fork's own that keeps a credential per customer; the CLI reads only its names. */
  const ACME_ATS = definePlatform({
    name: 'acme-ats',
    label: 'Acme ATS',
    credential: { label: 'Acme ATS API key', required: true },
    create: () => {
      throw new Error('the accounts CLI never makes a platform');
    },
  }) as PlatformDefinition;
  const speaks = async () => [...kitPlatforms(), ACME_ATS];
  const kitNames = () => kitPlatforms().map((p) => p.name);
  /** The kit's platforms that keep a credential per customer (Greenhouse does not: its key comes with each send). */
  const kitKeeping = () => kitPlatforms().filter((p) => p.credential).map((p) => p.name);

  let dir: string;
  let env: NodeJS.ProcessEnv;
  /** Everything the commands printed, on either stream: the secret must be in none of it. */
  let printed = '';
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'accounts-credential-'));
    env = { ...process.env, ...(await freshDatabase(dir)), CANDIDATE_LINK_SECRET: LINK };
    await cli('create', 'Acme Hiring');
    await cli('create', 'Globex');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The command with the fork's platforms; `stdin` is what standard input holds. */
  async function cli(...args: (string | { stdin: string })[]): Promise<{ stdout: string; stderr: string }> {
    const stdin = args.find((a): a is { stdin: string } => typeof a !== 'string');
    let stdout = '';
    let stderr = '';
    const code = await accountsCli(args.filter((a): a is string => typeof a === 'string'), {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      env,
      platforms: speaks,
      stdin: async () => {
        if (!stdin) throw new Error('the command read standard input, which the test gave it nothing on');
        return stdin.stdin;
      },
    });
    printed += stdout + stderr;
    if (code !== 0) throw Object.assign(new Error(`accounts ${args.join(' ')} exited ${code}`), { code, stdout, stderr });
    return { stdout, stderr };
  }
  const refusal = (...args: (string | { stdin: string })[]) =>
    cli(...args).then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
  const withDatabase = async <T>(use: (sql: Sql) => Promise<T>): Promise<T> => {
    const database = await openPartnerDatabase({ databasePath: env.DATABASE_PATH!, databaseUrl: env.DATABASE_URL });
    try {
      return await use(database.sql);
    } finally {
      await database.close();
    }
  };

  it('when set on the command line, then it is stored sealed, shown as its last four characters, and opened again only with the same CANDIDATE_LINK_SECRET', async () => {
    const { stdout } = await cli('credential', 'set', '1', 'acme-ats', SECRET);
    expect(stdout).toBe('Set the Acme ATS API key of account 1 (Acme Hiring) for Acme ATS: ••••wxyz. It is used from the next delivery on.\n');
    await withDatabase(async (sql) => {
      const row = await rowOf(sql, 'SELECT credential, credential_hint FROM connections WHERE account_id = 1');
      expect(row?.credential_hint).toBe('wxyz');
      expect(String(row?.credential)).not.toContain(SECRET.slice(0, 12));
      expect(await connectionStore(sql, systemClock, LINK).credential(1, 'acme-ats')).toBe(SECRET);
      // Another secret (CANDIDATE_LINK_SECRET rotated since): it cannot be opened, and says how to fix it.
      await expect(connectionStore(sql, systemClock, `${LINK}-rotated`).credential(1, 'acme-ats')).rejects.toThrow(
        /cannot be decrypted: CANDIDATE_LINK_SECRET changed since it was set \(set it again: npm run accounts -- credential set\)/,
      );
      // Bound to its account: copied onto another account's row, it does not open there.
      await sql.run('INSERT INTO connections (account_id, platform, credential, created_at, updated_at) SELECT 2, platform, credential, created_at, updated_at FROM connections WHERE account_id = 1');
      await expect(connectionStore(sql, systemClock, LINK).credential(2, 'acme-ats')).rejects.toThrow(/cannot be decrypted/);
      await sql.run('DELETE FROM connections WHERE account_id = 2');
    });
  });

  it('when listed or shown, then each connection shows its credential masked, as text and as JSON', async () => {
    const list = JSON.parse((await cli('list', '--json')).stdout) as { id: number; connections: unknown[] }[];
    expect(list.map((a) => [a.id, a.connections])).toEqual([
      [1, [{ platform: 'acme-ats', companyId: null, credential: '••••wxyz', credentialSetAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }]],
      [2, []],
    ]);
    const text = (await cli('list')).stdout.split('\n');
    expect(text[0]).toMatch(/ {2}Connections$/);
    expect(text[1]).toMatch(/ {2}acme-ats: credential ••••wxyz \(set \d{4}-.*\)$/);
    expect(text[2]).toMatch(/ {2}—$/);
    const shown = JSON.parse((await cli('show', '1', '--json')).stdout) as { name: string; connections: unknown[] };
    expect(shown).toMatchObject({ id: 1, name: 'Acme Hiring', connections: [{ platform: 'acme-ats', credential: '••••wxyz' }] });
    expect((await cli('show', '1')).stdout).toMatch(/^Connections +acme-ats: credential ••••wxyz \(set /m);
    expect((await cli('show', '2')).stdout).toMatch(/^Connections +—$/m);
  });

  it('when set again from standard input, then the new one replaces it (a rotation), without its line break', async () => {
    const { stdout } = await cli('credential', 'set', '1', 'acme-ats', '--json', { stdin: `${ROTATED}\n` });
    expect(JSON.parse(stdout)).toEqual({ id: 1, platform: 'acme-ats', credential: '••••1234', credentialSetAt: expect.any(String), replaced: true });
    expect(await withDatabase((sql) => connectionStore(sql, systemClock, LINK).credential(1, 'acme-ats'))).toBe(ROTATED);
  });

  it('when a short one is set, then it is shown as "set": four of its characters would say too much', async () => {
    await cli('credential', 'set', '2', 'acme-ats', { stdin: 'short-key' });
    const list = JSON.parse((await cli('list', '--json')).stdout) as { connections: { credential: string }[] }[];
    expect(list[1]!.connections[0]!.credential).toBe('set');
    expect((await cli('credential', 'remove', '2', 'acme-ats')).stdout).toBe('Removed the Acme ATS API key of account 2 (Globex) for Acme ATS.\n');
  });

  it.each([
    ['an unknown account', ['credential', 'set', '99', 'acme-ats', SECRET], 'No account 99'],
    ['a platform the partner does not speak', ['credential', 'set', '1', 'no-such-ats', SECRET], `No platform "no-such-ats": this partner speaks ${[...kitNames(), 'acme-ats'].join(', ')}`],
    ['a platform that keeps no credential', ['credential', 'set', '1', 'greenhouse', SECRET], `Greenhouse ("greenhouse") keeps no credential per customer: only ${[...kitKeeping(), 'acme-ats'].join(', ')}`],
    ['no secret on standard input', ['credential', 'set', '1', 'acme-ats', { stdin: '' }], 'credential set: no credential was given'],
    ['a blank one', ['credential', 'set', '1', 'acme-ats', { stdin: '   \n' }], 'credential set: the credential is blank'],
    ['one with a control character', ['credential', 'set', '1', 'acme-ats', `${SECRET}\u0007`], 'the credential holds a control character'],
    ['one too long', ['credential', 'set', '1', 'acme-ats', 'k'.repeat(8193)], 'a credential is at most 8192 characters'],
  ])('when given %s, then it is refused with exit 2, saying why, and nothing changes', async (_what, args, message) => {
    const failed = await refusal(...args);
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain(message);
    expect(failed?.stdout).toBe('');
    expect(failed?.stderr).not.toMatch(/^ {4}at /m);
    expect(await withDatabase((sql) => connectionStore(sql, systemClock, LINK).credential(1, 'acme-ats'))).toBe(ROTATED);
  });

  it.each([
    ['no action', ['credential'], 'credential needs set or remove'],
    ['no platform', ['credential', 'set', '1'], "credential set needs the platform's name"],
    ['a name that is not a platform\'s', ['credential', 'set', '1', 'Acme ATS'], '"Acme ATS" is not a platform\'s name'],
    ['a secret to remove', ['credential', 'remove', '1', 'acme-ats', SECRET], 'credential remove: one argument too many (remove takes no secret)'],
    ['an argument too many', ['credential', 'set', '1', 'acme-ats', SECRET, 'more'], 'credential set: one argument too many'],
  ])('when given %s, then it prints the usage and exits 2', async (_what, args, message) => {
    const failed = await refusal(...args);
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain(message);
    expect(failed?.stderr).toContain('npm run accounts -- credential set <account-id> <platform> [<secret>]');
  });

  it('when removed, then it is gone, the connection shows none, and removing again removes nothing', async () => {
    expect(JSON.parse((await cli('credential', 'remove', '1', 'acme-ats', '--json')).stdout)).toEqual({ id: 1, platform: 'acme-ats', removed: true });
    expect(await withDatabase((sql) => connectionStore(sql, systemClock, LINK).credential(1, 'acme-ats'))).toBeUndefined();
    expect((await cli('list', '--json')).stdout).toContain('"credential":null');
    expect((await cli('credential', 'remove', '1', 'acme-ats')).stdout).toBe('Account 1 (Acme Hiring) has no Acme ATS API key for Acme ATS: nothing removed.\n');
  });

  it('when a credential is kept for a platform the partner no longer speaks, then it can still be removed', async () => {
    await cli('credential', 'set', '1', 'acme-ats', SECRET);
    let stdout = '';
    const code = await accountsCli(['credential', 'remove', '1', 'acme-ats'], { stdout: (t) => (stdout += t), stderr: (t) => (stdout += t), env, platforms: async () => kitPlatforms() });
    expect([code, stdout]).toEqual([0, 'Removed the credential of account 1 (Acme Hiring) for acme-ats.\n']);
  });

  it('as its own process (npm run accounts), with the secret on standard input: a platform of the kit keeping none is refused, exit 2, and the secret is printed nowhere', async () => {
    const child = execFile(process.execPath, ['--import', 'tsx', 'scripts/accounts.ts', 'credential', 'set', '1', 'greenhouse'], { cwd: ROOT, env });
    child.stdin!.end(`${SECRET}\n`);
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(2);
    expect(output).toContain('Greenhouse ("greenhouse") keeps no credential per customer: ');
    expect(output).not.toContain(SECRET);
  });

  it('connect: a platform\'s company reaches an account (Bob\'s, before its install), one company one account, recorded in its history', async () => {
    const { stdout } = await cli('connect', '1', 'hibob', ' 640213 ', '--json');
    expect(JSON.parse(stdout)).toEqual({ id: 1, platform: 'hibob', companyId: '640213', replaced: null });
    expect(await withDatabase((sql) => sql.get('SELECT account_id, company_id FROM connections WHERE platform = $1', ['hibob']))).toEqual({ account_id: 1, company_id: '640213' });
    // Again: nothing changes, nothing recorded twice.
    await cli('connect', '1', 'hibob', '640213');
    expect(await withDatabase((sql) => sql.all("SELECT action, detail FROM account_events WHERE account_id = 1 AND action = 'company_connected'"))).toEqual([
      { action: 'company_connected', detail: JSON.stringify({ platform: 'hibob', companyId: '640213', replaced: null }) },
    ]);
    const taken = await refusal('connect', '2', 'hibob', '640213');
    expect(taken).toMatchObject({ code: 2, stderr: expect.stringContaining("HiBob's company 640213 is connected to another account; nothing was changed") });
    expect((await refusal('connect', '1', 'no-such-ats', '1'))?.stderr).toContain('the partner speaks no platform named "no-such-ats"');
    expect((await refusal('connect', '1', 'hibob', '   '))?.stderr).toContain('the company id is blank');
    expect((await refusal('connect', '1', 'hibob'))?.stderr).toContain('connect takes an account id, a platform and the company id it has there');
    expect(await withDatabase((sql) => sql.all("SELECT account_id, company_id FROM connections WHERE platform = 'hibob'"))).toEqual([{ account_id: 1, company_id: '640213' }]);
  });

  it('never prints the secret: not when set, listed, shown, rotated or refused', () => {
    expect(printed).toContain('••••wxyz');
    for (const secret of [SECRET, ROTATED, 'short-key']) {
      expect(printed).not.toContain(secret);
      expect(printed).not.toContain(secret.slice(0, -4));
    }
  });
});
