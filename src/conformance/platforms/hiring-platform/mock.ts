import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { PARTNER_SECRET_HEADER, TERMINAL_REPORT_STATUSES, type PartnerKind } from '../../../contract/decisions.js';
import { parseJsonAnswer } from '../../../contract/partner-calls.js';
import { Partner, ReportUpdate, TestItem, type PartnerRequest } from '../../../contract/schemas.js';
import { SEED_API_TOKENS, SEED_CANDIDATES } from '../../../mock-platform/seed.js';
import { startMockPlatform } from '../../../mock-platform/server.js';
import type { Answer, Exchange } from '../../probe.js';
import { ConformanceSetupError } from '../../run.js';
import type { Check, Verdict } from '../../types.js';
import { COMPANY_A, CONCURRENT_SENDS, sameAnswers } from './callback-checks.js';
import type { PlatformOptions, PlatformSettings, Targets, Tokens } from './types.js';

/**
 * --mock: the bundled mock platform, started in this process, stands in for the platform. The
 * partner is registered there, integrated by company 1 with token A, and sent candidates through
 * the mock's marketplace — the platform's own calls — and the report updates it sends back
 * (platform-contract.md §3.2) are read from the mock's call log.
 */

/** Company 1 (Acme Corp) of the mock's seed registers the partner and integrates it. */
const ACME = SEED_API_TOKENS.find((t) => t.companyId === COMPANY_A)!;
const candidate = (name: string) => SEED_CANDIDATES.find((c) => c.companyId === COMPANY_A && c.name === name)!.id;
/** The candidate sent in the flow, and the one sent many times at once. */
const FLOW_CANDIDATE = candidate('Grace Hopper');
const CONCURRENT_CANDIDATE = candidate('Alan Turing');

/** How long a partner may stay quiet before the updates of a report are taken as complete. */
const QUIET_MS = 500;
/** Where the callbacks point before the partner under test tells where it runs (nothing listens on port 1). */
const PENDING = 'http://127.0.0.1:1/pending';
const MARKETPLACE_TIMEOUT_MS = 30_000;

/** An entry of the mock's call log (GET /_mock/calls). */
const Call = z.object({
  id: z.number(),
  endpoint: z.string(),
  report_id: z.string().nullable(),
  request_headers: z.record(z.string(), z.string()),
  request_body: z.string().nullable(),
  response_status: z.number().nullable(),
  response_body: z.string().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number(),
});
type Call = z.infer<typeof Call>;

