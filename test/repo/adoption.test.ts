import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** What a company looks for before it adopts the kit: an `npm install` that asks nothing of a new user. */
describe('the package', () => {
  it('leaves no dependency\'s install script unreviewed, so npm install warns of none', async () => {
    // What `npm install` lists at its end as skipped: every package with an install script that
    // package.json's allowScripts neither allows nor denies (core-js's only prints an advert: denied).
    const { stdout } = await promisify(execFile)('npm', ['install-scripts', 'ls', '--json'], { cwd: ROOT, env: { ...process.env, npm_config_update_notifier: 'false' } });
    expect((JSON.parse(stdout) as { allowScripts: unknown[] }).allowScripts).toEqual([]);
  });
});
