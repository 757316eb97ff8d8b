import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { loadConfig } from '../../src/partner/config.js';
import { discardDatabase, freshDatabase, openTestDatabase, rowOf, rowsOf, sqliteOf } from '../support/database.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { main } from '../../src/partner/server.js';
import { startSandbox } from '../../scripts/dev.js';
import { startPartner as startPartnerWith, type StartOptions } from '../../src/partner/index.js';
import type { PartnerKind } from '../../src/contract/decisions.js';
import type { Report } from '../../src/contract/schemas.js';
import { DEFAULT_MANIFEST, loadManifest, registerPartner } from '../../scripts/register-partner.js';

export const ACME = { id: 1, token: 'mock_api_acme' } as const;
export const GLOBEX = { id: 2, token: 'mock_api_globex' } as const;
export const ADA = 17;
export const CODENAME = 'demo-assessments';

/** The partner server as `npm start` runs it (its own SQLite file), listening on a free port. */
export async function startPartner() {
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-e2e-'));
  const settings = await freshDatabase(dir, 'demo');
  const config = loadConfig({ ...settings, PORT: '0', LOG_LEVEL: 'silent' });
  const running = await main(config);
  const { port } = running.server.address() as { port: number };
  // A second connection to the partner's database: what a test reads to see what the partner stored.
  const database = await openTestDatabase(config);
  const { sql } = database;
  const accounts = accountStore(sql, systemClock);
  return {
    url: `http://127.0.0.1:${port}`,
    dbFile: settings.DATABASE_PATH,
    sql,
    /** The SQLite connection (SQLite only: a test that reads it runs on SQLite only). */
    get db() {
      return sqliteOf(sql);
    },
    accounts,
    /** One row of a query of the test's own (`?` placeholders), on whichever database. */
    row: (text: string, ...params: unknown[]) => rowOf(sql, text, ...params),
    rows: (text: string, ...params: unknown[]) => rowsOf(sql, text, ...params),
    /** A customer account of the partner with these tests; returns its token and test ids. */
    customer(name: string, tests: string[] = []) {
      return sql.transaction(async (tx) => {
        const { account, token } = await accounts.create(name, tx);
        const created = await addDemoTests(tx, systemClock, account.id, tests);
        return { accountId: account.id, token, tests: created };
      });
    },
    async close() {
      await running.close();
      await discardDatabase(database, settings, dir);
    },
  };
}
export type RunningPartner = Awaited<ReturnType<typeof startPartner>>;

export function startMock(): Promise<RunningMockPlatform> {
  return startMockPlatform({ port: 0, logLevel: 'silent' });
}

/** Registers the partner (the kit's manifest, pointed at the running partner) for Acme. */
export async function registerKitPartner(mock: RunningMockPlatform, partner: RunningPartner) {
  const result = await registerPartner({
    platformUrl: mock.url,
    codename: CODENAME,
    companyId: ACME.id,
    apiToken: ACME.token,
    partner: loadManifest(DEFAULT_MANIFEST, partner.url),
  });
  if (!result.ok) throw new Error(`registration failed: ${result.message}`);
  return result;
}

export const marketplace = (mock: RunningMockPlatform) => request(mock.url);

/**
 * Registers `codename` for Acme with the kit's manifest pointed at `partnerUrl`; returns the secret.
 * Posting again with another URL keeps the secret: a partner that must know its secret before it
 * starts (and so before it knows its port) registers with a placeholder URL first, then again.
 */
export async function registerManifest(platformUrl: string, codename: string, partnerUrl: string): Promise<string> {
  const result = await registerPartner({
    platformUrl,
    codename,
    companyId: ACME.id,
    apiToken: ACME.token,
    partner: loadManifest(DEFAULT_MANIFEST, partnerUrl),
  });
  if (!result.ok) throw new Error(`registration failed: ${result.message}`);
  return result.partner.secret;
}

/** The kit's manifest for `kind` (scripts/partner-manifest[.background-check|.reference-check].json). */
export function manifestFor(kind: PartnerKind): string {
  return kind === 'assessment' ? DEFAULT_MANIFEST : path.join(path.dirname(DEFAULT_MANIFEST), `partner-manifest.${kind.replace('_', '-')}.json`);
}

/**
 * A partner as a fork runs it — `startPartner` with its own provider (and webhook handlers) — on a
 * free port, registered with the mock as `codename` for `kind`, and a customer account of it
 * integrated by Acme: the state right before the first send.
 */
