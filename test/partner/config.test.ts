import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/partner/config.js';

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

  it('when TRUST_PROXY is a hop count or a list, then Express gets it in that form', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
  });

  it('when PUBLIC_URL has a trailing slash, then links are built without a double slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://partner.example.com/' }).publicUrl).toBe('https://partner.example.com');
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
