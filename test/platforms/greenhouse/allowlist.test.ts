import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, settingsOf } from '../../../src/partner/config.js';
import { greenhousePlatform } from '../../../src/partner/platforms/index.js';
import { refusedPatchTarget, type PatchTargetRules } from '../../../src/partner/platforms/greenhouse/allowlist.js';

/**
 * Where send_test's `url` may point (docs/greenhouse.md §4): Greenhouse's hosts and the operator's
 * GREENHOUSE_PATCH_HOSTS over https, loopback only while the partner itself is.
 */
const LINK_SECRET = 'test-link-secret-0123456789abcdefghijklmnop';
const PUBLIC = { PUBLIC_URL: 'https://partner.example.com', CANDIDATE_LINK_SECRET: LINK_SECRET, ADMIN_TOKEN: 'test-admin-token-0123456789abcdef' };

const rulesOf = (env: Record<string, string>): PatchTargetRules => {
  const config = loadConfig(env);
  return { patchHosts: settingsOf(config, greenhousePlatform()).patchHosts, loopback: config.localOnly };
};
const publicServer = rulesOf({ ...PUBLIC, GREENHOUSE_PATCH_HOSTS: 'assessments.acme.example, *.ats.example.org' });
const localServer = rulesOf({});

describe("the PATCH's url, on a server other machines reach", () => {
  it.each([
    'https://app.greenhouse.io/integrations/testing_partners/take_home_tests/12345',
    'https://app.eu.greenhouse.io/integrations/testing_partners/take_home_tests/1',
    'https://greenhouse.io/x',
    'https://APP.GREENHOUSE.IO/x',
    'https://app.greenhouse.io:443/x',
    'https://assessments.acme.example/callback',
    'https://eu.ats.example.org/x',
  ])('allows %s', (url) => {
    expect(refusedPatchTarget(url, publicServer)).toBeUndefined();
  });

  it.each([
    ['http on a Greenhouse host', 'http://app.greenhouse.io/x', 'must be an https URL'],
    ['http on a listed host', 'http://assessments.acme.example/x', 'must be an https URL'],
    ['an odd port on a Greenhouse host', 'https://app.greenhouse.io:8443/x', 'must use the default https port'],
    ['port 80 over https', 'https://app.greenhouse.io:80/x', 'must use the default https port'],
    ['a user name', 'https://user@app.greenhouse.io/x', 'must not carry a user name or password'],
    ['a password', 'https://:pw@app.greenhouse.io/x', 'must not carry a user name or password'],
    ['a Greenhouse name as the user name of another host', 'https://app.greenhouse.io@evil.example/x', 'must not carry a user name or password'],
    ['a look-alike domain', 'https://app.greenhouse.io.evil.example/x', 'must be on greenhouse.io'],
    ['a suffix without the dot', 'https://evilgreenhouse.io/x', 'must be on greenhouse.io'],
    ['the apex of a wildcard', 'https://ats.example.org/x', 'must be on greenhouse.io'],
    ['localhost', 'http://localhost:3000/x', 'must not be a loopback address'],
    ['localhost with a final dot', 'http://localhost.:3000/x', 'must not be a loopback address'],
    ['127.0.0.1', 'https://127.0.0.1/x', 'must not be a loopback address'],
    ['127.0.0.1 in decimal', 'http://2130706433/x', 'must not be a loopback address'],
    ['127.0.0.1 in hex', 'http://0x7f.1/x', 'must not be a loopback address'],
    ['IPv6 loopback', 'http://[::1]:3000/x', 'must not be a loopback address'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/x', 'must be on greenhouse.io'],
    ['an IPv4 literal', 'https://169.254.169.254/latest/meta-data', 'must be on greenhouse.io'],
    ['0.0.0.0', 'http://0.0.0.0:3000/x', 'must be on greenhouse.io'],
    ['an IPv6 literal', 'https://[fd00::1]/x', 'must be on greenhouse.io'],
    ['another scheme', 'file:///etc/passwd', 'must be an https URL'],
    ['a relative URL', '/integrations/x', 'must be an absolute URL'],
  ])('refuses %s', (_what, url, reason) => {
    expect(refusedPatchTarget(url, publicServer)).toContain(reason);
  });
});

describe("the PATCH's url, on a server only this machine reaches", () => {
  it.each(['http://127.0.0.1:41234/patch', 'https://localhost:8443/x', 'http://localhost.:3000/x', 'http://[::1]:3000/x', 'http://127.8.9.10/x'])(
    'allows the loopback URL %s',
    (url) => {
      expect(refusedPatchTarget(url, localServer)).toBeUndefined();
    },
  );

  it('still refuses other hosts, credentials in loopback URLs, and http to Greenhouse', () => {
    expect(refusedPatchTarget('http://192.168.1.20/x', localServer)).toContain('must be on greenhouse.io');
    expect(refusedPatchTarget('http://user:pw@127.0.0.1:3000/x', localServer)).toContain('must not carry a user name or password');
    expect(refusedPatchTarget('http://app.greenhouse.io/x', localServer)).toContain('must be an https URL');
  });

  it('is a loopback server only when HOST and PUBLIC_URL are both loopback', () => {
    expect(loadConfig({ HOST: '0.0.0.0', CANDIDATE_LINK_SECRET: LINK_SECRET, ADMIN_TOKEN: PUBLIC.ADMIN_TOKEN }).localOnly).toBe(false);
    expect(loadConfig(PUBLIC).localOnly).toBe(false);
    expect(loadConfig({ PUBLIC_URL: 'http://localhost:3000' }).localOnly).toBe(true);
  });
});

describe('GREENHOUSE_PATCH_HOSTS', () => {
  const problemsOf = (value: string): string[] => {
    try {
      loadConfig({ GREENHOUSE_PATCH_HOSTS: value });
      return [];
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
  };

  it('reads names and wildcards, in any case, with spaces and empty entries around them', () => {
    expect(settingsOf(loadConfig({ GREENHOUSE_PATCH_HOSTS: ' Partners.Example.com, ,*.ats.example.org,' }), greenhousePlatform()).patchHosts).toEqual([
      { kind: 'exact', name: 'partners.example.com' },
      { kind: 'subdomains', of: 'ats.example.org' },
    ]);
    expect(settingsOf(loadConfig({}), greenhousePlatform()).patchHosts).toEqual([]);
  });

  it.each([
    ['https://partners.example.com', 'is not a host name'],
    ['partners.example.com:8443', 'is not a host name'],
    ['partners.example.com/patch', 'is not a host name'],
    ['intranet', 'is not a host name'],
    ['*', 'is not a host name'],
    ['*.', 'is not a host name'],
    ['*.ex_ample.com', 'is not a host name'],
    ['10.0.0.5', 'is an IP address'],
    ['[::1]', 'is an IP address'],
    ['app.localhost', 'is a loopback name'],
  ])('refuses %s at start-up, naming the variable and the entry', (value, reason) => {
    const [problem, ...others] = problemsOf(`ok.example.com,${value}`);
    expect(others).toEqual([]);
    expect(problem).toMatch(/^GREENHOUSE_PATCH_HOSTS: /);
    expect(problem).toContain(`"${value}" ${reason}`);
  });

  // A wildcard over a public suffix is every customer's and every stranger's domain under it: the
  // PATCH carries the customer's key, so anyone registering a name there would receive it.
  const overSuffix = (value: string, suffix: string) =>
    `GREENHOUSE_PATCH_HOSTS: "${value}" would allow every domain under the public suffix "${suffix}", which anyone can register names under: list your own domain (*.example.${suffix})`;
  const loopback = (value: string) =>
    `GREENHOUSE_PATCH_HOSTS: "${value}" is a loopback name: remove it; loopback URLs need no entry, and are allowed only while the partner itself is reachable from this machine only (HOST and PUBLIC_URL both loopback)`;
  it.each([
    ['*.com', overSuffix('*.com', 'com')],
    ['*.co.uk', overSuffix('*.co.uk', 'co.uk')],
    ['*.CO.UK', overSuffix('*.CO.UK', 'co.uk')],
    ['*.corp', overSuffix('*.corp', 'corp')],
    ['*.github.io', overSuffix('*.github.io', 'github.io')],
    ['*.s3.amazonaws.com', overSuffix('*.s3.amazonaws.com', 's3.amazonaws.com')],
    ['localhost.localdomain', loopback('localhost.localdomain')],
    ['*.localhost.localdomain', loopback('*.localhost.localdomain')],
    ['foo.localhost', loopback('foo.localhost')],
    ['*.localhost', loopback('*.localhost')],
    ['ip6-localhost', loopback('ip6-localhost')],
    ['ip6-loopback', loopback('ip6-loopback')],
    ['localhost6.localdomain6', loopback('localhost6.localdomain6')],
    ['localhost4.localdomain4', loopback('localhost4.localdomain4')],
  ])('refuses %s at start-up, saying why in a full sentence', (value, message) => {
    expect(problemsOf(`ok.example.com,${value}`)).toEqual([message]);
  });

  it('accepts a wildcard over a domain under a public suffix, and exact names that are a suffix', () => {
    expect(settingsOf(loadConfig({ GREENHOUSE_PATCH_HOSTS: '*.example.co.uk, *.partner.github.io, *.example.com' }), greenhousePlatform()).patchHosts).toEqual([
      { kind: 'subdomains', of: 'example.co.uk' },
      { kind: 'subdomains', of: 'partner.github.io' },
      { kind: 'subdomains', of: 'example.com' },
    ]);
    const rules = rulesOf({ ...PUBLIC, GREENHOUSE_PATCH_HOSTS: '*.example.co.uk' });
    expect(refusedPatchTarget('https://ats.example.co.uk/patch', rules)).toBeUndefined();
    expect(refusedPatchTarget('https://evil.co.uk/patch', rules)).toContain('must be on greenhouse.io');
  });
});
