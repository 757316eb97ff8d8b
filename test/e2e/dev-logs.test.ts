import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';
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
  it('by default, human-readable lines naming their server', async ({ expect }) => {
    const { stdout, code } = await runDev({ DATABASE_PATH: path.join(dir, 'pretty.db') });
    expect(code, stdout).toBe(0);
    expect(stdout).toContain('Sandbox ready (assessment partner).');
    expect(stdout).toMatch(/^\[partner\] \d\d:\d\d:\d\d INFO {2}partner server listening port=\d+/m);
    expect(stdout).toMatch(/^\[mock\] +\d\d:\d\d:\d\d INFO {2}request method=POST path=\/api\/p\/demo-assessments\/c\/1\/partner status=20[01]/m);
    expect(stdout).not.toContain('{"level"');
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
