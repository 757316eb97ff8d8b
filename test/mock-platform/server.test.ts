import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { startMockPlatform } from '../../src/mock-platform/server.js';
import { kitProcess } from '../support/net.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('startMockPlatform', () => {
  it('serves the seeded platform on a free port, with careers URLs that point at it', async () => {
    const mock = await startMockPlatform({ port: 0, logLevel: 'silent' });
    try {
      expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      await request(mock.url).get('/healthz').expect(200, { ok: true });
      await request(mock.url).get('/api/p/x1/c/1/partner').set('authorization', 'Bearer mock_api_acme').expect(404);
      const offers = await request(mock.url).get('/careers/acme/api/offers/').expect(200);
      expect(offers.body.offers[0].careers_url).toMatch(new RegExp(`^${mock.url}/careers/acme/offers/`));
    } finally {
      await mock.close();
    }
  });
});

// Two processes of their own, on ports the system picks: they run at once.
describe.concurrent('npm run mock', () => {
  it('prints its URL and the sandbox API tokens, and stops cleanly on SIGTERM', async ({ expect }) => {
    // `npm run mock` compiled (test/support/compiled-kit.ts); test/e2e/cli-usage.test.ts runs it under tsx.
    const child = spawn(process.execPath, kitProcess('src/mock-platform/server.ts'), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MOCK_PORT: '0', LOG_LEVEL: 'warn' },
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The URL once printed; an exit before it fails the test with what was printed.
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const match = /Mock platform sandbox: (http:\/\/\S+)/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      void exited.then((code) => reject(new Error(`exited (${code}) without printing its URL: ${stdout}`)));
    });
    expect(stdout).toContain('Acme Corp (company 1): mock_api_acme');
    await request(url).get('/healthz').expect(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses a bad setting with exit code 78, naming the variable', async ({ expect }) => {
    const child = spawn(process.execPath, kitProcess('src/mock-platform/server.ts'), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', MOCK_PORT: 'eighty' },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(78);
    expect(stderr).toContain('MOCK_PORT');
  });
});

it('an in-memory platform removes its uploads folder when closed', async () => {
  const mock = await startMockPlatform({ port: 0, logLevel: 'silent' });
  expect(existsSync(mock.uploadsDir)).toBe(true);
  await mock.close();
  expect(existsSync(mock.uploadsDir)).toBe(false);
});
