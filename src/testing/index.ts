/**
 * The test harness for a fork's provider: the bundled mock platform and a partner running your
 * provider, in the test's process, on ports the system picks, registered and integrated — the
 * state right before a recruiter's first send — and the calls a test makes from there:
 *
 *   import { startHarness } from '../testing/index.js';
 *   import provider from './index.js';
 *
 *   const harness = await startHarness({ provider });
 *   const [test] = await harness.listTests();              // the platform asks your partner
 *   const reportId = await harness.send(test!.id);         // a recruiter sends Ada the test
 *   await harness.postResult(reportId, { status: 'completed', score: '87%' }); // your product, signed
 *   await harness.waitForReport(reportId, (r) => r.status === 'completed');    // the platform's view
 *   await harness.close();
 *
 * Every platform the mock plays is driven the same way, by its name (`harness.platforms` lists
 * them: the hiring platform, then each plugin of the mock — Greenhouse, …), each company already
 * connected to your partner with the same customer account:
 *
 *   const greenhouse = harness.platform('greenhouse');
 *   const [first] = await greenhouse.listTests();          // Greenhouse calls your list_tests
 *   const id = await greenhouse.send(first!.id);           // … and send_test, for its candidate
 *   await harness.postResult(id, { status: 'completed', score: '87%' });
 *   (await greenhouse.waitForStatus(id)).score;            // 87, as Greenhouse shows it
 *
 * Tests of your provider go beside it, as `src/provider/**\/*.test.ts`: `npm test` runs them, and
 * `npx vitest run src/provider` runs them alone. The harness is for tests only: it imports the
 * mock platform, which is never deployed, so the build leaves it out (tsconfig.build.json).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { accountsCli } from '../../scripts/accounts.js';
import { DEFAULT_MANIFEST, loadManifest, registerPartner } from '../../scripts/register-partner.js';
import type { Report } from '../contract/schemas.js';
import { mockPlatforms } from '../mock-platform/platforms/index.js';
import type { PlatformPlugin } from '../mock-platform/platforms/plugin.js';
import { startMockPlatform } from '../mock-platform/server.js';
import { SEED_API_TOKENS, SEED_CANDIDATES, SEED_COMPANIES } from '../mock-platform/seed.js';
import {
  loadConfig,
  platformsOf,
  signVendorResult,
  startPartner,
  VENDOR_SIGNATURE_HEADER,
  type PartnerRoutes,
  type PlatformDefinition,
  type ProviderSource,
  type RunningPartner,
  type WebhookHandler,
} from '../partner/index.js';
import { connectPlatforms, credentialSetter, json, pluginDriver, waitFor, type PlatformDriver, type PlatformReport } from './platforms.js';

export type { PlatformDriver, PlatformReport } from './platforms.js';
// A platform of your own, played by the mock in your tests (`mockPlatforms`): how it is written.
export { definePlatformPlugin } from '../mock-platform/platforms/plugin.js';
export type { Connected, PlatformPlugin, PlatformSide, PluginSetup, ScriptedPlatform, ScriptedReport, ScriptOutcome } from '../mock-platform/platforms/plugin.js';

/** The partner's name for the hiring platform of docs/platform-contract.md, which the mock is. */
const HIRING_PLATFORM = 'hiring-platform';

/** The sandbox company the harness integrates (Acme Corp) and the candidate it sends tests to (Ada Lovelace). */
const COMPANY = SEED_COMPANIES[0];
const API_TOKEN = SEED_API_TOKENS.find((t) => t.companyId === COMPANY.id)!.token;
const CANDIDATE = SEED_CANDIDATES.find((c) => c.companyId === COMPANY.id)!;

