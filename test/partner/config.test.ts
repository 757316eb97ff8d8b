import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

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
