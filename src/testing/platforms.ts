/**
 * The platforms the mock plays, as a test (and `npm run dev`) drives them: each plugin's sandbox
 * company connected to the partner, and its recruiter — list the partner's tests, send one, read
 * what the platform shows — through the mock's JSON routes (`/_mock/platforms/{name}/…`), never
 * its pages. The hiring platform's recruiter is the marketplace API (`/api/marketplace/…`); the
 * harness gives both the one shape, `PlatformDriver`.
 */
import { request } from 'undici';
import { accountsCli } from '../../scripts/accounts.js';
import type { PlatformPlugin } from '../mock-platform/platforms/plugin.js';
import type { PlatformDefinition } from '../partner/index.js';

/** A test sent from a platform, as that platform shows it now. */
export interface PlatformReport {
  /** The kit's report id: what your product posts the result for. */
  id: string;
  /** In the platform's own words: the hiring platform's report status, Greenhouse's `partner_status`, … */
  status: string;
  /** The platform holds the result, by its own rule (the hiring platform: completed or failed; Greenhouse: `complete`). */
  complete: boolean;
  /** As the platform shows it: the hiring platform's badge text, Greenhouse's number; null until there is one. */
  score: number | string | null;
  /** Where the platform links the results (the hiring platform's `urls.show`, Greenhouse's `partner_profile_url`). */
  resultsUrl: string | null;
  /** The result's other values the platform shows (the hiring platform's subtitle and properties, Greenhouse's metadata). */
  details: Record<string, string | number | boolean | null>;
}

/** A platform's recruiter, as a test drives it: the same calls to your partner as the platform makes. */
export interface PlatformDriver {
  /** The partner's name for the platform: `hiring-platform`, `greenhouse`, … */
  readonly name: string;
  /** The tests the platform lists for your partner (it calls your partner as it does). */
  listTests(): Promise<{ id: string; name: string }[]>;
  /**
   * A recruiter sends the test to a candidate of the platform's sandbox company (its first unless
   * `candidateId`); the report id. Named as listed unless `testName` is given.
   */
  send(testId: string | number, options?: { testName?: string; candidateId?: string }): Promise<string>;
  /** The report as the platform shows it now. */
  status(reportId: string): Promise<PlatformReport>;
  /**
   * The report once `until` holds for it (by default: the platform holds the result); rejects
   * after `timeoutMs` (default 2 minutes: an outer limit a busy machine does not reach).
   */
  waitForStatus(reportId: string, until?: (report: PlatformReport) => boolean, timeoutMs?: number): Promise<PlatformReport>;
}

/** How connecting a platform's sandbox company to the partner went. */
export type Connection = { ok: true } | { ok: false; message: string };

/**
 * Connects the sandbox company of each plugin to the partner, as that platform's customer does
 * (`POST /_mock/platforms/{name}/connect`, the plugin's `connect`), with the customer's token; a
 * credential the platform gives the customer for the partner (Ashby's API key) is stored with
 * `setCredential`. By plugin name.
 */
export async function connectPlatforms(options: {
  mockUrl: string;
  plugins: readonly PlatformPlugin[];
  partner: { url: string; name: string; token: string };
  setCredential: CredentialSetter;
}): Promise<Record<string, Connection>> {
  const connected: Record<string, Connection> = {};
  for (const { name } of options.plugins) {
    // The company is the account's before it connects: a platform whose install names only the
    // company (Bob's) then reaches this account, with its catalog, not a new one.
    const described = await json('GET', `${options.mockUrl}/_mock/platforms/${name}`);
    const company = (described.body as { platform?: { company?: { id?: string } } }).platform?.company?.id;
    if (company !== undefined && options.setCredential.connectCompany) {
      try {
        await options.setCredential.connectCompany(name, company);
      } catch (err) {
        connected[name] = { ok: false, message: `its company could not be linked to the account: ${(err as Error).message}` };
        continue;
      }
    }
    const res = await json('POST', `${options.mockUrl}/_mock/platforms/${name}/connect`, {
      partner_url: options.partner.url,
      partner_name: options.partner.name,
      token: options.partner.token,
    });
    const body = res.body as { error?: string; credential?: string };
    if (res.status >= 300) {
      connected[name] = { ok: false, message: `the mock refused it ("${body.error ?? res.status}")` };
      continue;
    }
    try {
      if (body.credential !== undefined) await options.setCredential(name, body.credential);
      connected[name] = { ok: true };
    } catch (err) {
      connected[name] = { ok: false, message: `its credential could not be stored: ${(err as Error).message}` };
    }
  }
  return connected;
}

