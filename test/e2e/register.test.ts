import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerRequest } from '../../src/contract/schemas.js';
import type { RunningMockPlatform } from '../../src/mock-platform/server.js';
import {
  DEFAULT_MANIFEST,
  RegisterConfigError,
  defaultManifestPath,
  describeResult,
  loadManifest,
  loadRegisterOptions,
  registerCli,
  registerPartner,
} from '../../scripts/register-partner.js';
import { REFUSED_URL, kitProcess } from '../support/net.js';
import { loadConfig } from '../../src/partner/config.js';
import { ACME, GLOBEX, startMock } from './support.js';
import { settingsOf } from '../../src/partner/config.js';
import { hiringPlatform } from '../../src/partner/platforms/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const manifest = loadManifest(DEFAULT_MANIFEST, 'http://127.0.0.1:3000');

let mock: RunningMockPlatform;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());

const options = (codename: string, overrides: Partial<Parameters<typeof registerPartner>[0]> = {}) => ({
  platformUrl: mock.url,
  codename,
  companyId: ACME.id,
  apiToken: ACME.token,
  partner: manifest,
  ...overrides,
});

describe('registerPartner', () => {
  it('creates the record (201), and running again updates it (200) with the same secret', async () => {
    const first = await registerPartner(options('reg-create'));
    expect(first).toMatchObject({ ok: true, created: true, partner: { codename: 'reg-create', company_id: ACME.id, name: 'Demo Assessments' } });
    const second = await registerPartner(options('reg-create', { partner: { ...manifest, name: 'Demo Assessments v2' } }));
    expect(second).toMatchObject({ ok: true, created: false, partner: { name: 'Demo Assessments v2' } });
    if (!first.ok || !second.ok) throw new Error('unreachable');
    expect(second.partner.secret).toBe(first.partner.secret);
    expect(describeResult(second, options('reg-create'))).toContain('its secret is unchanged');
  });

  it('prints the record with the secret masked, and the secret in full only where it goes', async () => {
    const result = await registerPartner(options('reg-print'));
    if (!result.ok) throw new Error(result.message);
    const text = describeResult(result, options('reg-print'));
    const secret = result.partner.secret;
    expect(text.split(secret)).toHaveLength(2);
    expect(text).toContain(`  PARTNER_SECRET=${secret}`);
    expect(text).toContain(`"secret": "${secret.slice(0, 4)}… (${secret.length} characters)"`);
  });

  it('reports a refused API token (401), including a token of another company', async () => {
    const wrong = await registerPartner(options('reg-401', { apiToken: 'mock_api_wrong' }));
    expect(wrong).toMatchObject({ ok: false, reason: 'unauthorized', status: 401 });
    const other = await registerPartner(options('reg-401', { apiToken: GLOBEX.token }));
    expect(other).toMatchObject({ ok: false, reason: 'unauthorized' });
    expect(describeResult(other, options('reg-401'))).toMatch(/Check PLATFORM_API_TOKEN, and that it is a token of company 1/);
  });

  it('reports a codename taken by another company (409)', async () => {
    await registerPartner(options('reg-taken'));
    const taken = await registerPartner(options('reg-taken', { companyId: GLOBEX.id, apiToken: GLOBEX.token }));
    expect(taken).toMatchObject({ ok: false, reason: 'conflict', status: 409 });
    expect(describeResult(taken, options('reg-taken'))).toContain('Choose another PARTNER_CODENAME');
  });

  it('reports the field errors of a refused record (422)', async () => {
    const invalid = { ...manifest, kind: 'astrology', urls: { ...manifest.urls, tests: 'not a url' } } as unknown as PartnerRequest;
    const result = await registerPartner(options('reg-422', { partner: invalid }));
    expect(result).toMatchObject({ ok: false, reason: 'invalid', status: 422 });
    if (result.ok) throw new Error('unreachable');
    expect(Object.keys(result.fieldErrors ?? {}).sort()).toEqual(['kind', 'urls.tests']);
    const text = describeResult(result, options('reg-422'));
    expect(text).toMatch(/^ {2}- kind: /m);
    expect(text).toMatch(/^ {2}- urls\.tests: must be an absolute http\(s\) URL/m);
  });

  it('reports an unreachable platform', async () => {
    const result = await registerPartner(options('reg-down', { platformUrl: REFUSED_URL }));
    expect(result).toMatchObject({ ok: false, reason: 'unreachable' });
    expect(describeResult(result, options('reg-down'))).toMatch(/Could not reach the platform at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });
});

describe('configuration', () => {
  it('names every missing variable, with a hint', () => {
    let error: unknown;
    try {
      loadRegisterOptions({ PLATFORM_URL: 'http://127.0.0.1:4000' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RegisterConfigError);
    const problems = (error as RegisterConfigError).problems;
    expect(problems.map((p) => p.split(':')[0])).toEqual(['PLATFORM_COMPANY_ID', 'PLATFORM_API_TOKEN']);
    expect(problems[1]).toBe(
      'PLATFORM_API_TOKEN: not set — a personal API token from your company settings (mock_api_acme in the sandbox)',
    );
  });

  it('defaults the platform, the codename and the public URL as the partner server does', () => {
    const server = loadConfig({});
    const options = loadRegisterOptions({ PLATFORM_COMPANY_ID: '1', PLATFORM_API_TOKEN: 't' });
    expect(options.platformUrl).toBe(settingsOf(server, hiringPlatform()).url);
    expect(options.codename).toBe(settingsOf(server, hiringPlatform()).codename);
    expect(options.partner.urls.tests).toBe(`${server.publicUrl}/callbacks/tests`);
    for (const env of [{ PORT: '3100' }, { HOST: 'localhost', PORT: '3200' }, { PUBLIC_URL: 'https://partner.example.com/', PORT: '3100' }]) {
      const registered = loadRegisterOptions({ PLATFORM_COMPANY_ID: '1', PLATFORM_API_TOKEN: 't', ...env });
      expect(registered.partner.urls.tests).toBe(`${loadConfig({ ...env, CANDIDATE_LINK_SECRET: 'a-link-secret-of-at-least-32-characters', ADMIN_TOKEN: 'an-admin-token-of-24-characters' }).publicUrl}/callbacks/tests`);
    }
  });

  it('refuses a malformed codename or URL', () => {
    expect(() =>
      loadRegisterOptions({ PLATFORM_URL: 'localhost:4000', PARTNER_CODENAME: 'Demo!', PLATFORM_COMPANY_ID: '1', PLATFORM_API_TOKEN: 't' }),
    ).toThrow(/PLATFORM_URL: must be an absolute http\(s\) URL[\s\S]*PARTNER_CODENAME/);
  });

  it("reads the project's scripts/partner-manifest.json whether the script runs from scripts/ or built, from dist/scripts/", () => {
    const manifestFile = path.join(ROOT, 'scripts', 'partner-manifest.json');
    expect(DEFAULT_MANIFEST).toBe(manifestFile);
    expect(defaultManifestPath(pathToFileURL(path.join(ROOT, 'scripts', 'register-partner.ts')))).toBe(manifestFile);
    expect(defaultManifestPath(pathToFileURL(path.join(ROOT, 'dist', 'scripts', 'register-partner.js')))).toBe(manifestFile);

    // A checkout somewhere else, built: its own manifest, not this one's.
    const project = mkdtempSync(path.join(tmpdir(), 'kit-project-'));
    try {
      writeFileSync(path.join(project, 'package.json'), '{}');
      mkdirSync(path.join(project, 'dist', 'scripts'), { recursive: true });
      expect(defaultManifestPath(pathToFileURL(path.join(project, 'dist', 'scripts', 'register-partner.js')))).toBe(
        path.join(project, 'scripts', 'partner-manifest.json'),
      );
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('resolves ${PUBLIC_URL} in the manifest to the partner callbacks', () => {
    const partner = loadManifest(DEFAULT_MANIFEST, 'https://partner.example.com/');
    expect(partner.urls).toEqual({
      help_article: 'https://partner.example.com/',
      validate_token: 'https://partner.example.com/callbacks/validate_token',
      tests: 'https://partner.example.com/callbacks/tests',
      send_candidate: 'https://partner.example.com/callbacks/send_candidate',
    });
  });

  it('refuses a manifest with an unknown placeholder or an invalid field, before sending anything', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kit-manifest-'));
    const file = path.join(dir, 'manifest.json');
    writeFileSync(file, JSON.stringify({ kind: 'assessment', name: '', urls: { validate_token: '${HOST}/v', tests: 'x', send_candidate: 'x' } }));
    try {
      expect(() => loadManifest(file, 'http://127.0.0.1:3000')).toThrow(/unknown placeholder \$\{HOST\}[\s\S]*name is required/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm run register', () => {
  /** The CLI as a child process, compiled (test/support/compiled-kit.ts; test/e2e/cli-usage.test.ts runs it under tsx). */
  const runProcess = (env: Record<string, string>) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, kitProcess('scripts/register-partner.ts'), {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  /** The CLI in this process, as its entry point runs it once the arguments are checked: exit code and output. */
  const run = async (env: Record<string, string>) => {
    let stdout = '';
    let stderr = '';
    const code = await registerCli(
      { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
    );
    return { code, stdout, stderr };
  };
  const env = () => ({
    PLATFORM_URL: mock.url,
    PARTNER_CODENAME: 'reg-cli',
    PLATFORM_COMPANY_ID: '1',
    PLATFORM_API_TOKEN: ACME.token,
    PUBLIC_URL: 'http://127.0.0.1:3999',
  });

  it('as a child process: registers, prints the record and where the secret goes; exit 0', async () => {
    const result = await runProcess(env());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Registered partner "reg-cli"');
    const stored = await request(mock.url).get('/api/p/reg-cli/c/1/partner').set('authorization', `Bearer ${ACME.token}`).expect(200);
    const secret: string = stored.body.partner.secret;
    expect(stored.body.partner.urls.tests).toBe('http://127.0.0.1:3999/callbacks/tests');
    expect(result.stdout).toContain(`PARTNER_SECRET=${secret}`);
    expect(result.stdout.split(secret)).toHaveLength(2);
  });

  it('exits 1 with the reason when the platform refuses the token', async () => {
    const result = await run({ ...env(), PLATFORM_API_TOKEN: 'mock_api_wrong' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The platform refused the API token (401: Invalid API token)');
  });

  it('exits 78 naming the missing variable', async () => {
    const { PLATFORM_API_TOKEN: _omit, ...rest } = env();
    const result = await run(rest);
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/PLATFORM_API_TOKEN: not set — a personal API token/);
  });

  it('without any variable, names only what has no default, each with what to do', async () => {
    const result = await run({});
    expect(result.code).toBe(78);
    const problems = result.stderr.split('\n').filter((l) => l.startsWith('  - '));
    expect(problems).toEqual([
      '  - PLATFORM_COMPANY_ID: not set — the id of your own company on the platform (1 in the sandbox)',
      '  - PLATFORM_API_TOKEN: not set — a personal API token from your company settings (mock_api_acme in the sandbox)',
    ]);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it.each([
    ['PORT=3100', { PORT: '3100' }, 'http://127.0.0.1:3100'],
    ['HOST and PORT', { HOST: 'localhost', PORT: '3200' }, 'http://localhost:3200'],
    ['PUBLIC_URL over PORT', { PUBLIC_URL: 'https://partner.example.com', PORT: '3100' }, 'https://partner.example.com'],
  ])('registers the callbacks where the server listens: %s', async (_name, vars, publicUrl) => {
    const { PUBLIC_URL: _omit, ...rest } = env();
    const codename = `reg-url-${publicUrl.replace(/\W+/g, '-').slice(-12)}`.replace(/-+$/, '');
    const result = await run({ ...rest, PARTNER_CODENAME: codename, ...vars });
    expect(result.code, result.stderr).toBe(0);
    const stored = await request(mock.url).get(`/api/p/${codename}/c/1/partner`).set('authorization', `Bearer ${ACME.token}`).expect(200);
    expect(stored.body.partner.urls).toEqual({
      help_article: `${publicUrl}/`,
      validate_token: `${publicUrl}/callbacks/validate_token`,
      tests: `${publicUrl}/callbacks/tests`,
      send_candidate: `${publicUrl}/callbacks/send_candidate`,
    });
  });
});
