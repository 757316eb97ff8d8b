import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/**
 * What a company looks for before it adopts the kit: a license its lawyers accept, how to report a
 * vulnerability, what each version changed and how a fork takes the next — and an `npm install`
 * that asks nothing of a new user.
 */
describe('the package', () => {
  it('is licensed Apache-2.0, in package.json and in the LICENSE file, whose text is the license, and the README says why', () => {
    const pkg = JSON.parse(read('package.json')) as { license?: string };
    expect(pkg.license).toBe('Apache-2.0');
    const license = read('LICENSE');
    expect(license).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004\s/);
    // The patent grant (section 3) is why the kit chose it.
    expect(license).toContain('3. Grant of Patent License.');
    expect(license).toContain('END OF TERMS AND CONDITIONS');
    expect(read('README.md')).toMatch(/^## License\n\n\[Apache License 2\.0\]\(LICENSE\)\.[^#]*patent grant/m);
  });

  it('says how to report a vulnerability privately, what is in scope and how fast the answer comes', () => {
    const security = read('SECURITY.md');
    expect(security).toContain('Report a vulnerability');
    expect(security).toMatch(/^## What is in scope$/m);
    expect(security).toMatch(/^\| We acknowledge your report \| \d+ working days \|$/m);
  });

  it('keeps a changelog whose versions are the package\'s: Unreleased first, then the version package.json names', () => {
    const versions = [...read('CHANGELOG.md').matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]);
    const pkg = JSON.parse(read('package.json')) as { version: string };
    expect(versions[0]).toBe('Unreleased');
    expect(versions[1]).toBe(pkg.version);
    expect(read('CHANGELOG.md')).toMatch(new RegExp(`^## \\[${pkg.version.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
  });

  it('links the license, the security policy, the changelog and the upgrade guide from the README', () => {
    const readme = read('README.md');
    for (const link of ['(LICENSE)', '(SECURITY.md)', '(CHANGELOG.md)', '(docs/upgrading.md)']) expect(readme, link).toContain(link);
  });

  it('leaves no dependency\'s install script unreviewed, so npm install warns of none', async () => {
    // What `npm install` lists at its end as skipped: every package with an install script that
    // package.json's allowScripts neither allows nor denies (core-js's only prints an advert: denied).
    const { stdout } = await promisify(execFile)('npm', ['install-scripts', 'ls', '--json'], { cwd: ROOT, env: { ...process.env, npm_config_update_notifier: 'false' } });
    expect((JSON.parse(stdout) as { allowScripts: unknown[] }).allowScripts).toEqual([]);
  });
});