/**
 * Stores a platform's credential on a customer account, as `npm run accounts -- credential set
 * <account-id> <platform>` does, in this process: `env` the partner's settings (its database, its
 * CANDIDATE_LINK_SECRET), `platforms` those the partner speaks.
 */
export function credentialSetter(options: { env: Record<string, string | undefined>; accountId: number; platforms: readonly PlatformDefinition[] }): CredentialSetter {
  const accounts = async (args: string[]) => {
    let stderr = '';
    const code = await accountsCli([...args, '--json'], {
      stdout: () => undefined,
      stderr: (text) => (stderr += text),
      env: options.env,
      platforms: async () => options.platforms,
    });
    if (code !== 0) throw new Error(stderr.trim() || `npm run accounts -- ${args[0]} exited ${code}`);
  };
  const setter: CredentialSetter = (platform, secret) => accounts(['credential', 'set', String(options.accountId), platform, secret]);
  // As `npm run accounts -- connect <account-id> <platform> <company-id>` does.
  setter.connectCompany = (platform, companyId) => accounts(['connect', String(options.accountId), platform, companyId]);
  return setter;
}

/**
 * Stores a platform's credential on the customer account; with `connectCompany`, links a
 * platform's company to it first (what an operator does before a marketplace install).
 */
export interface CredentialSetter {
  (platform: string, secret: string): Promise<void>;
  connectCompany?(platform: string, companyId: string): Promise<void>;
}

/** The report of a plugin's `/_mock/platforms/{name}/reports/{id}`, as it comes. */
interface WireReport {
  id: string;
  status: string;
  complete: boolean;
  score: number | string | null;
  results_url: string | null;
  details: Record<string, string | number | boolean | null>;
}

/** A plugin's recruiter, through the mock's `/_mock/platforms/{name}/…`. */
export function pluginDriver(mockUrl: string, name: string): PlatformDriver {
  const base = `${mockUrl}/_mock/platforms/${encodeURIComponent(name)}`;
  const driver: PlatformDriver = {
    name,
    async listTests() {
      const res = await json('GET', `${base}/tests`);
      if (res.status !== 200) throw new Error(`${name} could not list the tests (${res.status}): ${JSON.stringify(res.body)}`);
      return (res.body as { tests: { id: string; name: string }[] }).tests;
    },
    async send(testId, options = {}) {
      const res = await json('POST', `${base}/sends`, { test_id: String(testId), test_name: options.testName, candidate_id: options.candidateId });
      if (res.status !== 201) throw new Error(`The send from ${name} failed (${res.status}): ${JSON.stringify(res.body)}`);
      return (res.body as { report: WireReport }).report.id;
    },
    async status(reportId) {
      const res = await json('GET', `${base}/reports/${encodeURIComponent(reportId)}`);
      if (res.status !== 200) throw new Error(`No report ${reportId} on ${name} (${res.status})`);
      const r = (res.body as { report: WireReport }).report;
      return { id: r.id, status: r.status, complete: r.complete, score: r.score, resultsUrl: r.results_url, details: r.details };
    },
    waitForStatus: (reportId, until, timeoutMs) => waitFor(() => driver.status(reportId), until ?? ((r) => r.complete), timeoutMs, `Report ${reportId} on ${name}`),
  };
  return driver;
}

/** `read()` until `until` holds for what it answers, every 50 ms; rejects after `timeoutMs` (default 2 minutes). */
export async function waitFor<T>(read: () => Promise<T>, until: (value: T) => boolean, timeoutMs = 120_000, what = 'It'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (until(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not get there within ${timeoutMs} ms; it is ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A JSON request; `body` a value, or the raw text to send. The status and the parsed answer. */
export async function json(method: 'GET' | 'POST', url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method,
    headers: { accept: 'application/json', ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the text as it came.
  }
  return { status: res.statusCode, body: parsed };
}
