import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMMON_PASSWORDS, ConfigError, configWarnings, DEV_CANDIDATE_LINK_SECRET, loadConfig } from '../../src/partner/config.js';
import { kitPlatforms } from '../../src/partner/platforms/index.js';

const LINK_SECRET = 'test-link-secret-0123456789abcdefghijklmnop';
const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('configuration', () => {
  it('when nothing is set, then every key has a working local default', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, host: '127.0.0.1', databasePath: './data/partner.db', trustProxy: false });
    expect(c.publicUrl).toBe('http://127.0.0.1:3000');
  });

  it('when several values are bad, then one error names every variable to fix', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', PUBLIC_URL: 'ftp://x', BODY_LIMIT_BYTES: '12' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const key of ['PORT', 'LOG_LEVEL', 'PUBLIC_URL', 'BODY_LIMIT_BYTES']) expect(message).toContain(key);
  });

  it('when PORT is not a port number, then the message says so, not "expected number, received NaN"', () => {
    for (const port of ['abc', '70000', '1.5']) {
      expect(() => loadConfig({ PORT: port }), port).toThrow('PORT: must be a port number 0–65535');
    }
  });

  it('when TRUST_PROXY is a hop count or a list, then Express gets it in that form', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
  });

  it('when PUBLIC_URL has a trailing slash, then links are built without a double slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://partner.example.com/', CANDIDATE_LINK_SECRET: LINK_SECRET, ADMIN_TOKEN }).publicUrl).toBe(
      'https://partner.example.com',
    );
  });
});

/** Where other machines can reach the server, whatever NODE_ENV says, and what start-up names as the reason. */
const REACHABLE: [string, Record<string, string>, string][] = [
  ['a public PUBLIC_URL in development', { NODE_ENV: 'development', PUBLIC_URL: 'https://partner.example.com' }, 'https://partner.example.com'],
  ['a public PUBLIC_URL under NODE_ENV=test', { NODE_ENV: 'test', PUBLIC_URL: 'http://partner.test' }, 'http://partner.test'],
  ['a LAN address', { PUBLIC_URL: 'http://192.168.1.20:3000' }, 'http://192.168.1.20:3000'],
  ['HOST=0.0.0.0 (every interface) without PUBLIC_URL', { HOST: '0.0.0.0' }, 'http://0.0.0.0:3000'],
  ['HOST set to a machine name without PUBLIC_URL', { HOST: 'partner.internal', PORT: '8080' }, 'http://partner.internal:8080'],
  ['HOST=0.0.0.0 with a loopback PUBLIC_URL', { HOST: '0.0.0.0', PUBLIC_URL: 'http://127.0.0.1:3000' }, 'HOST is 0.0.0.0'],
  ['HOST=:: with a loopback PUBLIC_URL', { HOST: '::', PUBLIC_URL: 'http://localhost:3000' }, 'HOST is ::'],
  ['HOST on a LAN address with a loopback PUBLIC_URL', { HOST: '192.168.1.20', PUBLIC_URL: 'http://[::1]:3000' }, 'HOST is 192.168.1.20'],
];

describe('the key that signs candidate and results links', () => {
  it.each(REACHABLE)('when CANDIDATE_LINK_SECRET is unset and the server is reachable at %s, then start-up fails saying how to make one', (_name, env, reason) => {
    const problems = problemsOf({ ...env, ADMIN_TOKEN });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^CANDIDATE_LINK_SECRET: is required when the server is reachable from other machines/);
    expect(problems[0]).toContain(reason);
    expect(problems[0]).toContain('openssl rand -base64 48');
  });

  it('when CANDIDATE_LINK_SECRET is set explicitly to the public development key on a non-loopback address, then start-up fails too', () => {
    const envs: Record<string, string>[] = [
      { PUBLIC_URL: 'https://partner.example.com', CANDIDATE_LINK_SECRET: DEV_CANDIDATE_LINK_SECRET, ADMIN_TOKEN },
      { HOST: '0.0.0.0', PUBLIC_URL: 'http://127.0.0.1:3000', CANDIDATE_LINK_SECRET: DEV_CANDIDATE_LINK_SECRET, ADMIN_TOKEN },
      { NODE_ENV: 'production', PUBLIC_URL: 'https://partner.example.com', CANDIDATE_LINK_SECRET: DEV_CANDIDATE_LINK_SECRET, ADMIN_TOKEN: 't'.repeat(30) },
    ];
    for (const env of envs) {
      const problems = problemsOf(env);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^CANDIDATE_LINK_SECRET: is the public development key/);
      expect(problems[0]).toContain('openssl rand -base64 48');
    }
  });

  it.each([
    ['nothing set (127.0.0.1)', {}],
    ['PUBLIC_URL on localhost', { PUBLIC_URL: 'http://localhost:3000' }],
    ['PUBLIC_URL elsewhere in 127.0.0.0/8', { PUBLIC_URL: 'http://127.1.2.3:3000' }],
    ['PUBLIC_URL on ::1', { PUBLIC_URL: 'http://[::1]:3000' }],
    ['HOST=::1', { HOST: '::1' }],
    ['HOST=localhost', { HOST: 'localhost' }],
    ['HOST elsewhere in 127.0.0.0/8 and PUBLIC_URL on LOCALHOST', { HOST: '127.0.0.2', PUBLIC_URL: 'http://LOCALHOST:3000' }],
  ])('when the server is only reachable from this machine (%s), then the development key is used and flagged', (_name, env) => {
    const c = loadConfig(env);
    expect(c.links.secret).toBe(DEV_CANDIDATE_LINK_SECRET);
    expect(c.links.developmentKey).toBe(true);
  });

  it('when CANDIDATE_LINK_SECRET and an admin credential are set, then any address is accepted and the key is not flagged', () => {
    const c = loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'https://partner.example.com', CANDIDATE_LINK_SECRET: LINK_SECRET, ADMIN_TOKEN });
    expect(c.links.secret).toBe(LINK_SECRET);
    expect(c.links.developmentKey).toBe(false);
  });
});

