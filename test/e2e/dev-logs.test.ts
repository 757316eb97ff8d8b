import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { kitProcess } from '../support/net.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'kit-dev-logs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * `npm run dev` as a process, compiled (test/support/compiled-kit.ts; test/e2e/cli-usage.test.ts
 * runs it under tsx); its output once the banner is out and it has stopped.
 */
async function runDev(env: Record<string, string>): Promise<{ stdout: string; code: string | number | null }> {
  const child = spawn(process.execPath, kitProcess('scripts/dev.ts'), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', MOCK_PORT: '0', ...env },
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
  // A death by signal is reported by its name, so a failure says how the process ended.
  const exited = new Promise<string | number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  // The banner, or the process ending without it (which the test reports with its output).
  await Promise.race([
    exited,
    new Promise<void>((resolve) => {
      const banner = () => stdout.includes('Ctrl-C stops both servers') && (child.stdout.off('data', banner), resolve());
      child.stdout.on('data', banner);
    }),
  ]);
  child.kill('SIGTERM');
  const code = await exited;
  return { stdout, code };
}

// Each run has its own database and ports: the two run at once.
describe.concurrent('npm run dev logs', () => {
  it('by default, human-readable lines naming their server, requests only when they fail', async ({ expect }) => {
    const { stdout, code } = await runDev({ DATABASE_PATH: path.join(dir, 'pretty.db') });
    expect(code, stdout).toBe(0);
    expect(stdout).toContain('Sandbox ready (assessment partner).');
    expect(stdout).toMatch(/^\[partner\] \d\d:\d\d:\d\d INFO {2}partner server listening port=\d+/m);
    // The registration, the integration and the platforms' connections went well: not a line of them.
    expect(stdout).not.toMatch(/ request method=/);
    expect(stdout).toContain('Requests are logged only when they fail (4xx, 5xx): LOG_LEVEL=debug npm run dev logs every one.');
    expect(stdout).not.toContain('{"level"');
  });

  it('with LOG_LEVEL=debug, every request, readable', async ({ expect }) => {
    const { stdout, code } = await runDev({ DATABASE_PATH: path.join(dir, 'debug.db'), LOG_LEVEL: 'debug' });
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^\[mock\] +\d\d:\d\d:\d\d DEBUG request method=POST path=\/api\/p\/demo-assessments\/c\/1\/partner status=20[01]/m);
    expect(stdout).not.toContain('Requests are logged only when they fail');
  });

  it('with LOG_FORMAT=json, JSON lines, each with its server', async ({ expect }) => {
    const { stdout, code } = await runDev({ DATABASE_PATH: path.join(dir, 'json.db'), LOG_FORMAT: 'json' });
    expect(code, stdout).toBe(0);
    const lines = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { server?: string; msg: string });
    expect(lines.find((l) => l.msg === 'partner server listening')?.server).toBe('partner');
    expect(lines.filter((l) => l.msg === 'request').map((l) => l.server)).toContain('mock');
    expect(lines.every((l) => l.server === 'partner' || l.server === 'mock')).toBe(true);
  });
});

describe('npm run dev, clicked through', () => {
  it('logs a request that fails and not one that went well, and prints the addresses again on Enter', async () => {
    const child = spawn(process.execPath, kitProcess('scripts/dev.ts'), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', MOCK_PORT: '0', DATABASE_PATH: path.join(dir, 'clicked.db') },
    });
    let stdout = '';
    /** Resolves once the output so far passes `test`: on the output it writes, never on the clock. */
    const seen = (test: (output: string) => boolean, what: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!test(stdout)) return;
          child.stdout.off('data', check);
          resolve();
        };
        child.stdout.on('data', check);
        child.once('exit', () => reject(new Error(`npm run dev exited before ${what}:\n${stdout}`)));
        check();
      });
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await seen((out) => out.includes('Ctrl-C stops both servers'), 'its banner');
      const mockUrl = /Mock platform \(sandbox UI\)\s+(http:\/\/\S+)/.exec(stdout)![1]!;
      const banner = stdout.length;
      // A page that answers, then an address that does not: only the second is a line of the log.
      expect((await fetch(`${mockUrl}/companies/1`)).status).toBe(200);
      expect((await fetch(`${mockUrl}/no-such-page`)).status).toBe(404);
      await seen((out) => /\[mock\] +\d\d:\d\d:\d\d INFO {2}request method=GET path=\/no-such-page status=404/.test(out), 'logging the 404');
      expect(stdout.slice(banner)).not.toContain('path=/companies/1 ');

      child.stdin.write('\n');
      await seen((out) => out.slice(banner).includes('Mock platform (sandbox UI)'), 'printing the addresses again');
      expect(stdout.slice(banner).match(/Mock platform \(sandbox UI\)/g)).toHaveLength(1);
      expect(stdout.slice(banner)).toMatch(/Partner dashboard\s+http:\/\/127\.0\.0\.1:\d+\/admin/);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
