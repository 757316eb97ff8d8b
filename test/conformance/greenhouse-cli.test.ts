import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceCli, parseConformanceArgs } from '../../src/conformance/cli.js';
import { GREENHOUSE_CHECKS } from '../../src/conformance/greenhouse/checks.js';
import { FAKE_RESULTS_SECRET, startGreenhousePartner } from '../support/greenhouse-partner.js';

/**
 * `npm run conformance -- --platform greenhouse …`: its arguments, what it prints and its exit
 * codes, through `conformanceCli`, what the script runs.
 */

async function cli(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await conformanceCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env, defaultPublicUrl: 'http://127.0.0.1:3000' });
  return { code, stdout, stderr };
}
const lines = (text: string) => text.trimEnd().split('\n');

describe('its arguments', () => {
  const parse = (argv: string[], env: Record<string, string> = {}) => {
    const args = parseConformanceArgs(['--platform', 'greenhouse', ...argv], env, { publicUrl: 'http://127.0.0.1:3000' });
    if (args.platform !== 'greenhouse') throw new Error(`parsed as ${args.platform}`);
    return args;
  };

  it('the base URL of the four endpoints, the keys, and the results endpoint beside them', () => {
    const args = parse(['https://partner.example.com/greenhouse/', '--key', 'k1', '--other-key', 'k2', '--results-secret', 's3cret', '--patch-timeout', '90']);
    expect(args).toMatchObject({
      baseUrl: 'https://partner.example.com/greenhouse/',
      key: 'k1',
      otherKey: 'k2',
      patchTimeoutMs: 90_000,
      results: { secret: 's3cret', url: 'https://partner.example.com/vendor/reports/{report_id}/result' },
    });
  });

  it('the keys from CONFORMANCE_KEYS, and a PATCH awaited 60 s by default', () => {
    expect(parse(['http://127.0.0.1:3000/greenhouse'], { CONFORMANCE_KEYS: 'k1, k2' })).toMatchObject({ key: 'k1', otherKey: 'k2', patchTimeoutMs: 60_000 });
  });

  it.each([
    ['no key', ['http://127.0.0.1:1/greenhouse'], /^Give a customer key/],
    ['the same key twice', ['http://127.0.0.1:1/greenhouse', '--key', 'k', '--other-key', 'k'], /^--other-key must be the key of another customer/],
    ['a manifest', ['scripts/partner-manifest.json', '--key', 'k'], /^--platform greenhouse takes the base URL of the partner's four endpoints/],
    ['no base URL', ['--key', 'k'], /^Give the base URL of the partner's Greenhouse endpoints/],
    ['a PATCH timeout of 0', ['http://127.0.0.1:1/greenhouse', '--key', 'k', '--patch-timeout', '0'], /^--patch-timeout must be a number of seconds above 0/],
    ["the recruiting platform's tokens", ['http://127.0.0.1:1/greenhouse', '--key', 'k', '--token', 'a'], /^--token goes with --platform hiring-platform/],
  ])('%s: what is wrong and the usage on stderr, exit 2', async (_what, args, message) => {
    const result = await cli(['--platform', 'greenhouse', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: npm run conformance');
    expect(result.stdout).toBe('');
  });
});

describe('against partners', () => {
  let good: Awaited<ReturnType<typeof startGreenhousePartner>>;
  let open: Awaited<ReturnType<typeof startGreenhousePartner>>;
  beforeAll(async () => {
    [good, open] = await Promise.all([startGreenhousePartner(), startGreenhousePartner({ noAuth: true })]);
  });
  afterAll(async () => {
    await Promise.all([good?.close(), open?.close()]);
  });

  it("says what the run leaves, then a line per check, then 'N passed, 0 failed'; exit 0; the keys and secret never printed", async () => {
    const result = await cli(['--platform', 'greenhouse', good.baseUrl, '--key', good.keys.a, '--other-key', good.keys.b, '--results-secret', FAKE_RESULTS_SECRET]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = lines(result.stdout);
    expect(out[0]).toMatch(/^Before it runs: this run acts as Greenhouse, so it creates real test instances in the partner at http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toContain('Going on (standard input is not a terminal).');
    expect(out.filter((l) => l.startsWith('✔ §'))).toHaveLength(GREENHOUSE_CHECKS.length);
    expect(out).toContain('✔ §3 the PATCH has no body and carries Authorization: Basic base64(key + ":") (no body; Basic with the key and an empty password)');
    expect(out.at(-1)).toBe(`${GREENHOUSE_CHECKS.length} passed, 0 failed`);
    for (const secret of [good.keys.a, good.keys.b, FAKE_RESULTS_SECRET]) expect(result.stdout).not.toContain(secret);
  });

  it('a partner that answers without authentication: the failing lines end with their ids; exit 1', async () => {
    const result = await cli(['--platform', 'greenhouse', open.baseUrl, '--key', open.keys.a, '--results-secret', FAKE_RESULTS_SECRET, '--json']);
    expect(result.code).toBe(1);
    const failed = (JSON.parse(result.stdout) as { id: string; ok: boolean }[]).filter((r) => !r.ok).map((r) => r.id);
    expect(failed).toEqual(['auth.missing', 'auth.unknown_key', 'auth.bearer', 'auth.password']);

    const text = await cli(['--platform', 'greenhouse', open.baseUrl, '--key', open.keys.a, '--results-secret', FAKE_RESULTS_SECRET]);
    expect(lines(text.stdout)).toContainEqual(expect.stringMatching(/^✘ §2 every endpoint with the key as a Bearer token, not Basic, answers 401 \(list_tests: expected 401, got 200 .*\) \[auth\.bearer\]$/));
    expect(lines(text.stdout)).toContain('○ not run (give --other-key): isolation.test_status, isolation.list_tests');
    expect(lines(text.stdout).at(-1)).toBe(`${GREENHOUSE_CHECKS.length - 6} passed, 4 failed`);
  });
});
