import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';

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