export interface RunningPlatform {
  url: string;
  settings: PlatformSettings;
  /** Registers the record again with these callback URLs (the secret stays the same). */
  register(targets: Targets): Promise<void>;
  /**
   * Tells the mock of a send the checker is about to make as the platform (its send_candidate
   * body), as its marketplace records a report before it calls: the partner's updates about that
   * report are then taken, not answered 404 (which a kit partner answers by canceling it).
   */
  sending(body: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

/** The mock could not start, or refused the partner's record or a report: the run stops before it sends anything. */
export class PlatformSetupError extends ConformanceSetupError {
  constructor(message: string) {
    super(message);
    this.name = 'PlatformSetupError';
  }
}

async function api(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, dispatcher?: Dispatcher) {
  const res = await request(base + path, {
    method: method as 'GET',
    headers: { accept: 'application/json', ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(MARKETPLACE_TIMEOUT_MS),
    ...(dispatcher && { dispatcher }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, text, json: parseJsonAnswer(text) };
}

const errorOf = (json: unknown) => (json as { error?: unknown } | undefined)?.error;

function recordOf(options: PlatformOptions, kind: PartnerKind, targets: Targets | undefined): PartnerRequest {
  const urls = targets ?? { validateToken: `${PENDING}/validate_token`, tests: `${PENDING}/tests`, sendCandidate: `${PENDING}/send_candidate` };
  return {
    kind,
    name: options.record?.name ?? 'Conformance check',
    ...(options.record?.description && { description: options.record.description }),
    urls: {
      help_article: options.record?.helpArticle ?? `${new URL(urls.validateToken).origin}/`,
      validate_token: urls.validateToken,
      tests: urls.tests,
      send_candidate: urls.sendCandidate,
    },
  };
}

/** Starts the mock and registers the partner for company 1; throws a PlatformSetupError if it cannot. */
export async function startPlatform(options: PlatformOptions, kind: PartnerKind, targets: Targets | undefined): Promise<RunningPlatform> {
  let mock: Awaited<ReturnType<typeof startMockPlatform>>;
  try {
    mock = await startMockPlatform({ port: options.port ?? 0, logLevel: 'silent', webhookWorker: false });
  } catch (err) {
    const e = err as { code?: string; message?: string };
    throw new PlatformSetupError(`Could not start the mock platform on port ${options.port ?? 0}: ${e.code ?? e.message ?? String(err)}`);
  }
  const register = async (t: Targets | undefined): Promise<string> => {
    const res = await api(mock.url, 'POST', `/api/p/${encodeURIComponent(options.codename)}/c/${ACME.companyId}/partner`, recordOf(options, kind, t), {
      authorization: `Bearer ${ACME.token}`,
    });
    const partner = z.object({ partner: Partner }).safeParse(res.json);
    if ((res.status !== 200 && res.status !== 201) || !partner.success) {
      throw new PlatformSetupError(`The mock platform refused the partner record (${res.status}): ${String(errorOf(res.json) ?? res.text)}`);
    }
    return partner.data.partner.secret;
  };
  try {
    const secret = await register(targets);
    return {
      url: mock.url,
      settings: { PLATFORM_URL: mock.url, PARTNER_CODENAME: options.codename, PARTNER_SECRET: secret },
      register: async (t) => void (await register(t)),
      sending: async (body) => {
        const { report_id, company_id, candidate_id, test_id, test_name } = body;
        const res = await api(mock.url, 'POST', '/_mock/reports', { report_id, codename: options.codename, company_id, candidate_id, test_id, test_name });
        if (res.status !== 200 && res.status !== 201) {
          throw new PlatformSetupError(`The mock platform did not record the report ${String(report_id)} (${res.status}): ${String(errorOf(res.json) ?? res.text)}`);
        }
      },
      close: () => mock.close(),
    };
  } catch (err) {
    await mock.close();
    throw err;
  }
}

export interface PlatformContext {
  url: string;
  codename: string;
  kind: PartnerKind;
  tokens: Tokens;
  updateTimeoutMs: number;
  dispatcher?: Dispatcher;
  state: {
    tests?: TestItem[];
    flowReport?: string;
    flowSentAt?: number;
    /** Updates carrying `urls` that the flow's report got before it was canceled: one invitation's worth. */
    urlUpdatesOfOne?: number;
    /** The flow report's `urls.cancel`, if the partner gives one: cancelling through it is optional (§4.4). */
    cancelUrl?: string;
    concurrentReport?: string;
  };
}

const marketplace = (ctx: PlatformContext, method: string, path: string, body?: unknown) =>
  api(ctx.url, method, `/api/marketplace/c/${COMPANY_A}${path}`, body, {}, ctx.dispatcher);

async function callsOf(ctx: PlatformContext, query: Record<string, string>): Promise<Call[]> {
  const res = await api(ctx.url, 'GET', `/_mock/calls?${new URLSearchParams({ order: 'asc', limit: '1000', ...query })}`, undefined, {}, ctx.dispatcher);
  return z.object({ calls: z.array(Call) }).parse(res.json).calls;
}

/** The partner's report updates for a report, oldest first. */
const updatesOf = (ctx: PlatformContext, reportId: string) =>
  callsOf(ctx, { direction: 'inbound', endpoint: 'reports.update', report_id: reportId });

const bodyOf = (call: Call): Record<string, unknown> => {
  const json = parseJsonAnswer(call.request_body ?? undefined);
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
};
const urlsOf = (call: Call) => bodyOf(call).urls as Record<string, unknown> | undefined;

/** Polls the report's updates until `done` says they are complete, or the time is up. */
async function waitForUpdates(ctx: PlatformContext, reportId: string, done: (updates: Call[]) => boolean): Promise<{ updates: Call[]; ms: number }> {
  const started = performance.now();
  for (;;) {
    const updates = await updatesOf(ctx, reportId);
    const ms = performance.now() - started;
    if (done(updates) || ms > ctx.updateTimeoutMs) return { updates, ms };
    await sleep(50);
  }
}

/** The updates once none came for QUIET_MS (after at least one), or `enough` says so, or the time is up. */
async function settledUpdates(ctx: PlatformContext, reportId: string, enough: (updates: Call[]) => boolean = () => false): Promise<Call[]> {
  let last = -1;
  let since = performance.now();
  const { updates } = await waitForUpdates(ctx, reportId, (u) => {
    if (enough(u)) return true;
    if (u.length !== last) {
      last = u.length;
      since = performance.now();
    }
    return u.length > 0 && performance.now() - since >= QUIET_MS;
  });
  return updates;
}

const needs = (what: string): Verdict => ({ ok: false, detail: `needs ${what}` });
/** A check that builds on an earlier one runs only when that one gave it what it needs. */
const needsTests = (ctx: PlatformContext) => ((ctx.state.tests?.length ?? 0) > 0 ? true : 'needs a test from platform.tests');
const needsFlowReport = (ctx: PlatformContext) => (ctx.state.flowReport ? true : 'needs a report from platform.send');
const needsCancelUrl = (ctx: PlatformContext) =>
  !ctx.state.flowReport ? 'needs a report from platform.send' : ctx.state.cancelUrl ? true : 'the partner gives no urls.cancel, which is optional (§4.4)';

const updatePath = (ctx: PlatformContext, reportId: string) => `PATCH /api/p/${ctx.codename}/reports/${reportId}`;

const REPORT_FIELDS = new Set(Object.keys(ReportUpdate.shape));

/** Why the platform did not take an update as the partner's (§3.2), or undefined. */
function secretProblem(call: Call): string | undefined {
  if (!(PARTNER_SECRET_HEADER in call.request_headers)) {
    return `no ${PARTNER_SECRET_HEADER.toUpperCase()} header${'authorization' in call.request_headers ? ' (an Authorization header instead)' : ''}`;
  }
  if (call.response_status === 401) return `the platform refused the secret (401: ${String(errorOf(parseJsonAnswer(call.response_body ?? undefined)))})`;
  return undefined;
}

/** What is wrong with an update's body (§3.2), whatever the platform answered about the secret. */
function fieldProblems(call: Call, kind: PartnerKind): string[] {
  const body = bodyOf(call);
  const problems: string[] = [];
  const unknown = Object.keys(body).filter((k) => !REPORT_FIELDS.has(k));
  if (unknown.length > 0) problems.push(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
  const parsed = ReportUpdate.safeParse(body);
  if (!parsed.success) problems.push(...parsed.error.issues.map((i) => `${i.path.join('.') || 'body'} ${i.message}`));
  if (kind !== 'assessment') {
    const only = ['subtitle', 'properties'].filter((k) => k in body);
    if (only.length > 0) problems.push(`${only.join(' and ')} from a ${kind} partner (assessment partners only)`);
  }
  if (problems.length === 0 && call.response_status === 422) {
    problems.push(`the platform refused it: ${String(errorOf(parseJsonAnswer(call.response_body ?? undefined)))}`);
  }
  return problems;
}

/** The platform's calls to the partner, as exchanges for the checks over every answer. */
export async function platformExchanges(ctx: PlatformContext): Promise<Exchange[]> {
  const calls = await callsOf(ctx, { direction: 'outbound', codename: ctx.codename });
  return calls.map((c) => ({
    label: `platform → ${c.endpoint}`,
    ...(c.response_status !== null && { status: c.response_status }),
    ...(c.response_body !== null && { text: c.response_body, json: parseJsonAnswer(c.response_body) }),
    durationMs: c.duration_ms,
    ...(c.error !== null && { error: c.error, timedOut: c.error.startsWith('timed out') }),
  }));
}

/** The partner's answers to the mock's calls, as the checker's answers, to compare them. */
const asAnswer = (c: Call): Answer =>
  c.response_status === null
    ? { ok: false, durationMs: c.duration_ms, timedOut: false, error: c.error ?? 'no answer', json: undefined, label: c.endpoint }
    : {
        ok: true,
        status: c.response_status,
        headers: {},
        text: c.response_body ?? '',
        durationMs: c.duration_ms,
        json: parseJsonAnswer(c.response_body ?? undefined),
        label: c.endpoint,
      };

export const PLATFORM_CHECKS: readonly Check<PlatformContext>[] = [
  {
    id: 'platform.integrate',
    section: '§4.1',
    name: 'the platform integrates the partner for company 1 with token A',
    run: async (ctx) => {
      const res = await marketplace(ctx, 'POST', `/partners/${ctx.codename}/integration`, { token: ctx.tokens.a });
      return res.status === 200 || res.status === 201
        ? { ok: true, detail: String(res.status) }
        : { ok: false, detail: `${res.status}: ${String(errorOf(res.json) ?? res.text)}` };
    },
  },
  {
    id: 'platform.tests',
    section: '§4.2',
    name: "the platform lists the partner's tests",
    run: async (ctx) => {
      const res = await marketplace(ctx, 'GET', `/partners/${ctx.codename}/tests`);
      const tests = z.object({ tests: z.array(TestItem) }).safeParse(res.json);
      if (res.status !== 200 || !tests.success) return { ok: false, detail: `${res.status}: ${String(errorOf(res.json) ?? res.text)}` };
      ctx.state.tests = tests.data.tests;
      const n = tests.data.tests.length;
      return n > 0 ? { ok: true, detail: `${n} test${n === 1 ? '' : 's'}` } : { ok: false, detail: 'no tests to send' };
    },
  },
  {
    id: 'platform.send',
    section: '§4.3',
    name: 'the platform sends a candidate and shows the report',
    applies: needsTests,
    run: async (ctx) => {
      const test = ctx.state.tests![0]!;
      const reportId = randomUUID();
      ctx.state.flowSentAt = performance.now();
      const res = await marketplace(ctx, 'POST', `/partners/${ctx.codename}/send`, {
        candidate_id: FLOW_CANDIDATE,
        test_id: String(test.id),
        test_name: test.name,
        report_id: reportId,
      });
      if (res.status !== 201) return { ok: false, detail: `${res.status}: ${String(errorOf(res.json) ?? res.text)}` };
      ctx.state.flowReport = reportId;
      return { ok: true, detail: `report ${reportId}` };
    },
  },
  {
    id: 'platform.update_received',
    section: '§3.2',
    name: 'the partner sends a report update to PATCH /api/p/{codename}/reports/{report_id}',
    applies: needsFlowReport,
    run: async (ctx) => {
      const reportId = ctx.state.flowReport!;
      const { updates } = await waitForUpdates(ctx, reportId, (u) => u.length > 0);
      const ms = performance.now() - (ctx.state.flowSentAt ?? 0);
      return updates.length > 0
        ? { ok: true, detail: `the first ${Math.round(ms)} ms after the send` }
        : { ok: false, detail: `no ${updatePath(ctx, reportId)} within ${ctx.updateTimeoutMs / 1000} s: is the partner's PLATFORM_URL this mock, with this codename?` };
    },
  },
  {
    id: 'platform.cancel_url',
    section: '§4.4',
    name: 'a urls.cancel the report is given is an absolute URL (a partner may give none: §4.4)',
    applies: needsFlowReport,
    run: async (ctx) => {
      const reportId = ctx.state.flowReport!;
      // Until urls.cancel comes, or the partner has sent its updates and gone quiet: it may never come.
      const updates = await settledUpdates(ctx, reportId, (u) => u.some((c) => urlsOf(c)?.cancel !== undefined));
      const cancel = updates.map((c) => urlsOf(c)?.cancel).find((u) => u !== undefined);
      ctx.state.urlUpdatesOfOne = updates.filter((c) => urlsOf(c) !== undefined).length;
      if (cancel === undefined) return { ok: true, detail: `none in ${updates.length} updates: only the partner can cancel; the cancel checks do not run` };
      if (!z.url({ protocol: /^https?$/ }).safeParse(cancel).success) return { ok: false, detail: `not an absolute http(s) URL: ${JSON.stringify(cancel)}` };
      ctx.state.cancelUrl = String(cancel);
      return { ok: true, detail: String(cancel) };
    },
  },
  {
    id: 'platform.cancel',
    section: '§4.4',
    name: 'the platform cancels through urls.cancel and the partner answers 2xx',
    applies: needsCancelUrl,
    run: async (ctx) => {
      const reportId = ctx.state.flowReport!;
      const res = await marketplace(ctx, 'POST', `/reports/${reportId}/cancel`);
      const [call] = (await callsOf(ctx, { direction: 'outbound', endpoint: 'cancel', report_id: reportId })).slice(-1);
      const partner = call ? (call.response_status ?? call.error ?? 'no answer') : 'not called';
      return res.status === 202
        ? { ok: true, detail: `the partner answered ${partner}` }
        : { ok: false, detail: `${res.status}: ${String(errorOf(res.json) ?? res.text)} (the partner answered ${partner})` };
    },
  },
  {
    id: 'platform.canceled_update',
    section: '§4.4',
    name: 'after the cancel the partner updates the report to canceled',
    applies: needsCancelUrl,
    run: async (ctx) => {
      const reportId = ctx.state.flowReport!;
      const { updates, ms } = await waitForUpdates(ctx, reportId, (u) => u.some((c) => bodyOf(c).status === 'canceled'));
      if (!updates.some((c) => bodyOf(c).status === 'canceled')) {
        return { ok: false, detail: `no update with status canceled within ${ctx.updateTimeoutMs / 1000} s` };
      }
      return { ok: true, detail: `${Math.round(ms)} ms after the cancel` };
    },
  },
  {
    id: 'platform.concurrent',
    section: '§4.3',
    name: `${CONCURRENT_SENDS} sends of one report at once: one answer, one report, one invitation`,
    applies: needsTests,
    run: async (ctx) => {
      const test = ctx.state.tests![0]!;
      const reportId = randomUUID();
      ctx.state.concurrentReport = reportId;
      const body = { candidate_id: CONCURRENT_CANDIDATE, test_id: String(test.id), test_name: test.name, report_id: reportId };
      await Promise.all(Array.from({ length: CONCURRENT_SENDS }, () => marketplace(ctx, 'POST', `/partners/${ctx.codename}/send`, body)));

      const calls = await callsOf(ctx, { direction: 'outbound', endpoint: 'send_candidate', report_id: reportId });
      if (calls.length !== CONCURRENT_SENDS) return { ok: false, detail: `the platform made ${calls.length} calls, expected ${CONCURRENT_SENDS}` };
      const answers = sameAnswers(calls.map(asAnswer));
      if (!answers.ok) return answers;

      const candidates = await marketplace(ctx, 'GET', '/candidates');
      const reports = z
        .object({ candidates: z.array(z.object({ id: z.number(), reports: z.array(z.object({ id: z.string() })) })) })
        .parse(candidates.json)
        .candidates.find((c) => c.id === CONCURRENT_CANDIDATE)!
        .reports.filter((r) => r.id === reportId);
      if (reports.length !== 1) return { ok: false, detail: `${reports.length} reports on the platform` };

      // One invitation: its links once, as for the single send above, not once per call.
      const updates = await settledUpdates(ctx, reportId);
      const withUrls = updates.filter((c) => urlsOf(c) !== undefined);
      const links = new Set(withUrls.map((c) => JSON.stringify(urlsOf(c))));
      const expected = Math.max(1, ctx.state.urlUpdatesOfOne ?? 1);
      if (links.size > 1 || withUrls.length > expected) {
        return { ok: false, detail: `${withUrls.length} updates with urls (${links.size} different), as from several invitations` };
      }
      return { ok: true, detail: `${answers.detail}; 1 report; ${updates.length} update${updates.length === 1 ? '' : 's'}` };
    },
  },
  {
    id: 'platform.update_secret',
    section: '§3.2',
    name: 'every report update carries the partner secret in RT-PARTNER-SECRET',
    run: async (ctx) => {
      const updates = await allUpdates(ctx);
      if (updates.length === 0) return needs('report updates');
      const refused = updates.map(secretProblem).filter((p) => p !== undefined);
      if (refused.length === 0) return { ok: true, detail: `${updates.length} updates` };
      return { ok: false, detail: `${refused.length} of ${updates.length}: ${refused[0]}` };
    },
  },
  {
    id: 'platform.update_fields',
    section: '§3.2',
    name: 'every report update has only the contract fields, valid for the partner kind',
    run: async (ctx) => {
      const updates = await allUpdates(ctx);
      if (updates.length === 0) return needs('report updates');
      // A body the platform refused before reading (a wrong secret) is not in its log.
      const read = updates.filter((c) => c.request_body !== null);
      const unread = updates.length - read.length;
      if (read.length === 0) return { ok: false, detail: `the platform read none of the ${updates.length} updates: see platform.update_secret` };
      const problems = read.map((c) => fieldProblems(c, ctx.kind)).filter((p) => p.length > 0);
      const note = unread > 0 ? ` (${unread} refused unread)` : '';
      return problems.length === 0
        ? { ok: true, detail: `${read.length} updates, each valid${note}` }
        : { ok: false, detail: `${problems.length} of ${read.length}${note}: ${problems[0]!.join('; ')}` };
    },
  },
  {
    id: 'platform.update_order',
    section: '§5',
    name: 'report updates keep the lifecycle order, and a report canceled through urls.cancel ends canceled',
    applies: needsFlowReport,
    run: async (ctx) => {
      const reportId = ctx.state.flowReport!;
      const statuses = (await updatesOf(ctx, reportId)).map((c) => bodyOf(c).status).filter((s): s is string => typeof s === 'string');
      const terminal = statuses.findIndex((s) => (TERMINAL_REPORT_STATUSES as readonly string[]).includes(s));
      if (terminal !== -1 && statuses.slice(terminal).includes('sent')) return { ok: false, detail: `statuses in order: ${statuses.join(' → ')}` };
      if (!ctx.state.cancelUrl) return { ok: true, detail: statuses.length > 0 ? `${statuses.join(' → ')} (not canceled: no urls.cancel)` : 'no status yet' };
      const report = await marketplace(ctx, 'GET', `/reports/${reportId}`);
      const status = (report.json as { report?: { status?: unknown } } | undefined)?.report?.status;
      return status === 'canceled'
        ? { ok: true, detail: statuses.length > 0 ? statuses.join(' → ') : 'canceled' }
        : { ok: false, detail: `the report is ${String(status)} on the platform (updates: ${statuses.join(' → ') || 'none with a status'})` };
    },
  },
];

async function allUpdates(ctx: PlatformContext): Promise<Call[]> {
  const ids = [ctx.state.flowReport, ctx.state.concurrentReport].filter((id): id is string => id !== undefined);
  return (await Promise.all(ids.map((id) => updatesOf(ctx, id)))).flat();
}
