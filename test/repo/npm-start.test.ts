import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `npm start` with the project's package.json, in a folder of its own: the build there or not. */
function npmStart(dir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  // No "new version of npm" notice among the lines the test reads.
  const child = spawn('npm', ['start'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, npm_config_update_notifier: 'false' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('npm start', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('before npm run build: one line saying to run it first, no stack trace, a non-zero exit', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kit-start-'));
    const { code, stderr } = await npmStart(dir);
    expect(code).not.toBe(0);
    expect(stderr.trim()).toBe('The partner is not built: run `npm run build` first.');
  });

  it('after npm run build: runs the built server', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kit-start-'));
    mkdirSync(path.join(dir, 'dist/src/partner'), { recursive: true });
    writeFileSync(path.join(dir, 'dist/src/partner/server.js'), "console.log('the built server ran');\n");
    const { code, stdout } = await npmStart(dir);
    expect(code).toBe(0);
    expect(stdout).toContain('the built server ran');
  });
});
