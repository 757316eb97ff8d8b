import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ANSWER_CHECKS, CALLBACK_CHECKS } from '../../src/conformance/platforms/hiring-platform/callback-checks.js';
import { conformanceCli, parseConformanceArgs, summaryLine } from '../../src/conformance/cli.js';
import type { HiringPlatformArgs } from '../../src/conformance/platforms/hiring-platform/cli.js';
import { PLATFORM_CHECKS } from '../../src/conformance/platforms/hiring-platform/mock.js';
import { RESULTS_CHECKS } from '../../src/conformance/results-checks.js';
import { CHECKERS } from '../../src/conformance/platforms/index.js';

/** Names as the command line lists them: `a or b`, `a, b or c`. */
const either = (names: readonly string[]) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
import type { CheckResult } from '../../src/conformance/types.js';
import { startBrokenPartner } from '../support/broken-partner.js';
import { eventually } from '../support/eventually.js';
import { startKitPartner, type KitPartner } from '../support/kit-partner.js';
import { connectionHandOver, kitProcess } from '../support/net.js';

/**
 * `npm run conformance`: its arguments, its output and exit codes — through `conformanceCli`, what
 * the script runs, and as its own process where the process is the point (no stack trace, Enter on
 * standard input).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'kit-conformance-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The CLI as its own process: as `npm run conformance` runs it (Node itself with tsx's loader), or
 * compiled once for the run (test/support/compiled-kit.ts), which starts faster.
 */
function spawnCli(args: string[], env: Record<string, string> = {}, via: 'tsx' | 'compiled' = 'tsx') {
  const node = via === 'tsx' ? ['--import', 'tsx', 'scripts/conformance.ts', ...args] : kitProcess('scripts/conformance.ts', args);
  const child = spawn(process.execPath, node, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // A CLI that never ends fails its test at the test's time limit, and is killed then.
  onTestFinished(() => void child.kill('SIGKILL'));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child: child as ChildProcessWithoutNullStreams, done, stdout: () => stdout };
}
const runCli = (args: string[], env?: Record<string, string>) => spawnCli(args, env).done;

/** The CLI in this process, its output captured. */
async function cliInProcess(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await conformanceCli(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env,
    defaultPublicUrl: 'http://127.0.0.1:3000',
  });
  return { code, stdout, stderr };
}

const lines = (text: string) => text.trimEnd().split('\n');
const NO_STACK = /^\s+at /m;

