import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliOutput } from '../../src/lib/cli.js';
import { readMockCommandLine } from '../../src/mock-platform/server.js';
import { readDevCommandLine } from '../../scripts/dev.js';
import { readRegisterCommandLine } from '../../scripts/register-partner.js';
import { kitProcess } from '../support/net.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'kit-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs an entry point as its own process, compiled once for the run (test/support/compiled-kit.ts:
 * the same JavaScript `npm run …` runs through tsx, which took a second more of CPU to start), to
 * its exit; test/fork runs the npm scripts themselves. Should
 * it start servers instead of refusing its arguments, they take free ports and a throwaway
 * database, and the test fails at its time limit: the process is killed when the test ends.
 */
const run = (script: string, args: string[], onTestFinished: (fn: () => void) => void) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, kitProcess(script, args), {
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
    onTestFinished(() => child.kill('SIGKILL'));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

/**
 * Each entry point's command-line reading, in this process: what the script does with its
 * arguments before it starts anything, its exit code (undefined: it would run) and its output.
 */
const readInProcess = (read: (args: string[], out: CliOutput) => { exit: number } | object, args: string[]) => {
  let stdout = '';
  let stderr = '';
  const answer = read(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code: 'exit' in answer ? answer.exit : undefined, stdout, stderr };
};

const CLIS = [
  ['npm run register', 'scripts/register-partner.ts', readRegisterCommandLine],
  ['npm run dev', 'scripts/dev.ts', readDevCommandLine],
  ['npm run mock', 'src/mock-platform/server.ts', readMockCommandLine],
] as const;

describe('command-line arguments', () => {
  // One process per script, all at once: each spends its time starting Node and loading its modules.
  it.concurrent.for(CLIS.map(([name, script]) => [name, script] as const))(
    '%s %j --bogus, as its own process: the usage on stderr, exit 2, no stack trace, nothing started',
    async ([name, script], { expect, onTestFinished }) => {
      const result = await run(script, ['--bogus'], onTestFinished);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Usage:');
      expect(result.stderr).toContain(name);
      expect(result.stderr).not.toMatch(/^ {4}at /m);
      expect(result.stdout).toBe('');
    },
  );

  it.each(CLIS.flatMap(([name, , read]) => [
    [name, ['--bogus'], read],
    [name, ['extra'], read],
  ] as const))('%s %j: the usage on stderr, exit 2, no stack trace, nothing started', (name, args, read) => {
    const result = readInProcess(read, [...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage:');
    expect(result.stderr).toContain(name);
    expect(result.stderr).not.toMatch(/^ {4}at /m);
    expect(result.stdout).toBe('');
  });

  it.each(CLIS)('%s --help: the usage on stdout, exit 0', (name, _script, read) => {
    const result = readInProcess(read, ['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage:');
    expect(result.stdout).toContain(name);
  });

  it.each(CLIS)('%s without arguments: runs', (_name, _script, read) => {
    expect(readInProcess(read, [])).toEqual({ code: undefined, stdout: '', stderr: '' });
  });
});
