import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'kit-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs an entry point as `npm run …` does (node itself, so a kill reaches it). Should it start
 * servers instead of refusing its arguments, they take free ports and a throwaway database.
 */
const run = (script: string, args: string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        LOG_LEVEL: 'silent',
        PORT: '0',
        MOCK_PORT: '0',
        DATABASE_PATH: path.join(dir, 'partner.db'),
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });

const CLIS = [
  ['npm run register', 'scripts/register-partner.ts'],
  ['npm run dev', 'scripts/dev.ts'],
  ['npm run mock', 'src/mock-platform/server.ts'],
] as const;

describe('command-line arguments', () => {
  it.each(CLIS.flatMap(([name, script]) => [
    [name, script, ['--bogus']],
    [name, script, ['extra']],
  ]))('%s %j: the usage on stderr, exit 2, no stack trace, nothing started', async (name, script, args) => {
    const result = await run(script, args as string[]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage:');
    expect(result.stderr).toContain(name);
    expect(result.stderr).not.toMatch(/^ {4}at /m);
    expect(result.stdout).toBe('');
  });

  it.each(CLIS)('%s --help: the usage on stdout, exit 0', async (name, script) => {
    const result = await run(script, ['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage:');
    expect(result.stdout).toContain(name);
  });
});