export interface HarnessOptions {
  /** Your provider, as src/provider/index.ts default-exports it. */
  provider: ProviderSource;
  webhookHandlers?: Readonly<Record<string, WebhookHandler>>;
  routes?: PartnerRoutes;
  /** Platforms of your own, as `src/provider/index.ts` exports them in `platforms` (docs/platforms.md). */
  platforms?: readonly PlatformDefinition[];
  /**
   * The mock's side of your own platforms (a plugin each, `definePlatformPlugin`; the mock's
   * README says what one brings), played beside the kit's, so that `harness.platform(name)` drives
   * them too.
   */
  mockPlatforms?: readonly PlatformPlugin[];
  /** Tests added to the fresh customer account's catalog (`npm run accounts -- create … --test`); the provider needs a `catalog`. */
  tests?: readonly string[];
  /** The partner record registered: scripts/partner-manifest.json unless given. Its `kind` is the partner's PARTNER_KIND. */
  manifest?: string;
  /** The codename registered on the mock platform (default `harness-partner`). */
  codename?: string;
  /**
   * More settings, as in `.env`: the partner's (LOG_LEVEL=info to see its log, say) and your
   * provider's own. They are in `process.env` from the start of `startHarness` until `close()`,
   * which puts back what was there, so a provider that reads `process.env.X` when it is built or
   * called sees them. A module that reads a setting as it is imported has read it already: set that
   * one before the import (vitest's `env` option, or a setup file).
   */
  env?: Record<string, string>;
}

export interface Harness {
  /** The mock platform's address (its sandbox UI and API). */
  platformUrl: string;
  /** The partner as `startPartner` returns it: `publicUrl`, and `reports` for results pushed in process. */
  partner: RunningPartner;
  /** The customer account the company integrated with, and its token; every platform's company is connected with it. */
  account: { id: number; token: string };
  /**
   * The platforms a test can send through, by name: `hiring-platform` (the mock's marketplace, as
   * `listTests`/`send`/`report` below), then each the mock plays (`greenhouse`, …, and yours).
   */
  platforms: readonly string[];
  /** A platform's recruiter (`platforms` names them): list, send, and the report as that platform shows it. */
  platform(name: string): PlatformDriver;
  /** The tests the platform lists for your partner: it calls your `tests` callback. */
  listTests(): Promise<{ id: number | string; name: string }[]>;
  /** A recruiter sends the candidate `testId` (named as listed, unless `testName` is given); the report id. */
  send(testId: number | string, testName?: string): Promise<string>;
  /**
   * A recruiter cancels the report on the platform, which calls the partner's `urls.cancel` (the
   * report's first update must have reached the platform: `waitForReport` for `urls.cancel` first).
   * Your provider's `cancelInvitation` is called afterwards, from the partner's background loop.
   */
  cancel(reportId: string): Promise<void>;
  /** The report as the platform shows it. */
  report(reportId: string): Promise<Report>;
  /** The report once `until` holds for it, as the platform shows it; rejects after `timeoutMs` (default 2 minutes: an outer limit a busy machine does not reach, as the kit's own tests use). */
  waitForReport(reportId: string, until: (report: Report) => boolean, timeoutMs?: number): Promise<Report>;
  /**
   * Your product posts `body` to `POST /vendor/reports/{reportId}/result`, signed with the partner's
   * VENDOR_RESULTS_SECRET (docs/results-endpoint.md); the partner's answer.
   */
  postResult(reportId: string, body: unknown): Promise<{ status: number; body: unknown }>;
  /** Stops the partner and the platform and removes the partner's database. */
  close(): Promise<void>;
}

