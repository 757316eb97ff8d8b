import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConformanceArgs } from '../../src/conformance/cli.js';
import type { GreenhouseArgs } from '../../src/conformance/platforms/greenhouse/cli.js';
import { GREENHOUSE_CHECKS } from '../../src/conformance/platforms/greenhouse/checks.js';
import { FAKE_RESULTS_SECRET, startGreenhousePartner } from '../support/greenhouse-partner.js';
import { runConformanceCli } from '../support/conformance-cli.js';

/**
 * `npm run conformance -- --platform greenhouse …`: its arguments, what it prints and its exit
 * codes, through `conformanceCli`, what the script runs.
 */

const cli = (args: string[], env: Record<string, string> = {}) => runConformanceCli(args, { env });
const lines = (text: string) => text.trimEnd().split('\n');

describe('its arguments', () => {
  const parse = (argv: string[], env: Record<string, string> = {}) => {
    const command = parseConformanceArgs(['--platform', 'greenhouse', ...argv], env, { publicUrl: 'http://127.0.0.1:3000' });
    if (command.platform !== 'greenhouse') throw new Error(`parsed as ${command.platform}`);
    return command.args as GreenhouseArgs;
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

  it('the keys from CONFORMANCE_KEYS, a PATCH awaited 60 s, on 127.0.0.1 and a free port, by default', () => {
    expect(parse(['http://127.0.0.1:3000/greenhouse'], { CONFORMANCE_KEYS: 'k1, k2' })).toMatchObject({
      key: 'k1',
      otherKey: 'k2',
      patchTimeoutMs: 60_000,
      receiver: { host: '127.0.0.1', port: 0 },
    });
  });

  it('where the PATCH receiver listens: --receiver-port, and --receiver-host an IP address, with or without brackets', () => {
    expect(parse(['http://127.0.0.1:3000/greenhouse', '--key', 'k', '--receiver-port', '4123']).receiver).toEqual({ host: '127.0.0.1', port: 4123 });
    expect(parse(['http://127.0.0.1:3000/greenhouse', '--key', 'k', '--receiver-host', '[::1]', '--receiver-port', '8443']).receiver).toEqual({ host: '::1', port: 8443 });
    expect(parse(['http://127.0.0.1:3000/greenhouse', '--key', 'k', '--receiver-host', '172.17.0.1']).receiver).toEqual({ host: '172.17.0.1', port: 0 });
  });

  it.each([
    ['no key', ['http://127.0.0.1:1/greenhouse'], /^Give a customer key/],
    ['the same key twice', ['http://127.0.0.1:1/greenhouse', '--key', 'k', '--other-key', 'k'], /^--other-key must be the key of another customer/],
    ['a manifest', ['scripts/partner-manifest.json', '--key', 'k'], /^--platform greenhouse takes the base URL of the partner's four endpoints/],
    ['no base URL', ['--key', 'k'], /^Give the base URL of the partner's Greenhouse endpoints/],
    ['a PATCH timeout of 0', ['http://127.0.0.1:1/greenhouse', '--key', 'k', '--patch-timeout', '0'], /^--patch-timeout must be a number of seconds above 0/],
    ["the recruiting platform's tokens", ['http://127.0.0.1:1/greenhouse', '--key', 'k', '--token', 'a'], /^--token goes with --platform hiring-platform/],
    ['a receiver port that is not one', ['http://127.0.0.1:1/greenhouse', '--key', 'k', '--receiver-port', '70000'], /^--receiver-port must be a port number \(1 to 65535\), not 70000/],
    ['a receiver port that is a word', ['http://127.0.0.1:1/greenhouse', '--key', 'k', '--receiver-port', 'http'], /^--receiver-port must be a port number/],
    ['a receiver host that is a name', ['http://127.0.0.1:1/greenhouse', '--key', 'k', '--receiver-host', 'checker.example'], /^--receiver-host must be an IP address of this machine/],
    ['a receiver host that is every address', ['http://127.0.0.1:1/greenhouse', '--key', 'k', '--receiver-host', '0.0.0.0'], /^--receiver-host must be one address, not 0\.0\.0\.0: the url of each send names it/],
  ])('%s: what is wrong and the usage on stderr, exit 2', async (_what, args, message) => {
    const result = await cli(['--platform', 'greenhouse', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: npm run conformance');
    expect(result.stdout).toBe('');
  });
});

it("the receiver's options go with --platform greenhouse", async () => {
  const result = await cli(['http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'b', '--receiver-port', '4123']);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/^--receiver-port goes with --platform greenhouse/);
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
    expect(lines(text.stdout)).toContain('○ not run (give --other-key): isolation.test_status, isolation.list_tests, isolation.send_test');
    expect(lines(text.stdout).at(-1)).toBe(`${GREENHOUSE_CHECKS.length - 7} passed, 4 failed`);
  });
});

describe('--receiver-port: the PATCH comes to the port given', () => {
  let good: Awaited<ReturnType<typeof startGreenhousePartner>>;
  let taken: Server | undefined;
  beforeAll(async () => {
    good = await startGreenhousePartner();
  });
  afterAll(async () => {
    await good?.close();
    if (taken) await new Promise((resolve) => taken!.close(resolve));
  });

  /** A port the system has just given out and taken back: free, for this machine's next listener. */
  async function freePort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  it('every url the run sends is on that port, the PATCH arrives there and every check passes', async () => {
    const port = await freePort();
    const result = await cli([
      '--platform', 'greenhouse', good.baseUrl, '--key', good.keys.a, '--other-key', good.keys.b,
      '--results-secret', FAKE_RESULTS_SECRET, '--receiver-port', String(port),
    ]);
    expect(result.stderr).toBe('');
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain(`their urls on a receiver the checker runs on 127.0.0.1:${port} for the run`);
    expect(result.stdout).toMatch(/^✔ §3 once the test is complete, the partner sends a PATCH to the send's url \(PATCH \/integrations\/testing_partners\/take_home_tests\/\d+, /m);
    const urls = [...good.interviews.values()].map((i) => new URL(i.url));
    expect(urls.length).toBeGreaterThan(0);
    expect(new Set(urls.map((u) => u.host))).toEqual(new Set([`127.0.0.1:${port}`]));
  });

  it('a port already taken: the run says so and how to go on, sends nothing, exit 1', async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken!.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const before = good.interviews.size;
    const result = await cli(['--platform', 'greenhouse', good.baseUrl, '--key', good.keys.a, '--results-secret', FAKE_RESULTS_SECRET, '--receiver-port', String(port)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`The checker could not listen for the PATCH (EADDRINUSE on 127.0.0.1:${port}): the port is taken: give another --receiver-port, or none for a free one\n`);
    expect(result.stdout).not.toMatch(/^[✔✘]/m);
    expect(good.interviews.size).toBe(before);
  });
});