export async function startForkedPartner(
  mock: RunningMockPlatform,
  options: Omit<StartOptions, 'config' | 'overrides'> & { codename: string; kind?: PartnerKind; env?: Record<string, string> },
) {
  const { codename: _codename, kind: _kind, env, ...start } = options;
  const kind = options.kind ?? 'assessment';
  const register = async (url: string) => {
    const result = await registerPartner({ platformUrl: mock.url, codename: options.codename, companyId: ACME.id, apiToken: ACME.token, partner: loadManifest(manifestFor(kind), url) });
    if (!result.ok) throw new Error(`registration failed: ${result.message}`);
    return result.partner.secret;
  };
  // The partner needs its secret before it starts, and knows its port only once started.
  const secret = await register('http://127.0.0.1:0');
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-fork-'));
  const settings = await freshDatabase(dir, start.provider ? 'kit' : 'demo');
  const partner = await startPartnerWith({
    ...start,
    config: loadConfig({
      PORT: '0',
      ...settings,
      LOG_LEVEL: 'silent',
      PLATFORM_URL: mock.url,
      PARTNER_CODENAME: options.codename,
      PARTNER_SECRET: secret,
      PARTNER_KIND: kind,
      ...env,
    }),
    overrides: { pollIntervalMs: 50 },
  });
  await register(partner.publicUrl);
  const database = await openTestDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL });
  const { sql } = database;
  const { account, token } = await accountStore(sql, systemClock).create('Acme on our side');
  await request(mock.url).post(`/api/marketplace/c/${ACME.id}/partners/${options.codename}/integration`).send({ token }).expect(201);
  return {
    partner,
    sql,
    /** The SQLite connection (SQLite only: a test that reads it runs on SQLite only). */
    get db() {
      return sqliteOf(sql);
    },
    accountId: account.id,
    /** Sends Ada the test through the marketplace, as a recruiter would; returns the report id. */
    async send(testId: string | number, testName = 'a test', candidateId: number = ADA): Promise<string> {
      const res = await request(mock.url)
        .post(`/api/marketplace/c/${ACME.id}/partners/${options.codename}/send`)
        .send({ candidate_id: candidateId, test_id: testId, test_name: testName })
        .expect(201);
      return res.body.report.id as string;
    },
    /** The report as the platform shows it. */
    async report(reportId: string): Promise<Report> {
      return (await request(mock.url).get(`/api/marketplace/c/${ACME.id}/reports/${reportId}`).expect(200)).body.report as Report;
    },
    async close() {
      await partner.close();
      await discardDatabase(database, settings, dir);
    },
  };
}
export type ForkedPartner = Awaited<ReturnType<typeof startForkedPartner>>;

/** The sandbox's Greenhouse company (Initech) and its first candidate (Katherine, every optional field). */
export const INITECH = 1;
export const KATHERINE = 1;

/**
 * As a recruiter at Initech does on the mock's Greenhouse pages: list the partner's tests, pick the
 * first for stage 2, send it to Katherine. Resolves with the `partner_interview_id` the partner answered.
 */
export async function sendFromGreenhouse(mockUrl: string): Promise<string> {
  const mock = request(mockUrl);
  const listed = await mock.get(`/greenhouse/companies/${INITECH}?list_tests=1`).expect(200);
  const option = /<option value="([^"]+)">/.exec(listed.text)?.[1];
  if (!option) throw new Error(`no test to pick on the company page:\n${listed.text}`);
  const test = option.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&#39;', "'");
  await mock.post(`/greenhouse/companies/${INITECH}/stages/2/test`).type('form').send({ test }).expect(303);
  const sent = await mock.post(`/greenhouse/companies/${INITECH}/candidates/${KATHERINE}/send`).type('form').send({ stage_id: '2' }).expect(303);
  const page = await mock.get(sent.headers.location!).expect(200);
  const interviewId = /partner_interview_id <code>([^<]+)<\/code>/.exec(page.text)?.[1];
  if (!interviewId || !/^[0-9a-f-]{36}$/.test(interviewId)) throw new Error(`no partner_interview_id on the candidate page:\n${page.text}`);
  return interviewId;
}

/**
 * `npm run dev` as a function: both servers on ports the system picks, quiet, the partner's
 * database at `databasePath`; `env` adds settings.
 */
export function startDev(databasePath: string, env: Record<string, string> = {}) {
  return startSandbox({ PATH: process.env.PATH, DATABASE_PATH: databasePath, PORT: '0', MOCK_PORT: '0', LOG_LEVEL: 'silent', ...env });
}
