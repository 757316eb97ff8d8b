import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { runuserOn } from '../support/postgres.js';

const SUPPORT = fileURLToPath(new URL('../support/postgres.ts', import.meta.url));
const ROOT = path.resolve(import.meta.dirname, '../..');

/** Whether something accepts a connection on `port` of the loopback. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the tests' throwaway PostgreSQL", () => {
  it('is stopped, and its folder deleted, when the process that started it ends without stopping it', { timeout: 180_000 }, async () => {
    // A process that starts a server and ends, as a run interrupted or a hook that timed out leaves it.
    const script = `import(${JSON.stringify(SUPPORT)}).then(async ({ startPostgres }) => {
      const pg = await startPostgres();
      const postmaster = pg.pids()[0];
      const cmdline = require('node:fs').readFileSync('/proc/' + postmaster + '/cmdline', 'utf8').split('\\0');
      console.log(JSON.stringify({ url: pg.url, postmaster, data: cmdline[cmdline.indexOf('-D') + 1] }));
    })`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code, output).toBe(0);
    const { url, postmaster, data } = JSON.parse(output) as { url: string; postmaster: number; data: string };
    const port = Number(new URL(url).port);
    const folder = path.dirname(data);
    expect(folder).toMatch(/kit-postgres-/);

    await eventually(async () => {
      expect(alive(postmaster)).toBe(false);
      expect(await accepts(port)).toBe(false);
      expect(existsSync(folder)).toBe(false);
    }, { what: 'the server stopped and its folder gone' });
  });
});

describe("runuser, which the tests' PostgreSQL runs through when the tests run as root", () => {
  /** One line: what is missing, and what to do about it. */
  const SAYS_WHAT_TO_DO =
    /^The tests run as root, so their PostgreSQL must run as the postgres user, through runuser, which is (at \S+ but )?not on PATH: (add \/\S+ to PATH|install util-linux \(Debian and Ubuntu: apt-get install util-linux\)), or run the tests as another user\.$/;

  it('is taken from PATH; missing from it, the error says so and what to do, in one line', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'runuser-'));
    try {
      const empty = path.join(dir, 'empty');
      const holding = path.join(dir, 'bin');
      mkdirSync(empty);
      mkdirSync(holding);
      writeFileSync(path.join(holding, 'runuser'), '#!/bin/sh\n', { mode: 0o755 });
      expect(runuserOn([empty, holding].join(path.delimiter))).toBe(path.join(holding, 'runuser'));
      for (const searchPath of [empty, '', undefined]) expect(() => runuserOn(searchPath)).toThrow(SAYS_WHAT_TO_DO);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Only root's servers run through runuser: another user's start without it.
  it.runIf(userInfo().uid === 0)('missing from PATH as root: starting a server fails with that line, not "initdb failed: null"', { timeout: 60_000 }, async () => {
    const lacking = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => !existsSync(path.join(dir, 'runuser')));
    const script = `import(${JSON.stringify(SUPPORT)}).then(({ startPostgres }) => startPostgres()).then(
      () => process.exit(0),
      (err) => { console.log(JSON.stringify({ message: err.message })); process.exit(3); },
    )`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, PATH: lacking.join(path.delimiter) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code, output).toBe(3);
    expect((JSON.parse(output) as { message: string }).message).toMatch(SAYS_WHAT_TO_DO);
  });
});
