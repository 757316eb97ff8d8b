import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../scripts/dev.js';
import { unreadLines } from '../../src/lib/env-file.js';
import { ConfigError } from '../../src/partner/config.js';
import { StartupError } from '../../src/lib/cli.js';
import { kitProcess } from '../support/net.js';
import { startDev } from './support.js';

/**
 * How `npm run dev` starts, as a newcomer meets it: every bad setting named at once, as `npm start`
 * names them; a line of `.env` it cannot read warned about by its number, never its value;
 * `--reset` saying what it deleted; and a second `npm run dev` on the same sandbox, or on a port in
 * use, stopping before it touches any database.
 */

const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'kit-dev-start-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const quiet = (databasePath: string, env: Record<string, string> = {}) => ({
  PATH: process.env.PATH,
  DATABASE_PATH: databasePath,
  PORT: '0',
  MOCK_PORT: '0',
  LOG_LEVEL: 'silent',
  ...env,
});

describe('settings', () => {
  it('names every bad setting at once: the sandbox’s, the mock’s, the partner’s and the manifest’s', async () => {
    const databasePath = path.join(dir, 'settings.db');
    const started = startSandbox({
      ...quiet(databasePath),
      PARTNER_CODENAME: 'Not A Codename!',
      MOCK_PORT: 'four thousand',
      PORT: '99999',
      ADMIN_USERNAME: 'x'.repeat(300),
      // Read by both servers: named once.
      LOG_LEVEL: 'loud',
      PARTNER_MANIFEST: path.join(dir, 'no-such-manifest.json'),
    });
    const err = await started.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    for (const name of ['PARTNER_CODENAME', 'MOCK_PORT', 'PORT', 'ADMIN_USERNAME', 'LOG_LEVEL', 'PARTNER_MANIFEST']) {
      expect(problems.filter((p) => p.startsWith(`${name}:`)), `${name} in ${JSON.stringify(problems)}`).toHaveLength(1);
    }
    // Nothing was started or written: the settings are read before anything else.
    expect(existsSync(databasePath)).toBe(false);
  });
});

