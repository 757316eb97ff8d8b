import { afterEach, describe, expect, it } from 'vitest';
import { parseConformanceArgs } from '../../src/conformance/cli.js';
import { ASHBY_CHECKS } from '../../src/conformance/platforms/ashby/checks.js';
import type { AshbyArgs } from '../../src/conformance/platforms/ashby/cli.js';
import { FAKE_RESULTS_SECRET, startAshbyPartner } from '../support/ashby-partner.js';
import { runConformanceCli } from '../support/conformance-cli.js';

/**
 * `npm run conformance -- --platform ashby …`: its arguments, what the partner is told to be set up
 * with (its ASHBY_API_URL, each customer's Ashby API key, a made-up one shown and a given one never),
 * what it prints and its exit codes, through `conformanceCli`, what the script runs.
 */

const cli = runConformanceCli;

describe('its arguments', () => {
  const parse = (argv: string[], env: Record<string, string> = {}) => {
    const command = parseConformanceArgs(['--platform', 'ashby', ...argv], env, { publicUrl: 'http://127.0.0.1:3000' });
    if (command.platform !== 'ashby') throw new Error(`parsed as ${command.platform}`);
    return command.args as AshbyArgs;
  };

  it('the base URL of the three endpoints, the keys, the Ashby API keys, and the results endpoint beside them', () => {
    const args = parse([
      'https://partner.example.com/ashby/',
      '--key',
      'k1',
      '--other-key',
      'k2',
      '--ashby-api-key',
      'ak1',
      '--other-ashby-api-key',
      'ak2',
      '--results-secret',
      's3cret',
      '--update-timeout',
      '90',
    ]);
    expect(args).toMatchObject({
      baseUrl: 'https://partner.example.com/ashby/',
      key: 'k1',
      otherKey: 'k2',
      apiKeys: { key: 'ak1', otherKey: 'ak2' },
      updateTimeoutMs: 90_000,
      results: { secret: 's3cret', url: 'https://partner.example.com/vendor/reports/{report_id}/result' },
    });
  });

  it('the keys from CONFORMANCE_KEYS and CONFORMANCE_ASHBY_API_KEYS; updates awaited 60 s, on 127.0.0.1 and a free port, by default; no Ashby API key given', () => {
    expect(parse(['http://127.0.0.1:3000/ashby'], { CONFORMANCE_KEYS: 'k1, k2', CONFORMANCE_ASHBY_API_KEYS: 'ak1,ak2' })).toMatchObject({
      key: 'k1',
      otherKey: 'k2',
      apiKeys: { key: 'ak1', otherKey: 'ak2' },
      updateTimeoutMs: 60_000,
      receiver: { host: '127.0.0.1', port: 0 },
    });
    expect(parse(['http://127.0.0.1:3000/ashby', '--key', 'k']).apiKeys).toEqual({});
  });

  it.each([
    ['no key', ['http://127.0.0.1:1/ashby'], /^Give a customer key/],
    ['the same key twice', ['http://127.0.0.1:1/ashby', '--key', 'k', '--other-key', 'k'], /^--other-key must be the key of another customer/],
    ['no base URL', ['--key', 'k'], /^Give the base URL of the partner's Ashby endpoints/],
    ['a manifest', ['scripts/partner-manifest.json', '--key', 'k'], /^--platform ashby takes the base URL of the partner's three endpoints/],
    ['an Ashby API key with a colon', ['http://127.0.0.1:1/ashby', '--key', 'k', '--ashby-api-key', 'a:b'], /^--ashby-api-key must be an Ashby API key: no spaces, no colon/],
    ['the same Ashby API key twice', ['http://127.0.0.1:1/ashby', '--key', 'k', '--ashby-api-key', 'a', '--other-ashby-api-key', 'a'], /^--other-ashby-api-key must be another customer's/],
    ['an update timeout of 0', ['http://127.0.0.1:1/ashby', '--key', 'k', '--update-timeout', '0'], /^--update-timeout must be a number of seconds above 0/],
    ["Greenhouse's --patch-timeout", ['http://127.0.0.1:1/ashby', '--key', 'k', '--patch-timeout', '5'], /^--patch-timeout goes with --platform greenhouse/],
    ['a receiver host that is every address', ['http://127.0.0.1:1/ashby', '--key', 'k', '--receiver-host', '0.0.0.0'], /^--receiver-host must be one address, not 0\.0\.0\.0: ASHBY_API_URL names it/],
  ])('%s: what is wrong and the usage on stderr, exit 2', async (_what, args, message) => {
    const result = await cli(['--platform', 'ashby', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: npm run conformance');
    expect(result.stdout).toBe('');
  });

  it('--ashby-api-key goes with --platform ashby', async () => {
    const result = await cli(['--platform', 'greenhouse', 'http://127.0.0.1:1/greenhouse', '--key', 'k', '--ashby-api-key', 'a']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^--ashby-api-key goes with --platform ashby/);
  });
});

describe('a run', () => {
  type Fake = Awaited<ReturnType<typeof startAshbyPartner>>;
  let fake: Fake | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('prints the partner\'s ASHBY_API_URL and the made-up Ashby API keys, waits for Enter while they are set, then a line per check; exit 0', async () => {
    fake = await startAshbyPartner();
    const partner = fake;
    const { code, stdout, stderr } = await cli(
      ['--platform', 'ashby', partner.baseUrl, '--key', partner.keys.a, '--other-key', partner.keys.b, '--results-secret', FAKE_RESULTS_SECRET, '--wait'],
      {
        // The person running it sets the partner up as told, then presses Enter.
        waitForEnter: async (printed) => {
          const url = /^ASHBY_API_URL=(http:\/\/127\.0\.0\.1:\d+)$/m.exec(printed())![1]!;
          const a = /of the customer of --key to (conformance-ashby-[0-9a-f]{36}),/.exec(printed())![1]!;
          const b = /of the customer of --other-key to (conformance-ashby-[0-9a-f]{36}) \(a kit partner/.exec(printed())![1]!;
          partner.setUp(url, { a, b });
        },
      },
    );
    expect(stderr).toBe('');
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(
      /\nThe checker plays Ashby's API at (http:\/\/127\.0\.0\.1:\d+) for the run: the partner under test posts assessment\.update there, with each customer's Ashby API key\.\nSet the Ashby API key of the customer of --key to conformance-ashby-[0-9a-f]{36}, and of the customer of --other-key to conformance-ashby-[0-9a-f]{36} \(a kit partner: npm run accounts -- credential set <account-id> ashby <key>\); the partner runs with:\nASHBY_API_URL=\1\nStart \(or restart\) the partner with these settings, then press Enter\.\n/,
    );
    expect(stdout).toContain('✔ §6 once the result is in, the partner posts assessment.update with assessment_result to Ashby\'s API (POST /assessment.update, ');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(`${ASHBY_CHECKS.length} passed, 0 failed`);
    expect(stdout).not.toContain(FAKE_RESULTS_SECRET);
  });

  it('Ashby API keys given are used and never printed; without the partner set up, the update checks fail saying where it should post; exit 1', async () => {
    fake = await startAshbyPartner();
    const { code, stdout } = await cli(
      ['--platform', 'ashby', fake.baseUrl, '--key', fake.keys.a, '--results-secret', FAKE_RESULTS_SECRET, '--update-timeout', '1'],
      { env: { CONFORMANCE_ASHBY_API_KEYS: 'acme-ashby-key-given-0123' } },
    );
    expect(code).toBe(1);
    expect(stdout).toContain('Set the Ashby API key of the customer of --key to the one given with --ashby-api-key (a kit partner:');
    expect(stdout).not.toContain('acme-ashby-key-given-0123');
    expect(stdout).toMatch(/✘ §6 .*\(no assessment\.update of "[0-9a-f-]{36}" with assessment_result within 1 s \(nothing came to the checker's Ashby API: is the partner's ASHBY_API_URL http:\/\/127\.0\.0\.1:\d+\?\)\) \[update\.received\]/);
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, 2 failed$/);
  });
});