/** Starts the mock platform and a partner running `options.provider`, registered, with Acme Corp integrated. */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const codename = options.codename ?? 'harness-partner';
  const manifestFile = options.manifest ?? DEFAULT_MANIFEST;
  const resultsSecret = randomBytes(32).toString('hex');
  // Before anything builds the provider (the account's catalog, then the partner): it may read them.
  const restoreEnv = setProcessEnv(options.env ?? {});
  const dir = mkdtempSync(path.join(tmpdir(), 'harness-'));
  const stops: (() => Promise<void>)[] = [async () => restoreEnv(), async () => rmSync(dir, { recursive: true, force: true })];
  const close = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    const plugins = [...mockPlatforms(), ...(options.mockPlatforms ?? [])];
    const platform = await startMockPlatform({ port: 0, logLevel: 'silent', platforms: plugins });
    stops.push(() => platform.close());
    const api = (method: 'GET' | 'POST', route: string, body?: unknown) => json(method, `${platform.url}/api/marketplace/c/${COMPANY.id}${route}`, body);
    const register = async (publicUrl: string) => {
      const result = await registerPartner({
        platformUrl: platform.url,
        codename,
        companyId: COMPANY.id,
        apiToken: API_TOKEN,
        partner: loadManifest(manifestFile, publicUrl),
      });
      if (!result.ok) throw new Error(`The platform refused the registration: ${result.message}`);
      return result.partner;
    };
    // The partner needs its secret before it starts, and knows its port only once it listens.
    const registered = await register('http://127.0.0.1:0');
    const env: Record<string, string> = {
      DATABASE_PATH: path.join(dir, 'partner.db'),
      PORT: '0',
      LOG_LEVEL: 'silent',
      PLATFORM_URL: platform.url,
      PARTNER_CODENAME: codename,
      PARTNER_SECRET: registered.secret,
      PARTNER_KIND: registered.kind,
      // The name on the candidate's pages and e-mails: the registered manifest's, as in production.
      PARTNER_MANIFEST: manifestFile,
      VENDOR_RESULTS_SECRET: resultsSecret,
      // Each platform the mock plays, reached where the mock plays it (an API base, a token URL).
      ...Object.assign({}, ...plugins.map((p) => p.dev?.partnerSettings?.(platform.url) ?? {})),
      ...options.env,
    };
    const served = platformsOf({ webhookHandlers: options.webhookHandlers, platforms: options.platforms });
    // The customer account, as the vendor creates one: `npm run accounts -- create … --test …`.
    const account = await createAccount(env, options.provider, options.tests ?? []);
    const partner = await startPartner({
      config: loadConfig(env, served),
      provider: options.provider,
      webhookHandlers: options.webhookHandlers,
      routes: options.routes,
      platforms: options.platforms,
      overrides: { pollIntervalMs: 50 },
    });
    stops.push(() => partner.close());
    await register(partner.publicUrl);
    // The company pastes the customer's token: the platform validates it with the partner.
    const integrated = await api('POST', `/partners/${codename}/integration`, { token: account.token });
    if (integrated.status >= 300) throw new Error(`Integration refused (${integrated.status}): ${JSON.stringify(integrated.body)}`);
    // Each other platform's company connects to the partner with the same account's token.
    const connected = await connectPlatforms({
      mockUrl: platform.url,
      plugins,
      partner: { url: partner.publicUrl, name: registered.name, token: account.token },
      setCredential: credentialSetter({ env, accountId: account.id, platforms: served }),
    });
    for (const [name, outcome] of Object.entries(connected)) {
      if (!outcome.ok) throw new Error(`Connecting ${name}'s sandbox company to the partner failed: ${outcome.message}`);
    }
    const drivers = new Map<string, PlatformDriver>(plugins.map((p) => [p.name, pluginDriver(platform.url, p.name)]));

    const harness: Harness = {
      platformUrl: platform.url,
      partner,
      account,
      async listTests() {
        const res = await api('GET', `/partners/${codename}/tests`);
        if (res.status !== 200) throw new Error(`The platform could not list the tests (${res.status}): ${JSON.stringify(res.body)}`);
        return (res.body as { tests: { id: number | string; name: string }[] }).tests;
      },
      async send(testId, testName) {
        const name = testName ?? (await harness.listTests()).find((t) => String(t.id) === String(testId))?.name ?? String(testId);
        const res = await api('POST', `/partners/${codename}/send`, { candidate_id: CANDIDATE.id, test_id: testId, test_name: name });
        if (res.status !== 201) throw new Error(`The send failed (${res.status}): ${JSON.stringify(res.body)}`);
        return (res.body as { report: Report }).report.id;
      },
      async cancel(reportId) {
        const res = await api('POST', `/reports/${encodeURIComponent(reportId)}/cancel`);
        if (res.status !== 202) throw new Error(`The cancel failed (${res.status}): ${JSON.stringify(res.body)}`);
      },
      async report(reportId) {
        const res = await api('GET', `/reports/${encodeURIComponent(reportId)}`);
        if (res.status !== 200) throw new Error(`No report ${reportId} on the platform (${res.status})`);
        return (res.body as { report: Report }).report;
      },
      waitForReport: (reportId, until, timeoutMs) => waitFor(() => harness.report(reportId), until, timeoutMs, `Report ${reportId}`),
      async postResult(reportId, body) {
        const raw = JSON.stringify(body);
        // The one place the harness signs: it signs as the vendor's product must (src/contract/vendor-signature.ts).
        const signature = signVendorResult(env.VENDOR_RESULTS_SECRET!, reportId, raw);
        return json('POST', `${partner.publicUrl}/vendor/reports/${encodeURIComponent(reportId)}/result`, raw, { [VENDOR_SIGNATURE_HEADER]: signature });
      },
      platforms: [HIRING_PLATFORM, ...drivers.keys()],
      platform(name) {
        const driver = name === HIRING_PLATFORM ? hiringPlatformDriver(harness) : drivers.get(name);
        if (!driver) throw new Error(`The mock plays no platform "${name}": it plays ${harness.platforms.join(', ')}`);
        return driver;
      },
      close,
    };
    return harness;
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The settings every live harness put in `process.env`: the value, how many harnesses set it, and
 * what was there before the first did. Harnesses may overlap (a file's, another's in the same
 * worker) as long as they agree; the last to close puts the old value back.
 */
