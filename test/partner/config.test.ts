import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEV_CANDIDATE_LINK_SECRET, loadConfig } from '../../src/partner/config.js';

const LINK_SECRET = 'test-link-secret-0123456789abcdefghijklmnop';

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
    expect(loadConfig({ PUBLIC_URL: 'https://partner.example.com/', CANDIDATE_LINK_SECRET: LINK_SECRET }).publicUrl).toBe('https://partner.example.com');
  });
});

describe('the key that signs candidate and results links', () => {
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  it.each([
    ['a public PUBLIC_URL in development', { NODE_ENV: 'development', PUBLIC_URL: 'https://partner.example.com' }, 'https://partner.example.com'],
    ['a public PUBLIC_URL under NODE_ENV=test', { NODE_ENV: 'test', PUBLIC_URL: 'http://partner.test' }, 'http://partner.test'],
    ['a LAN address', { PUBLIC_URL: 'http://192.168.1.20:3000' }, 'http://192.168.1.20:3000'],
    ['HOST=0.0.0.0 (every interface) without PUBLIC_URL', { HOST: '0.0.0.0' }, 'http://0.0.0.0:3000'],
    ['HOST set to a machine name without PUBLIC_URL', { HOST: 'partner.internal', PORT: '8080' }, 'http://partner.internal:8080'],
  ])('when CANDIDATE_LINK_SECRET is unset and the server is reachable at %s, then start-up fails saying how to make one', (_name, env, url) => {
    const problems = problemsOf(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^CANDIDATE_LINK_SECRET: /);
    expect(problems[0]).toContain(url);
    expect(problems[0]).toContain('openssl rand -base64 48');
  });

  it('when CANDIDATE_LINK_SECRET is set explicitly to the public development key on a non-loopback address, then start-up fails too', () => {
    const envs: Record<string, string>[] = [
      { PUBLIC_URL: 'https://partner.example.com', CANDIDATE_LINK_SECRET: DEV_CANDIDATE_LINK_SECRET },
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
  ])('when the server is only reachable from this machine (%s), then the development key is used and flagged', (_name, env) => {
    const c = loadConfig(env);
    expect(c.links.secret).toBe(DEV_CANDIDATE_LINK_SECRET);
    expect(c.links.developmentKey).toBe(true);
  });

  it('when CANDIDATE_LINK_SECRET is set, then any address is accepted and the key is not flagged', () => {
    const c = loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'https://partner.example.com', CANDIDATE_LINK_SECRET: LINK_SECRET });
    expect(c.links.secret).toBe(LINK_SECRET);
    expect(c.links.developmentKey).toBe(false);
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
});