describe('wrong arguments: what is wrong and the usage on stderr, exit 2', () => {
  it.each([
    ['no callbacks', []],
    ['one token', ['http://127.0.0.1:1/callbacks', '--token', 'a']],
    ['the same token twice', ['http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'a']],
    ['neither a URL nor a file', ['callbacks', '--token', 'a', '--token', 'b']],
    ['an unknown option', ['http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'b', '--bogus']],
    ['an unknown kind', ['http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'b', '--kind', 'quiz']],
    ['--codename without --mock', ['http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'b', '--codename', 'x-y']],
    ['a platform the checker does not know', ['--platform', 'workday', 'http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'b']],
    ["Greenhouse's --key for the recruiting platform", ['http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'b', '--key', 'k']],
    ["the recruiting platform's --mock for Greenhouse", ['--platform', 'greenhouse', 'http://127.0.0.1:1/greenhouse', '--key', 'k', '--mock']],
    ['a callback URL missing', ['--validate-token-url', 'http://p/v', '--tests-url', 'http://p/t', '--token', 'a', '--token', 'b']],
  ])('%s', async (_what, args) => {
    const result = await cliInProcess(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: npm run conformance');
    expect(result.stdout).toBe('');
  });

  it.each([
    ['followed by another option', ['http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'b', '--platform', '--yes']],
    ['last', ['http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'b', '--platform']],
    ['with an empty value', ['http://127.0.0.1:1/callbacks', '--token', 'a', '--token', 'b', '--platform=']],
  ])('--platform without a name, %s: it names a platform now, and the mock platform is --mock', async (_what, args) => {
    const result = await cliInProcess(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^--platform needs the name of the platform whose contract is checked: ${either(CHECKERS.map((p) => p.name))}\\. To start the bundled mock platform, give --mock\\.\\n\\nUsage: npm run conformance`,
      ),
    );
    expect(result.stdout).toBe('');
  });

  it('a manifest that does not validate names its problems', async () => {
    const file = path.join(dir, 'bad-manifest.json');
    writeFileSync(file, JSON.stringify({ kind: 'assessment', urls: { validate_token: '${PUBLIC_URL}/v' } }));
    const result = await cliInProcess([file, '--token', 'a', '--token', 'b']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/The manifest cannot be used:\n {2}.*name/);
  });

  it('as its own process: no stack trace, nothing on stdout', async () => {
    const result = await runCli(['http://127.0.0.1:1/callbacks', '--token', 'only-one']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Give two customer tokens');
    expect(result.stderr).toContain('Usage: npm run conformance');
    expect(result.stderr).not.toMatch(NO_STACK);
    expect(result.stdout).toBe('');
  });
});

describe('where the callbacks and tokens come from', () => {
  const defaults = { publicUrl: 'http://127.0.0.1:3000' };
  /** The arguments of a run against the recruiting platform, the default. */
  const parse = (argv: string[], env: Record<string, string> = {}) => {
    const command = parseConformanceArgs(argv, env, defaults);
    if (command.platform !== 'hiring-platform') throw new Error(`parsed as ${command.platform}`);
    return command.args as HiringPlatformArgs;
  };

  it('a base URL names the three callbacks under it', () => {
    const args = parse(['https://partner.example.com/callbacks/', '--token', 'a', '--token', 'b']);
    expect(args.targets).toEqual({
      validateToken: 'https://partner.example.com/callbacks/validate_token',
      tests: 'https://partner.example.com/callbacks/tests',
      sendCandidate: 'https://partner.example.com/callbacks/send_candidate',
    });
    expect(args.tokens).toEqual({ a: 'a', b: 'b' });
  });

  it("the project's manifest, with --public-url for ${PUBLIC_URL}, and its kind", () => {
    const args = parse(['scripts/partner-manifest.background-check.json', '--public-url', 'https://partner.example.com', '--mock'], {
      CONFORMANCE_TOKENS: 'tok-a, tok-b',
    });
    expect(args.targets.sendCandidate).toBe('https://partner.example.com/callbacks/send_candidate');
    expect(args.kind).toBe('background_check');
    expect(args.tokens).toEqual({ a: 'tok-a', b: 'tok-b' });
    expect(args.mock).toMatchObject({ port: 0, codename: 'conformance', record: { helpArticle: 'https://partner.example.com/' } });
  });

  it('explicit URLs win over the base URL', () => {
    const args = parse(['http://p.test/callbacks', '--tests-url', 'http://other.test/catalog', '--token', 'a', '--token', 'b', '--empty-token', 'e']);
    expect(args.targets.tests).toBe('http://other.test/catalog');
    expect(args.targets.validateToken).toBe('http://p.test/callbacks/validate_token');
    expect(args.tokens.empty).toBe('e');
  });
});

describe('against running partners', () => {
  let kit: KitPartner;
  let broken: Awaited<ReturnType<typeof startBrokenPartner>>;
  beforeAll(async () => {
    [kit, broken] = await Promise.all([startKitPartner(), startBrokenPartner()]);
  });
  afterAll(async () => {
    await Promise.all([kit?.close(), broken?.close()]);
  });

  it("the kit's partner: a line per check with its section, then '37 passed, 0 failed' alone on the last line; exit 0", async () => {
    const tokens = [(await kit.customer('Acme', ['JavaScript'])).token, (await kit.customer('Globex', ['JavaScript'])).token];
    const empty = (await kit.customer('Initech')).token;
    const result = await cliInProcess([`${kit.url}/callbacks`, '--empty-token', empty], { CONFORMANCE_TOKENS: tokens.join(',') });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = lines(result.stdout);
    const checks = CALLBACK_CHECKS.length + ANSWER_CHECKS.length;
    expect(out.filter((l) => l.startsWith('✔ §'))).toHaveLength(checks);
    expect(out).toContain('✔ §4.1 validate_token POST {company_id} binds the account (200)');
    expect(out).toContain(`○ not run (give --mock): ${PLATFORM_CHECKS.length} checks platform.*`);
    expect(out.at(-1)).toBe(`${checks} passed, 0 failed`);
  });

  it('the broken partner: the failing checks named, exit 1; --json gives the same results as data', async () => {
    const args = [broken.url, '--token', broken.tokens.a, '--token', broken.tokens.b];
    const [text, json] = await Promise.all([cliInProcess(args), cliInProcess([...args, '--json'])]);
    expect(text.code).toBe(1);
    expect(lines(text.stdout)).toContain('✘ §4 validate_token answers malformed JSON with a 4xx, not a 5xx (expected 4xx, got 500 {"error":"Internal Server Error"}) [robust.validate_token.malformed_json]');

    expect(json.code).toBe(1);
    const results = JSON.parse(json.stdout) as CheckResult[];
    expect(Object.keys(results[0]!).sort()).toEqual(['detail', 'id', 'ms', 'name', 'ok', 'section']);
    expect(results.filter((r) => !r.ok).map((r) => r.id)).toEqual([
      'tests.list',
      'send_candidate.replay',
      'send_candidate.conflict',
      'send_candidate.concurrent',
      'robust.validate_token.malformed_json',
      'robust.send_candidate.malformed_json',
    ]);
    expect(lines(text.stdout).at(-1)).toBe(summaryLine(results));
    expect(summaryLine(results)).toBe(`${results.length - 6} passed, 6 failed`);
  });
});

describe('--mock --wait: the partner is started with the printed settings, then Enter', () => {
  let second: KitPartner | undefined;
  let front: Awaited<ReturnType<typeof connectionHandOver>>;
  afterEach(async () => {
    await second?.close();
    await front?.close();
  });

  it('checks the report updates the partner sends to the mock it started', async () => {
    // The CLI needs the callback URLs and tokens before the partner can know the mock's address:
    // tokens from a first run of the partner on a database file, a fixed address in front of it.
    const database = { DATABASE_PATH: path.join(dir, 'platform-partner.db') };
    const first = await startKitPartner({}, { database });
    const tokens = [(await first.customer('Acme', ['JavaScript'])).token, (await first.customer('Globex', ['JavaScript'])).token];
    await first.close();
    front = await connectionHandOver();

    const cli = spawnCli([`${front.url}/callbacks`, '--token', tokens[0]!, '--token', tokens[1]!, '--mock', '--wait'], {}, 'compiled');
    const settings = await eventually(
      () => {
        const m = /^PLATFORM_URL=(\S+) PARTNER_CODENAME=(\S+) PARTNER_SECRET=(\S+)$/m.exec(cli.stdout());
        if (!m) throw new Error(`no settings yet:\n${cli.stdout()}`);
        return { PLATFORM_URL: m[1]!, PARTNER_CODENAME: m[2]!, PARTNER_SECRET: m[3]! };
      },
      { what: 'the platform settings' },
    );
    expect(settings.PARTNER_CODENAME).toBe('conformance');
    second = await startKitPartner(settings, { database });
    front.to(second.server);
    cli.child.stdin.write('\n');

    const result = await cli.done;
    expect(result.stderr).toBe('');
    expect(result.code, result.stdout).toBe(0);
    const checks = CALLBACK_CHECKS.length - 1 + PLATFORM_CHECKS.length + ANSWER_CHECKS.length;
    expect(lines(result.stdout).at(-1)).toBe(`${checks} passed, 0 failed`);
    expect(result.stdout).toContain('✔ §3.2 every report update carries the partner secret in RT-PARTNER-SECRET');
  });

  it('with --results-secret and --empty-token too: every check runs and passes, none is "not run"', async () => {
    const secret = 'kit-conformance-cli-results-secret-0123456789';
    const database = { DATABASE_PATH: path.join(dir, 'every-check-partner.db') };
    const first = await startKitPartner({}, { database });
    const tokens = [(await first.customer('Acme', ['JavaScript'])).token, (await first.customer('Globex', ['SQL'])).token];
    const empty = (await first.customer('Initech')).token;
    await first.close();
    front = await connectionHandOver();

    let stdout = '';
    let stderr = '';
    const code = await conformanceCli(
      [`${front.url}/callbacks`, '--token', tokens[0]!, '--token', tokens[1]!, '--empty-token', empty, '--results-secret', secret, '--mock', '--wait'],
      {
        stdout: (t) => (stdout += t),
        stderr: (t) => (stderr += t),
        env: {},
        defaultPublicUrl: 'http://127.0.0.1:3000',
        // Enter, once the partner runs with the settings the CLI printed, as a person would.
        waitForEnter: async () => {
          const m = /^PLATFORM_URL=(\S+) PARTNER_CODENAME=(\S+) PARTNER_SECRET=(\S+)$/m.exec(stdout)!;
          second = await startKitPartner({ PLATFORM_URL: m[1]!, PARTNER_CODENAME: m[2]!, PARTNER_SECRET: m[3]!, VENDOR_RESULTS_SECRET: secret }, { database });
          front.to(second.server);
        },
      },
    );

    expect(stderr).toBe('');
    expect(code, stdout).toBe(0);
    const out = lines(stdout);
    const checks = CALLBACK_CHECKS.length + RESULTS_CHECKS.length + PLATFORM_CHECKS.length + ANSWER_CHECKS.length;
    expect(out.filter((l) => l.startsWith('✔ '))).toHaveLength(checks);
    expect(out.filter((l) => l.startsWith('○ ') || l.startsWith('✘ '))).toEqual([]);
    expect(out.at(-1)).toBe(`${checks} passed, 0 failed`);
    expect(out).toContainEqual(expect.stringMatching(/^✔ results a valid result answers 200 \{id, status\} \(200 /));
    expect(out).toContainEqual(expect.stringMatching(/^✔ results a result signed for one report, replayed to another, .*; the other report still takes a progress stage \(200\)\)$/));
    expect(stdout).not.toContain(secret);
    // Said first: with the mock, the checker's own reports are the platform's too, so none ends as a dead letter.
    const preamble = stdout.slice(0, stdout.indexOf('Mock platform running at'));
    expect(preamble).toContain('The checker records the reports of its own sends on the mock before it sends them');
    expect(preamble).not.toContain('dead letters on the partner');
  });
});