describe('.env', () => {
  const ENV = [
    '# the sandbox',
    'PARTNER_NAME=Quiz Co',
    '',
    'SMTP_PASSWORD hunter2-secret',
    'export MAIL_FROM="Quiz Co <quiz@example.com>"',
    'NOTE="spans',
    'two lines"',
    'ADMIN_PASSWORD:correct-horse-secret',
    'ADMIN_USERNAME=operator',
    'LATER="never-closed-secret',
    'LOG_LEVEL=silent',
  ].join('\n');

  it('finds the lines Node’s reader skips, and the setting a line without = swallows, by number', () => {
    expect(unreadLines(ENV)).toEqual([
      { line: 4, why: 'not a setting (NAME=value, or a # comment): ignored' },
      // Node's reader takes line 4 for the start of this setting's name: MAIL_FROM is not set.
      { line: 5, why: 'MAIL_FROM is not set: a line before it that is not a setting is taken for part of its name' },
      { line: 8, why: 'not a setting (NAME=value, or a # comment): ignored' },
      { line: 9, why: 'ADMIN_USERNAME is not set: a line before it that is not a setting is taken for part of its name' },
      { line: 10, why: `LATER's value opens a quote (") that is never closed: read as it is, the quote included` },
    ]);
    // A file Node reads as it looks: nothing to say.
    expect(unreadLines('A=1\n\nexport B=2\n# a comment\nC=\nD="two\nlines"\r\nE=\'x\' # why\n')).toEqual([]);
  });

  it('npm run dev warns of each, by its line number, never its value', async () => {
    const cwd = path.join(dir, 'checkout');
    mkdirSync(cwd, { recursive: true });
    // MOCK_PORT is wrong too: npm run dev stops at the settings (exit 78), after the warnings.
    writeFileSync(path.join(cwd, '.env'), `${ENV}\nMOCK_PORT=nope\n`);
    const child = spawn(process.execPath, kitProcess('scripts/dev.ts'), { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code, output).toBe(78);
    expect(output).toContain('.env, line 4: not a setting (NAME=value, or a # comment): ignored');
    expect(output).toContain('.env, line 5: MAIL_FROM is not set');
    expect(output).toContain('.env, line 8: not a setting');
    expect(output).toContain('.env, line 9: ADMIN_USERNAME is not set');
    expect(output).toContain('.env, line 10: LATER');
    expect(output).toContain('MOCK_PORT: must be a port number');
    for (const secret of ['hunter2', 'correct-horse', 'never-closed']) expect(output).not.toContain(secret);
  });
});

describe('--reset', () => {
  it('says which files it deleted, and that there was nothing to delete on a fresh sandbox', async () => {
    const databasePath = path.join(dir, 'reset', 'partner.db');
    const said: string[] = [];
    const fresh = await startSandbox(quiet(databasePath), { reset: true, say: (line) => said.push(line) });
    await fresh.close();
    expect(said).toEqual([`--reset: nothing to delete (no ${databasePath} and ${path.join(dir, 'reset', 'partner.mock.db')} yet); both start empty.`]);

    said.length = 0;
    const again = await startSandbox(quiet(databasePath), { reset: true, say: (line) => said.push(line) });
    await again.close();
    expect(said, JSON.stringify(said)).toHaveLength(1);
    const deleted = said[0]!.replace(/^--reset deleted (.*): the partner and the mock start empty\.$/, '$1').split(', ');
    // The two databases (and whatever of their write-ahead logs was left) and the demo token, each by its path.
    expect(deleted, said[0]).toContain(databasePath);
    expect(deleted).toContain(path.join(dir, 'reset', 'partner.mock.db'));
    expect(deleted).toContain(`${databasePath}.demo-token`);
    for (const file of deleted) expect(file.startsWith(path.join(dir, 'reset'))).toBe(true);
  });
});

describe('a second npm run dev', () => {
  let first: Sandbox | undefined;
  afterAll(async () => {
    await first?.close();
  });

  /** The partner record the mock keeps for the sandbox: npm run dev registers it again on every start. */
  const registration = (mockFile: string) => {
    const db = new Database(mockFile, { readonly: true });
    try {
      return db.prepare('SELECT codename, updated_at FROM partners').all();
    } finally {
      db.close();
    }
  };

  it('on the same sandbox, with only MOCK_PORT changed, stops before it writes to the running one’s databases, naming it', async () => {
    const databasePath = path.join(dir, 'running', 'partner.db');
    const mockFile = path.join(dir, 'running', 'partner.mock.db');
    first = await startDev(databasePath);
    const before = registration(mockFile);
    const port = new URL(first.partnerUrl).port;

    const second = await startSandbox(quiet(databasePath, { PORT: port, MOCK_PORT: '0' })).then(
      async (s) => (await s.close(), undefined),
      (e: unknown) => e,
    );
    expect(second).toBeInstanceOf(StartupError);
    expect((second as StartupError).message).toBe(
      `${databasePath} is in use by another npm run dev (process ${process.pid}): stop it first (Ctrl-C in its terminal), or give this one its own DATABASE_PATH (and MOCK_DATABASE_PATH)`,
    );
    // The running sandbox's registration is as it was: the second one never reached the mock's database.
    expect(registration(mockFile)).toEqual(before);
    // And the first still works.
    expect((await fetch(`${first.mockUrl}/healthz`)).status).toBe(200);
  });

  it('on another sandbox but a port in use, stops before it creates any database, naming PORT', async () => {
    const other = path.join(dir, 'other', 'partner.db');
    const port = new URL(first!.partnerUrl).port;
    const err = await startSandbox(quiet(other, { PORT: port })).then(
      async (s) => (await s.close(), undefined),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).message).toContain(`(PORT=${port})`);
    expect(readdirSync(path.dirname(other)).filter((f) => !f.endsWith('.lock'))).toEqual([]);
  });

  it('once the first has stopped, starts on its sandbox', async () => {
    await first!.close();
    first = undefined;
    const databasePath = path.join(dir, 'running', 'partner.db');
    const again = await startDev(databasePath);
    await again.close();
    expect(existsSync(`${databasePath}.lock`)).toBe(false);
  });
});