describe('the dashboard credential where other machines can reach the server', () => {
  it.each(REACHABLE)('when no admin credential is set and the server is reachable at %s, then start-up fails naming ADMIN_PASSWORD', (_name, env, reason) => {
    const problems = problemsOf({ ...env, CANDIDATE_LINK_SECRET: LINK_SECRET });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^ADMIN_PASSWORD: is required when the server is reachable from other machines .*, or ADMIN_TOKEN: /);
    expect(problems[0]).toContain(reason);
  });

  it('when the development password is set explicitly on a non-loopback address, then start-up fails naming ADMIN_PASSWORD', () => {
    const problems = problemsOf({ HOST: '0.0.0.0', PUBLIC_URL: 'http://127.0.0.1:3000', CANDIDATE_LINK_SECRET: LINK_SECRET, ADMIN_PASSWORD: 'admin' });
    expect(problems).toEqual([expect.stringMatching(/^ADMIN_PASSWORD: must be at least 12 characters when the server is reachable from other machines \(HOST is 0\.0\.0\.0/)]);
  });

  it('when only ADMIN_TOKEN is set on a non-loopback address, then the token is the one way in: no default password', () => {
    const c = loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'http://127.0.0.1:3000', CANDIDATE_LINK_SECRET: LINK_SECRET, ADMIN_TOKEN });
    expect(c.admin).toEqual({ username: 'admin', password: undefined, token: ADMIN_TOKEN });
  });

  it('when the server is only reachable from this machine, then the dashboard keeps admin / admin and any password is accepted', () => {
    expect(loadConfig({ HOST: '127.0.0.1', PUBLIC_URL: 'http://localhost:3000' }).admin).toEqual({ username: 'admin', password: 'admin', token: undefined });
    expect(loadConfig({ ADMIN_PASSWORD: 'aaaa' }).admin.password).toBe('aaaa');
  });
});

describe('the dashboard password where the production rules apply', () => {
  const strict: [string, Record<string, string>][] = [
    ['in production', { NODE_ENV: 'production', CANDIDATE_LINK_SECRET: LINK_SECRET }],
    ['on a public address', { PUBLIC_URL: 'https://partner.example.com', CANDIDATE_LINK_SECRET: LINK_SECRET }],
  ];
  const refused: [string, Record<string, string>, RegExp][] = [
    ['one character repeated', { ADMIN_PASSWORD: 'aaaaaaaaaaaa' }, /is one character repeated/],
    ['a long run of one character', { ADMIN_PASSWORD: '🔑'.repeat(20) }, /is one character repeated/],
    ['the default user name inside', { ADMIN_PASSWORD: 'SuperAdmin-2026!' }, /contains the user name \(ADMIN_USERNAME, "admin"\)/],
    ['its user name inside', { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'the-OPERATOR-of-acme' }, /contains the user name \(ADMIN_USERNAME, "operator"\)/],
    ['a common one', { ADMIN_PASSWORD: 'password1234' }, /is one of the most common passwords/],
    ['a common one with other case and punctuation', { ADMIN_PASSWORD: 'Qwerty-123456' }, /is one of the most common passwords/],
    ['the most quoted passphrase', { ADMIN_PASSWORD: 'correct horse battery staple' }, /is one of the most common passwords/],
  ];

  for (const [where, base] of strict) {
    it.each(refused)(`when ADMIN_PASSWORD is %s ${where}, then start-up fails saying why, without repeating the password`, (_name, env, why) => {
      const problems = problemsOf({ ...base, ...env });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^ADMIN_PASSWORD: /);
      expect(problems[0]).toMatch(why);
      expect(problems[0]).toContain(where === 'in production' ? 'refused in production' : 'refused when the server is reachable from other machines');
      expect(problems[0]).toContain('openssl rand -base64 18');
      expect(problems[0]).not.toContain(env.ADMIN_PASSWORD);
    });

    it(`when ADMIN_PASSWORD is long and not guessable ${where}, then it is accepted, a short user name not being looked for inside it`, () => {
      expect(loadConfig({ ...base, ADMIN_PASSWORD: 'tulip ledger orbit 31' }).admin.password).toBe('tulip ledger orbit 31');
      expect(loadConfig({ ...base, ADMIN_USERNAME: 'op', ADMIN_PASSWORD: 'opal-ledger-orbit-31' }).admin.password).toBe('opal-ledger-orbit-31');
    });
  }
});