const heldEnv = new Map<string, { value: string; holders: number; before: string | undefined }>();

/**
 * Puts `env` in `process.env`; returns what takes it out again. Throws, setting nothing, when a
 * live harness holds one of the variables with another value: one would run with the other's.
 */
function setProcessEnv(env: Record<string, string>): () => void {
  const clash = Object.entries(env).find(([key, value]) => heldEnv.has(key) && heldEnv.get(key)!.value !== value);
  if (clash) throw new Error(`Another harness still running set ${clash[0]} to another value: close it first, or give both the same`);
  for (const [key, value] of Object.entries(env)) {
    const held = heldEnv.get(key);
    if (held) held.holders += 1;
    else heldEnv.set(key, { value, holders: 1, before: process.env[key] });
    process.env[key] = value;
  }
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    for (const key of Object.keys(env)) {
      const held = heldEnv.get(key)!;
      if (--held.holders > 0) continue;
      heldEnv.delete(key);
      if (held.before === undefined) delete process.env[key];
      else process.env[key] = held.before;
    }
  };
}

/** The account `npm run accounts -- create` creates, in the partner's database, with `tests` in its catalog. */
async function createAccount(env: Record<string, string>, provider: ProviderSource, tests: readonly string[]) {
  let stdout = '';
  let stderr = '';
  const code = await accountsCli(['create', 'Acme Corp', ...tests.flatMap((t) => ['--test', t]), '--json'], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env,
    provider: async () => provider,
  });
  if (code !== 0) throw new Error(`Could not create the customer account: ${stderr.trim()}`);
  return JSON.parse(stdout) as { id: number; token: string };
}

/**
 * The hiring platform's recruiter in the shape of every platform's: the marketplace's list and
 * send (`harness.listTests`, `harness.send`), and its report, read as the others are.
 */
function hiringPlatformDriver(harness: Harness): PlatformDriver {
  const read = (r: Report): PlatformReport => ({
    id: r.id,
    status: r.status,
    complete: r.status === 'completed' || r.status === 'failed',
    score: r.score,
    resultsUrl: r.urls.show ?? null,
    details: Object.fromEntries([...(r.subtitle === null ? [] : [['subtitle', r.subtitle]]), ...r.properties.map((p) => [p.label, p.value])]),
  });
  const driver: PlatformDriver = {
    name: HIRING_PLATFORM,
    listTests: async () => (await harness.listTests()).map((t) => ({ id: String(t.id), name: t.name })),
    send: (testId, options = {}) => {
      if (options.candidateId !== undefined) throw new Error('The harness sends the hiring platform\'s tests to Ada Lovelace only');
      return harness.send(testId, options.testName);
    },
    status: async (reportId) => read(await harness.report(reportId)),
    waitForStatus: (reportId, until, timeoutMs) => waitFor(() => driver.status(reportId), until ?? ((r) => r.complete), timeoutMs, `Report ${reportId}`),
  };
  return driver;
}
