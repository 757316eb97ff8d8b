import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kitProcess } from '../support/net.js';

/**
 * One product per deployment, two deployments from one checkout: `.env` holds the first's
 * settings, another file the second's, and ENV_FILE names it. Every entry point reads the file it
 * names in place of `.env` — the server and `npm run accounts` here, compiled as `npm start` runs
 * them — so nothing of the first deployment's settings leaks into the second's.
 */
let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'kit-env-file-')));
  writeFileSync(path.join(dir, '.env'), 'PARTNER_NAME=First Product\nDATABASE_PATH=./first.db\n');
  writeFileSync(path.join(dir, 'second.env'), 'PARTNER_NAME=Second Product\nDATABASE_PATH=./second.db\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A compiled entry point of the kit, in the checkout `dir`, with nothing of the machine's settings but PATH. */
function run(entry: string, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, kitProcess(entry, args), { cwd: dir, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env } });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  /** The server's port, from its "listening" line; rejects if it exits first. */
  const port = new Promise<number>((resolve, reject) => {
    const check = () => {
      const match = /"port":(\d+).*"msg":"partner server listening"/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout.on('data', check);
    void exited.then((code) => reject(new Error(`${entry} exited (${code}) before listening:\n${output}`)));
  });
  port.catch(() => undefined);
  return { child, exited, port, output: () => output };
}

const accountNames = (file: string) => {
  const db = new Database(path.join(dir, file), { readonly: true });
  try {
    return db.prepare('SELECT name FROM accounts ORDER BY id').pluck().all();
  } finally {
    db.close();
  }
};

describe('ENV_FILE', () => {
  it('names the settings file npm run accounts reads in place of .env, which it reads otherwise', async () => {
    const first = run('scripts/accounts.ts', ['create', 'Acme'], {});
    expect(await first.exited, first.output()).toBe(0);
    const second = run('scripts/accounts.ts', ['create', 'Globex'], { ENV_FILE: 'second.env' });
    expect(await second.exited, second.output()).toBe(0);
    expect(accountNames('first.db')).toEqual(['Acme']);
    expect(accountNames('second.db')).toEqual(['Globex']);
  });

  it('names the settings file the server reads: its name, its database, and nothing of .env', async () => {
    const server = run('src/partner/server.ts', [], { ENV_FILE: 'second.env', PORT: '0' });
    try {
      // On loopback, the development credentials: the dashboard's header names the vendor.
      const dashboard = await fetch(`http://127.0.0.1:${await server.port}/admin`, { headers: { authorization: `Basic ${btoa('admin:admin')}` } });
      expect(dashboard.status).toBe(200);
      const page = await dashboard.text();
      expect(page).toContain('Second Product');
      expect(page).not.toContain('First Product');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    expect(accountNames('second.db')).toEqual(['Globex']);
  });

  it('names a file that is not there: the server stops with one line naming it, exit 78, without reading .env', async () => {
    rmSync(path.join(dir, 'first.db'), { force: true });
    const server = run('src/partner/server.ts', [], { ENV_FILE: 'staging.env', PORT: '0' });
    // Started anyway (on .env, or on nothing): stopped at once, and the test fails below.
    void server.port.then(
      () => server.child.kill('SIGTERM'),
      () => undefined,
    );
    expect(await server.exited).toBe(78);
    expect(server.output().trim()).toBe(`ENV_FILE: cannot read the settings file ${path.join(dir, 'staging.env')}: there is no such file`);
    expect(existsSync(path.join(dir, 'first.db'))).toBe(false);
  });
});
