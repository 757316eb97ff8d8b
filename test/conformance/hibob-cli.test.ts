import { describe, expect, it } from 'vitest';
import { parseConformanceArgs } from '../../src/conformance/cli.js';
import { HIBOB_CHECKS } from '../../src/conformance/platforms/hibob/checks.js';
import type { HibobArgs } from '../../src/conformance/platforms/hibob/cli.js';
import { FAKE_RESULTS_SECRET, startHibobPartner } from '../support/hibob-partner.js';
import { runConformanceCli } from '../support/conformance-cli.js';

/**
 * `npm run conformance -- --platform hibob …`: its arguments, what the partner is told to be set up
 * with (Bob's URLs on the checker, the app's client id and secrets — a made-up one shown, a given
 * one never — and the companies the run installs), what it prints and its exit codes, through
 * `conformanceCli`, what the script runs.
 */

const cli = runConformanceCli;

describe('its arguments', () => {
  const parse = (argv: string[], env: Record<string, string> = {}) => {
    const command = parseConformanceArgs(['--platform', 'hibob', ...argv], env, { publicUrl: 'http://127.0.0.1:3000' });
    if (command.platform !== 'hibob') throw new Error(`parsed as ${command.platform}`);
    return command.args as HibobArgs;
  };

  it('the HiBob base, the companies, the app\'s credentials and webhook secret, and the results endpoint beside the base', () => {
    const args = parse([
      'https://partner.example.com/hibob/',
      '--company',
      '620400',
      '--other-company',
      'globex-1',
      '--client-id',
      'app-id',
      '--client-secret',
      ' app-secret ',
      '--webhook-secret',
      'hook-secret',
      '--results-secret',
      's3cret',
      '--call-timeout',
      '90',
    ]);
    expect(args).toEqual({
      baseUrl: 'https://partner.example.com/hibob/',
      companies: { a: '620400', b: 'globex-1' },
      app: { clientId: 'app-id', clientSecret: 'app-secret', webhookSecret: 'hook-secret' },
      callTimeoutMs: 90_000,
      receiver: { host: '127.0.0.1', port: 0 },
      results: { secret: 's3cret', url: 'https://partner.example.com/vendor/reports/{report_id}/result' },
    });
  });

  it('the secrets from CONFORMANCE_HIBOB_CLIENT_SECRET and CONFORMANCE_HIBOB_WEBHOOK_SECRET; by default the companies and the rest made up, calls awaited 60 s', () => {
    expect(parse(['http://127.0.0.1:3000/hibob'], { CONFORMANCE_HIBOB_CLIENT_SECRET: 'cs', CONFORMANCE_HIBOB_WEBHOOK_SECRET: 'ws' })).toEqual({
      baseUrl: 'http://127.0.0.1:3000/hibob',
      companies: {},
      app: { clientSecret: 'cs', webhookSecret: 'ws' },
      callTimeoutMs: 60_000,
      receiver: { host: '127.0.0.1', port: 0 },
    });
  });

  it.each([
    ['no base URL', [], /^Give the partner's HiBob base URL/],
    ['a manifest', ['scripts/partner-manifest.json'], /^--platform hibob takes the partner's HiBob base URL/],
    ['a company id with a slash', ['http://127.0.0.1:1/hibob', '--company', 'a/b'], /^--company must be a Bob company id: letters, digits and \. _ : -, at most 100, not "a\/b"/],
    ['the same company twice', ['http://127.0.0.1:1/hibob', '--company', '1', '--other-company', '1'], /^--other-company must be another Bob company than --company/],
    ['an empty webhook secret', ['http://127.0.0.1:1/hibob', '--webhook-secret', ' '], /^--webhook-secret is empty/],
    ['a call timeout of 0', ['http://127.0.0.1:1/hibob', '--call-timeout', '0'], /^--call-timeout must be a number of seconds above 0/],
    ["Ashby's --key", ['http://127.0.0.1:1/hibob', '--key', 'k'], /^--key goes with --platform greenhouse or ashby/],
    ['a receiver host that is every address', ['http://127.0.0.1:1/hibob', '--receiver-host', '0.0.0.0'], /^--receiver-host must be one address, not 0\.0\.0\.0: each of HIBOB_API_URL and HIBOB_TOKEN_URL names it/],
  ])('%s: what is wrong and the usage on stderr, exit 2', async (_what, args, message) => {
    const result = await cli(['--platform', 'hibob', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: npm run conformance');
    expect(result.stdout).toBe('');
  });

  it('--company goes with --platform hibob', async () => {
    const result = await cli(['--platform', 'ashby', 'http://127.0.0.1:1/ashby', '--key', 'k', '--company', '1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^--company goes with --platform hibob/);
  });
});

// The two runs at once, each against a fake of its own: most of a run is waiting (for token.after_expiry's
// tokens to expire, for calls that never come), which the other fills.
describe.concurrent('a run', () => {

  /** The `NAME=value …` line the run prints, read back. */
  const settingsIn = (printed: string) => Object.fromEntries(/^HIBOB_API_URL=.*$/m.exec(printed)![0].split(' ').map((pair) => pair.split('=') as [string, string]));

  it("prints Bob's URLs, the made-up client id and secrets and the companies, waits for Enter while the partner is set up, then a line per check; exit 0", async ({ expect, onTestFinished }) => {
    const partner = await startHibobPartner();
    onTestFinished(() => partner.close());
    const { code, stdout, stderr } = await cli(['--platform', 'hibob', partner.baseUrl, '--company', '620400', '--results-secret', FAKE_RESULTS_SECRET, '--wait'], {
      // The person running it starts the partner with what it printed, then presses Enter.
      waitForEnter: async (printed) => {
        const s = settingsIn(printed());
        partner.setUp({ apiUrl: s.HIBOB_API_URL!, tokenUrl: s.HIBOB_TOKEN_URL!, clientId: s.HIBOB_CLIENT_ID!, clientSecret: s.HIBOB_CLIENT_SECRET!, webhookSecret: s.HIBOB_WEBHOOK_SECRET! });
      },
    });
    expect(stderr).toBe('');
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(
      new RegExp(
        "\\nThe checker plays Bob for the run: its token URL and API are at (http://127\\.0\\.0\\.1:\\d+), and it installs the Bob companies A = 620400 and B = \\d{8}\\.\\n" +
          "Company A's orders are of its catalog: .* so link company A to an account with tests first \\(docs/hibob\\.md §2\\)\\.\\n" +
          'The partner runs with:\\n' +
          'HIBOB_API_URL=\\1/v1 HIBOB_TOKEN_URL=\\1/oauth2/token HIBOB_CLIENT_ID=conformance-hibob-client-[0-9a-f]{36} HIBOB_CLIENT_SECRET=conformance-hibob-secret-[0-9a-f]{36} HIBOB_WEBHOOK_SECRET=conformance-hibob-webhook-[0-9a-f]{36}\\n' +
          'Start \\(or restart\\) the partner with these settings, then press Enter\\.\\n',
      ),
    );
    expect(stdout).toContain("✔ §5 a signed assessment.triggered of company A answers 2xx within 10 s, and the order's details are read with company A's token (200 in ");
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(`${HIBOB_CHECKS.length} passed, 0 failed`);
    expect(stdout).not.toContain(FAKE_RESULTS_SECRET);
  });

  it('secrets given are used and never printed; a partner not set up with them refuses every signed delivery and install; exit 1', async ({ expect, onTestFinished }) => {
    const partner = await startHibobPartner();
    onTestFinished(() => partner.close());
    const given = { clientSecret: 'acme-client-secret-given-0123', webhookSecret: 'acme-webhook-secret-given-4567' };
    const { code, stdout } = await cli(['--platform', 'hibob', partner.baseUrl, '--client-id', 'acme-app', '--results-secret', FAKE_RESULTS_SECRET, '--call-timeout', '1', '--wait'], {
      env: { CONFORMANCE_HIBOB_CLIENT_SECRET: given.clientSecret, CONFORMANCE_HIBOB_WEBHOOK_SECRET: given.webhookSecret },
      // Set up with another webhook secret than the one given.
      waitForEnter: async (printed) => {
        const s = settingsIn(printed());
        partner.setUp({ apiUrl: s.HIBOB_API_URL!, tokenUrl: s.HIBOB_TOKEN_URL!, clientId: s.HIBOB_CLIENT_ID!, clientSecret: given.clientSecret, webhookSecret: 'another-webhook-secret' });
      },
    });
    expect(code).toBe(1);
    expect(stdout).toContain('The partner runs with HIBOB_CLIENT_SECRET and HIBOB_WEBHOOK_SECRET as given (not printed), and:\nHIBOB_API_URL=');
    expect(stdout).toMatch(/\nHIBOB_API_URL=\S+ HIBOB_TOKEN_URL=\S+ HIBOB_CLIENT_ID=acme-app\n/);
    for (const secret of Object.values(given)) expect(stdout).not.toContain(secret);
    expect(stdout).toMatch(/✘ §5 a signed assessment\.triggered of company A .* \(the signed delivery was answered 401 \{"error":"Invalid signature"\}, not 2xx: Bob delivers it again for hours\) \[order\.details\]/);
  });
});