describe('warnings at start-up', () => {
  it('when TRUST_PROXY is set with a loopback PUBLIC_URL, then start-up warns; behind a public address, or without it, it does not', () => {
    expect(configWarnings(loadConfig({ TRUST_PROXY: 'true' }))).toEqual([expect.stringMatching(/^TRUST_PROXY is set while PUBLIC_URL \(http:\/\/127\.0\.0\.1:3000\)/)]);
    expect(configWarnings(loadConfig({ TRUST_PROXY: '1', PUBLIC_URL: 'http://localhost:8080' }))).toHaveLength(1);
    expect(configWarnings(loadConfig({}))).toEqual([]);
    expect(configWarnings(loadConfig({ TRUST_PROXY: '0' }))).toEqual([]);
    expect(configWarnings(loadConfig({ TRUST_PROXY: '1', PUBLIC_URL: 'https://partner.example.com', CANDIDATE_LINK_SECRET: LINK_SECRET, ADMIN_TOKEN }))).toEqual([]);
  });
});

describe('documentation of the configuration', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  const source = readFileSync(path.join(root, 'src/partner/config.ts'), 'utf8');
  const block = source.slice(source.indexOf('const ConfigSchema = z.object({'), source.indexOf('\n});', source.indexOf('const ConfigSchema')));
  const keys = [...block.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);

  it('when a key is read from the environment, then .env.example and the README both document it', () => {
    expect(keys.length).toBeGreaterThan(20);
    const example = readFileSync(path.join(root, '.env.example'), 'utf8');
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    for (const key of keys) {
      expect(example, `.env.example lacks ${key}`).toMatch(new RegExp(`^# ${key}=`, 'm'));
      expect(readme, `README lacks ${key}`).toContain(`\`${key}\``);
    }
  });

  /** The variables a platform's settings schema reads: its object's keys, through a transform. */
  const settingKeys = (schema: z.ZodType | undefined): string[] => {
    if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
    if (schema instanceof z.ZodPipe) return settingKeys(schema.in as z.ZodType);
    return [];
  };
  /** The lines of a document from the one `heading` matches to the next one `next` matches. */
  const section = (text: string, heading: RegExp, next: RegExp) => {
    const lines = text.split('\n');
    const start = lines.findIndex((line) => heading.test(line));
    if (start === -1) return undefined;
    const end = lines.findIndex((line, i) => i > start && next.test(line));
    return lines.slice(start, end === -1 ? undefined : end).join('\n');
  };
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  it('when a platform of the registry reads a setting, then .env.example and docs/configuration.md have it in that platform\'s own section', () => {
    const example = readFileSync(path.join(root, '.env.example'), 'utf8');
    const doc = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
    const platforms = kitPlatforms();
    expect(platforms.map((p) => p.name)).toEqual(expect.arrayContaining(['hiring-platform', 'greenhouse']));
    for (const platform of platforms) {
      const keys = settingKeys(platform.settings);
      if (platform.settings) expect(keys.length, `${platform.name}: its settings schema reads no variable the test can name`).toBeGreaterThan(0);
      // `.env.example`: "# --- <label> (…) ---" up to the next section; docs: "## <label>" up to the next.
      const inExample = section(example, new RegExp(`^# --- ${escaped(platform.label)}\\b`), /^# (---|===) /);
      const inDoc = section(doc, new RegExp(`^## ${escaped(platform.label)}$`), /^## /);
      if (keys.length === 0) continue;
      expect(inExample, `.env.example has no section "# --- ${platform.label}"`).toBeDefined();
      expect(inDoc, `docs/configuration.md has no section "## ${platform.label}"`).toBeDefined();
      for (const key of keys) {
        expect(inExample, `.env.example: ${key} is not in ${platform.label}'s section`).toMatch(new RegExp(`^# ${key}=`, 'm'));
        expect(inDoc, `docs/configuration.md: ${key} is not in ${platform.label}'s section`).toContain(`| \`${key}\``);
      }
      // …and nowhere else: a setting has one owner, and one place it is described.
      for (const key of keys) {
        expect(example.match(new RegExp(`^# ${key}=`, 'gm')), `.env.example lists ${key} more than once`).toHaveLength(1);
        expect(doc.match(new RegExp(`^\\| \`${key}\``, 'gm')), `docs/configuration.md describes ${key} in more than one row`).toHaveLength(1);
      }
    }
  });

  it('when a password is refused as common, then docs/configuration.md lists it, and lists no other', () => {
    const doc = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
    const paragraph = /^The common passwords refused[\s\S]*?\n\n/m.exec(doc)?.[0] ?? '';
    const listed = [...paragraph.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((word) => !/[.\s]rand|^src\/|^COMMON_/.test(word));
    const normalised = listed.map((word) => word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, ''));
    // The first is the example of how they are compared.
    expect(normalised.slice(2).sort()).toEqual([...COMMON_PASSWORDS].sort());
  });
});
