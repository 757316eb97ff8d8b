import { VENDOR_SIGNATURE_HEADER, signVendorResult } from '../../../contract/vendor-signature.js';
import { USER_AGENT, describeAnswer, type Answer, type Probe } from '../../probe.js';
import { RESULT } from '../../results-checks.js';
import type { Check, Verdict } from '../../types.js';
import type { Bob, BobCall, IssuedTokens } from './bob.js';
import {
  ADA,
  ALAN,
  BARBARA,
  BOB_STATUSES,
  EDSGER,
  GRACE,
  KATHERINE,
  MARGARET,
  bobEvent,
  delivery,
  isHttpsUrl,
  newAssessmentRequestId,
  orderDetails,
  patchProblem,
  signBob,
  statusOf,
  type BobPackage,
  type Candidate,
  type EventType,
  type HibobTargets,
} from './wire.js';

/**
 * The checks of a partner's HiBob side (docs/hibob.md), made as Bob makes its part: the install of
 * two companies (A and B) through the partner's OAuth callback, signed events to its listener, and
 * the token URL and API the partner calls, which the checker's receiver plays (bob.ts). They run in
 * this order and build on each other: the orders are company A's, each of a package of the catalog
 * A registered; what must not happen — a refused delivery acted on, a duplicate acted on twice, an
 * update after a cancel, one company's token on another's order — is judged once later deliveries
 * were handled (a partner handles Bob's events in the order they came) or at the end of the run.
 */

export interface HibobContext {
  probe: Probe;
  targets: HibobTargets;
  bob: Bob;
  /** The two Bob companies the run installs. */
  companies: { a: string; b: string };
  /** What the partner's HIBOB_WEBHOOK_SECRET must be: the run signs with it. */
  webhookSecret: string;
  /** Posts results through the kit's results endpoint; without it, the update checks are not run. */
  results?: { secret: string; urlTemplate: string };
  /** How long to wait for each call of the partner's to Bob (an exchange, a registration, a read, a PATCH). */
  callTimeoutMs: number;
  /** What earlier checks learned. */
  state: {
    /** The codes of the two installs, and the tokens each was exchanged for. */
    codes: { a?: string; b?: string };
    installed: { a?: IssuedTokens; b?: IssuedTokens };
    /** Company A's catalog as it registered it, which its orders are of. */
    packages?: BobPackage[];
    /** Every order whose id an event of the run named, and the companies whose events named it. */
    named: Map<string, Set<string>>;
    /** The orders of the deliveries the partner refused (401). */
    refused: string[];
    /** The order read, with its delivery as Bob sent it, and the answers to that delivery sent again. */
    first?: { id: string; raw: string; signature: string | null; duplicates?: Answer[] };
    /** The order the recruiter canceled, and the answer to its result posted after the cancel. */
    canceled?: { id: string; result?: Answer };
    /** The PATCH of the first order with its result, and its body. */
    completed?: { call: BobCall; body: Record<string, unknown> };
  };
}

export type HibobCheck = Check<HibobContext>;

/** How many copies of the first order's delivery are sent again at once. */
const DUPLICATES = 3;
/** How long ago the late delivery's order was made: Bob's last retry comes 160 minutes after the first attempt failed. */
const LATE_BY_MS = 160 * 60_000;
/** The expiry, in seconds, of the tokens of token.after_expiry's install: Bob's own last longer, a run cannot wait for them. */
const SHORT_EXPIRY_S = 1;

const is2xx = (answer: Answer) => answer.ok && answer.status >= 200 && answer.status < 300;
const isRedirect = (answer: Answer) => answer.ok && answer.status >= 300 && answer.status < 400;
const ms = (from: number, to = Date.now()) => `${Math.max(0, Math.round(to - from))} ms`;
const sleep = (time: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, time)));
const results = (ctx: HibobContext) => (ctx.results ? true : 'give --results-secret: the checker completes the orders through the results endpoint');

/** Company A's (or B's) label in a detail. */
const whose = (ctx: HibobContext, company: string | undefined) =>
  company === ctx.companies.a ? 'company A' : company === ctx.companies.b ? 'company B' : company === undefined ? 'no company' : `company ${company}`;

/** The token a call carried, in words that never show it. */
function tokenWords(ctx: HibobContext, call: BobCall): string {
  if (call.bearer === undefined) return 'no bearer token';
  if (!call.tokens) return 'a token Bob never issued';
  const state = call.tokens.revoked ? ' refused' : call.tokens.expired ? ' expired' : '';
  return `${whose(ctx, call.tokens.company)}'s${state} token`;
}

/** A call about an order in a few words: `GET with company B's token: 404`. */
const callWords = (ctx: HibobContext, call: BobCall) => `${call.method} with ${tokenWords(ctx, call)}: ${call.status}${call.refused ? ` (${call.refused})` : ''}`;

const callsAbout = (ctx: HibobContext, id: string) => ctx.bob.calls.filter((c) => c.orderId === id && (c.kind === 'details' || c.kind === 'update'));

/** What came about an order instead, and a hint when nothing came to the checker's Bob at all. */
function whatCame(ctx: HibobContext, id: string): string {
  const about = callsAbout(ctx, id);
  if (about.length > 0) return ` (came: ${about.slice(0, 3).map((c) => callWords(ctx, c)).join('; ')})`;
  if (ctx.bob.calls.length === 0) return " (nothing came to the checker's Bob: are the partner's HIBOB_API_URL and HIBOB_TOKEN_URL the ones the run printed?)";
  return ' (nothing about it came)';
}

/** Bob's delivery of an event to the listener: its exact bytes, signed with the webhook secret unless told otherwise. */
async function deliver(ctx: HibobContext, label: string, type: EventType, company: string, id: string, options: { at?: Date; signature?: string | null } = {}) {
  const raw = JSON.stringify(bobEvent(type, company, id, options.at));
  const signature = options.signature === undefined ? signBob(ctx.webhookSecret, raw) : options.signature;
  nameOrder(ctx, id, company);
  const answer = await ctx.probe.send(`webhook ${type} ${label}`, delivery(ctx.targets.webhooks, raw, signature));
  return { answer, raw, signature };
}

/** Notes that `company`'s event named order `id`: that company's token may be used about it. */
function nameOrder(ctx: HibobContext, id: string, company: string): void {
  ctx.state.named.set(id, new Set([...(ctx.state.named.get(id) ?? []), company]));
}

/** An order a recruiter of company A makes at Bob, for `candidate`, of the first package A registered. */
function order(ctx: HibobContext, candidate: Candidate, at?: Date): string {
  const id = newAssessmentRequestId();
  ctx.bob.order(id, ctx.companies.a, orderDetails(id, candidate, ctx.state.packages![0]!, at));
  return id;
}

/** The partner's read of order `id` that Bob answered with its details, with `company`'s token. */
const readWith = (ctx: HibobContext, id: string, company: string) => (c: BobCall) => c.kind === 'details' && c.orderId === id && c.status === 200 && c.tokens?.company === company;

/** A PATCH of order `id` with a result (a status of Bob's), whatever Bob answered. */
const resultPatch = (id: string) => (c: BobCall) => c.kind === 'update' && c.orderId === id && (BOB_STATUSES as readonly string[]).includes(String(bodyOf(c)?.status));

function bodyOf(call: BobCall): Record<string, unknown> | undefined {
  try {
    const json = JSON.parse(call.body) as unknown;
    return json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The install a pair of tokens comes from, through the refreshes that led to it. */
function rootOf(ctx: HibobContext, pair: IssuedTokens): IssuedTokens {
  let at = pair;
  for (let from = at.from; from !== undefined; from = at.from) {
    const before = ctx.bob.issued.find((p) => p.refresh === from);
    if (!before) break;
    at = before;
  }
  return at;
}

/** A company A order delivered and read: the delivery's answer, and the read (undefined: none came in time). */
async function triggerAndRead(ctx: HibobContext, label: string, id: string, at?: Date) {
  const sent = await deliver(ctx, label, 'assessment.triggered', ctx.companies.a, id, { ...(at && { at }) });
  const since = Date.now();
  const read = is2xx(sent.answer) ? await ctx.bob.waitFor(readWith(ctx, id, ctx.companies.a), ctx.callTimeoutMs) : undefined;
  return { ...sent, since, read };
}

/** Why an order's delivery and read did not pass, or undefined when they did. */
function readProblem(ctx: HibobContext, id: string, sent: { answer: Answer }, read: BobCall | undefined): string | undefined {
  if (!is2xx(sent.answer)) return `the signed delivery was answered ${describeAnswer(sent.answer, 100)}, not 2xx: Bob delivers it again for hours`;
  if (!read) return `no read of order ${id} with company A's token within ${ctx.callTimeoutMs / 1000} s${whatCame(ctx, id)}`;
  return undefined;
}

/**
 * Posts `body` to the kit's results endpoint for order `id`, signed as the vendor's product signs.
 * The partner makes its invitation once it has read the order, a moment after the read Bob saw: a
 * 404 (not made yet) is posted again, for up to the call timeout.
 */
async function postResult(ctx: HibobContext, label: string, id: string, body: unknown): Promise<Answer> {
  const raw = JSON.stringify(body);
  const { secret, urlTemplate } = ctx.results!;
  const deadline = Date.now() + ctx.callTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    const answer = await ctx.probe.send(`results POST ${label}`, {
      method: 'POST',
      url: urlTemplate.replace('{report_id}', encodeURIComponent(id)),
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, [VENDOR_SIGNATURE_HEADER]: signVendorResult(secret, id, raw) },
      body: raw,
    });
    if (!(answer.ok && answer.status === 404) || Date.now() >= deadline) return answer;
    await sleep(Math.min(50 * 2 ** attempt, 1000));
  }
}

/** The callback Bob's browser redirect makes after an install of `company` with `code`. */
function callback(ctx: HibobContext, label: string, code: string, company: string): Promise<Answer> {
  const url = new URL(ctx.targets.callback);
  url.searchParams.set('code', code);
  url.searchParams.set('companyId', company);
  return ctx.probe.send(`oauth callback ${label}`, { method: 'GET', url: url.href, headers: { accept: 'text/html', 'user-agent': USER_AGENT } });
}

/** An install: the callback answered 2xx (or a redirect), the code exchanged for tokens. */
async function install(ctx: HibobContext, label: string, code: string, company: string): Promise<{ verdict: Verdict; pair?: IssuedTokens }> {
  const answer = await callback(ctx, label, code, company);
  // A partner may exchange the code after it answers the browser: the exchange is awaited then.
  const exchanged = answer.ok && (is2xx(answer) || isRedirect(answer)) ? await ctx.bob.waitFor((c) => c.grant?.code === code && c.issued !== undefined, ctx.callTimeoutMs) : ctx.bob.exchangedFor(code);
  const tried = ctx.bob.calls.find((c) => c.grant?.code === code);
  if (!is2xx(answer) && !isRedirect(answer)) {
    const why = tried && !tried.issued ? `; Bob refused its exchange: ${tried.refused}` : tried ? '' : '; the code never came to the token URL';
    return { verdict: { ok: false, detail: `${label}: the callback answered ${describeAnswer(answer, 100)}${why}` } };
  }
  if (!exchanged?.issued) {
    const why = tried ? `Bob refused its exchange: ${tried.refused}` : `the code never came to the token URL within ${ctx.callTimeoutMs / 1000} s`;
    return { verdict: { ok: false, detail: `${label}: the callback answered ${statusOf(answer)}, but ${why}` } };
  }
  return { verdict: { ok: true, detail: `${label}: ${statusOf(answer)}, the code exchanged` }, pair: exchanged.issued };
}

const needsInstallA = (ctx: HibobContext) => (ctx.state.installed.a ? true : "needs company A's install (install.answered)");
const needsOrders = (ctx: HibobContext) => {
  const installed = needsInstallA(ctx);
  if (installed !== true) return installed;
  if (ctx.state.packages === undefined) return "needs company A's catalog (catalog.registered): Bob's recruiters order from it";
  if (ctx.state.packages.length === 0) {
    return "company A's catalog is empty, and Bob's recruiters order from it: give --company a Bob company linked to an account with tests (a kit partner: docs/hibob.md §2)";
  }
  return true;
};
const needsOrdersAndResults = (ctx: HibobContext) => {
  const orders = needsOrders(ctx);
  return orders === true ? results(ctx) : orders;
};

/**
 * A delivery Bob would never make — `signatureOf` signs (or not) the body Bob would have sent,
 * `alter` changes it after — refused with 401 by a partner that checks `Bob-Signature`. The orders
 * it names are kept: by the end of the run nothing may have been done about them.
 */
function refusedDelivery(
  id: string,
  name: string,
  signatureOf: (ctx: HibobContext, raw: string) => string | null,
  alter: (event: { data: { assessmentRequestId: string } }) => void = () => {},
): HibobCheck {
  return {
    id,
    section: '§5',
    name,
    run: async (ctx) => {
      const event = bobEvent('assessment.triggered', ctx.companies.a, newAssessmentRequestId()) as { data: { assessmentRequestId: string } };
      const signed = JSON.stringify(event);
      const signature = signatureOf(ctx, signed);
      const named = [event.data.assessmentRequestId];
      alter(event);
      if (event.data.assessmentRequestId !== named[0]) named.push(event.data.assessmentRequestId);
      for (const order of named) nameOrder(ctx, order, ctx.companies.a);
      const answer = await ctx.probe.send(`webhook assessment.triggered (${id.split('.')[1]!.replace(/_/g, ' ')})`, delivery(ctx.targets.webhooks, JSON.stringify(event), signature));
      if (answer.ok && answer.status === 401) {
        ctx.state.refused.push(...named);
        return { ok: true, detail: '401' };
      }
      if (is2xx(answer)) return { ok: false, detail: `${describeAnswer(answer, 100)}: taken, where Bob never sent it` };
      return { ok: false, detail: `expected 401, got ${describeAnswer(answer, 100)}` };
    },
  };
}

export const HIBOB_CHECKS: readonly HibobCheck[] = [
  // --- §2, §3 the install --------------------------------------------------------------------------
  {
    id: 'install.answered',
    section: '§2',
    name: "the OAuth callback with an install's code answers 2xx (or a redirect), the code exchanged for tokens, for company A and then company B",
    run: async (ctx) => {
      const parts: Verdict[] = [];
      for (const who of ['a', 'b'] as const) {
        const code = ctx.bob.installCode(ctx.companies[who]);
        ctx.state.codes[who] = code;
        const { verdict, pair } = await install(ctx, `company ${who.toUpperCase()}`, code, ctx.companies[who]);
        if (pair) ctx.state.installed[who] = pair;
        parts.push(verdict);
      }
      const failed = parts.filter((p) => !p.ok);
      return { ok: failed.length === 0, detail: (failed.length > 0 ? failed : parts).map((p) => p.detail).join('; ') };
    },
  },
  {
    id: 'install.exchange',
    section: '§3',
    name: "each install's code is exchanged as RFC 6749 says: a form-encoded POST, grant_type authorization_code, the code, the app's client id and secret (in the form or as Basic), redirect_uri the callback's",
    applies: (ctx) => (ctx.bob.calls.some((c) => c.grant?.code !== undefined && Object.values(ctx.state.codes).includes(c.grant.code)) ? true : "no exchange of an install's code came (install.answered)"),
    run: async (ctx) => {
      const expectedPath = new URL(ctx.targets.callback).pathname;
      const problems: string[] = [];
      const seen: string[] = [];
      for (const who of ['a', 'b'] as const) {
        const code = ctx.state.codes[who];
        const call = ctx.bob.calls.find((c) => c.grant?.code === code);
        if (!code || !call) continue;
        const grant = call.grant!;
        const label = `company ${who.toUpperCase()}`;
        if (!grant.form) problems.push(`${label}: declared ${JSON.stringify(call.contentType ?? 'nothing')}, not application/x-www-form-urlencoded`);
        else if (grant.type !== 'authorization_code') problems.push(`${label}: grant_type ${JSON.stringify(grant.type ?? null)}, not authorization_code`);
        else if (grant.clientAuth === 'none') problems.push(`${label}: no client_secret, in the form or as Basic`);
        else if (grant.clientAuth === 'both') problems.push(`${label}: the client authenticated twice, as Basic and with client_secret in the form`);
        else if (!call.issued) problems.push(`${label}: Bob refused it: ${call.refused}`);
        else if (grant.redirectUri !== undefined && (!URL.canParse(grant.redirectUri) || new URL(grant.redirectUri).pathname !== expectedPath)) {
          problems.push(`${label}: redirect_uri ${JSON.stringify(grant.redirectUri).slice(0, 120)} is not the callback's (…${expectedPath})`);
        } else seen.push(`${label}: client ${grant.clientAuth === 'basic' ? 'as Basic' : 'in the form'}, ${grant.redirectUri === undefined ? 'no redirect_uri' : 'redirect_uri the callback'}`);
      }
      return problems.length > 0 ? { ok: false, detail: problems.join('; ') } : { ok: true, detail: seen.join('; ') };
    },
  },
  {
    id: 'install.used_code',
    section: '§2',
    name: "the callback again with company A's code, used already (a page reloaded), answers 4xx, never 5xx",
    applies: needsInstallA,
    run: async (ctx) => {
      const answer = await callback(ctx, '(company A, its code used already)', ctx.state.codes.a!, ctx.companies.a);
      const tried = ctx.bob.calls.filter((c) => c.grant?.code === ctx.state.codes.a).length > 1;
      if (answer.ok && answer.status >= 400 && answer.status < 500) return { ok: true, detail: `${answer.status}${tried ? ', Bob having refused the code (invalid_grant)' : ''}` };
      return { ok: false, detail: `expected a 4xx, got ${describeAnswer(answer, 100)}` };
    },
  },

  // --- §4 the catalog ------------------------------------------------------------------------------
  {
    id: 'catalog.registered',
    section: '§4',
    name: "each installed company's catalog is registered with that company's own token (and only with it): POST /hiring/assessments/packages, {packages: [{id, name}]}, ids and names not blank, no id twice",
    applies: (ctx) => (ctx.state.installed.a || ctx.state.installed.b ? true : 'needs an install (install.answered)'),
    run: async (ctx) => {
      const parts: Verdict[] = [];
      for (const who of ['a', 'b'] as const) {
        if (!ctx.state.installed[who]) continue;
        const company = ctx.companies[who];
        const label = `company ${who.toUpperCase()}`;
        const registered = await ctx.bob.waitFor((c) => c.kind === 'register' && c.status === 201 && c.tokens?.company === company, ctx.callTimeoutMs);
        if (!registered) {
          const tried = ctx.bob.calls.filter((c) => c.kind === 'register' && (c.tokens?.company === company || c.tokens === undefined));
          const came = tried.length > 0 ? `: ${tried.slice(0, 2).map((c) => callWords(ctx, c)).join('; ')}` : ` within ${ctx.callTimeoutMs / 1000} s`;
          parts.push({ ok: false, detail: `${label}: no registration with its token was taken${came}` });
          continue;
        }
        const packages = ctx.bob.catalog(company)!.packages;
        if (who === 'a') ctx.state.packages = packages;
        parts.push({ ok: true, detail: `${label}: 201, ${packages.length} package${packages.length === 1 ? '' : 's'}` });
      }
      // Only with its own: no registration with a token Bob did not issue, or no longer takes.
      const stray = ctx.bob.calls.filter((c) => (c.kind === 'register' || c.kind === 'delete') && c.status === 401);
      if (stray.length > 0) parts.push({ ok: false, detail: `a registration with ${tokenWords(ctx, stray[0]!)}: 401` });
      const failed = parts.filter((p) => !p.ok);
      return { ok: failed.length === 0, detail: (failed.length > 0 ? failed : parts).map((p) => p.detail).join('; ') };
    },
  },

  // --- §5 signatures -------------------------------------------------------------------------------
  refusedDelivery('webhook.unsigned', 'an assessment.triggered without Bob-Signature answers 401', () => null),
  refusedDelivery('webhook.wrong_signature', 'an assessment.triggered signed with another secret answers 401', (_ctx, raw) =>
    signBob(`not-the-webhook-secret-${newAssessmentRequestId()}`, raw),
  ),
  refusedDelivery(
    'webhook.altered',
    'an assessment.triggered signed as Bob signs it, then altered (another assessmentRequestId), answers 401',
    (ctx, raw) => signBob(ctx.webhookSecret, raw),
    (event) => {
      event.data.assessmentRequestId = newAssessmentRequestId();
    },
  ),

  // --- §5 orders -----------------------------------------------------------------------------------
  {
    id: 'order.details',
    section: '§5',
    name: "a signed assessment.triggered of company A answers 2xx within 10 s, and the order's details are read with company A's token",
    applies: needsOrders,
    run: async (ctx) => {
      const id = order(ctx, ADA);
      const { answer, raw, signature, since, read } = await triggerAndRead(ctx, `(${ADA.email})`, id);
      const problem = readProblem(ctx, id, { answer }, read);
      if (problem) return { ok: false, detail: problem };
      const first: NonNullable<HibobContext['state']['first']> = { id, raw, signature };
      ctx.state.first = first;
      // At least once: Bob may deliver it again, even while its first delivery is being answered.
      first.duplicates = await Promise.all(
        Array.from({ length: DUPLICATES }, (_, i) => ctx.probe.send(`webhook assessment.triggered (${ADA.email} again, ${i + 1} of ${DUPLICATES} at once)`, delivery(ctx.targets.webhooks, raw, signature))),
      );
      return { ok: true, detail: `${answer.ok ? answer.status : ''} in ${Math.round(answer.durationMs)} ms; read with company A's token ${ms(since, read!.at)} later` };
    },
  },
  {
    id: 'cancel.answered',
    section: '§5',
    name: "company A's signed assessment.cancelled of an order it read answers 2xx",
    applies: needsOrders,
    run: async (ctx) => {
      const id = order(ctx, GRACE);
      const { answer, read } = await triggerAndRead(ctx, `(${GRACE.email})`, id);
      const problem = readProblem(ctx, id, { answer }, read);
      if (problem) return { ok: false, detail: `the order to cancel: ${problem}` };
      // The recruiter cancels: from now on Bob takes no update of it. The next check's order, read once
      // the partner handled what came before it, is what update.completed posts this order's result after.
      ctx.bob.cancel(id);
      const { answer: canceled } = await deliver(ctx, `(${GRACE.email})`, 'assessment.cancelled', ctx.companies.a, id);
      if (!is2xx(canceled)) return { ok: false, detail: `expected 2xx, got ${describeAnswer(canceled, 100)}` };
      ctx.state.canceled = { id };
      return { ok: true, detail: statusOf(canceled) };
    },
  },

  {
    id: 'order.late_retry',
    section: '§5',
    name: 'an order delivered as Bob retries it hours later (triggeredAt 160 minutes ago) is still taken: 2xx, and its details read',
    applies: needsOrders,
    run: async (ctx) => {
      const at = new Date(Date.now() - LATE_BY_MS);
      const id = order(ctx, ALAN, at);
      const { answer, since, read } = await triggerAndRead(ctx, `(${ALAN.email}, made 160 minutes ago)`, id, at);
      const problem = readProblem(ctx, id, { answer }, read);
      return problem ? { ok: false, detail: problem } : { ok: true, detail: `${statusOf(answer)}; read ${ms(since, read!.at)} later` };
    },
  },
  // --- §6 the update -------------------------------------------------------------------------------
  {
    id: 'update.completed',
    section: '§6',
    name: "once the result is posted to the results endpoint, the order is PATCHed at /hiring/assessments/{id} with company A's token and status completed",
    applies: (ctx) => {
      const orders = needsOrdersAndResults(ctx);
      if (orders !== true) return orders;
      return ctx.state.first ? true : 'needs the order of order.details';
    },
    run: async (ctx) => {
      // The canceled order gets its result too, first: the first order's PATCH then comes after anything it would bring.
      if (ctx.state.canceled) ctx.state.canceled.result = await postResult(ctx, `(${GRACE.email}, canceled in Bob)`, ctx.state.canceled.id, RESULT);
      const { id } = ctx.state.first!;
      const posted = await postResult(ctx, `(${ADA.email})`, id, RESULT);
      if (!posted.ok || posted.status !== 200) return { ok: false, detail: `the results endpoint did not take the result: ${describeAnswer(posted, 120)}` };
      const since = Date.now();
      const patch = await ctx.bob.waitFor(resultPatch(id), ctx.callTimeoutMs);
      if (!patch) return { ok: false, detail: `no PATCH of order ${id} with a status of Bob's within ${ctx.callTimeoutMs / 1000} s${whatCame(ctx, id)}` };
      const body = bodyOf(patch)!;
      ctx.state.completed = { call: patch, body };
      if (patch.tokens?.company !== ctx.companies.a) return { ok: false, detail: `the PATCH carried ${tokenWords(ctx, patch)}, not company A's` };
      if (body.status !== 'completed' && body.status !== 'passed') return { ok: false, detail: `status ${JSON.stringify(body.status)} for the result completed, "87%": not completed (nor passed)` };
      const taken = patch.status === 204 ? 'Bob took it (204)' : `Bob answered ${patch.status}: ${patch.refused}`;
      return { ok: true, detail: `status ${JSON.stringify(body.status)}, ${ms(since, patch.at)} after the result; ${taken}` };
    },
  },
  {
    id: 'update.score',
    section: '§6',
    name: 'its score is a number: the one the result\'s score reads as',
    applies: (ctx) => (ctx.state.completed ? true : 'needs the PATCH of update.completed'),
    run: async (ctx) => {
      const score = ctx.state.completed!.body.score;
      if (typeof score === 'number' && Number.isFinite(score)) return { ok: true, detail: `${score} for the score ${JSON.stringify(RESULT.score)}` };
      return { ok: false, detail: `score is ${score === undefined ? 'absent' : JSON.stringify(score).slice(0, 60)}, not a number, for the score ${JSON.stringify(RESULT.score)}` };
    },
  },
  {
    id: 'update.result_url',
    section: '§6',
    name: 'its resultUrl is an absolute https URL (Bob refuses any other with 400)',
    applies: (ctx) => (ctx.state.completed ? true : 'needs the PATCH of update.completed'),
    run: async (ctx) => {
      const url = ctx.state.completed!.body.resultUrl;
      if (isHttpsUrl(url)) return { ok: true, detail: `${new URL(url).origin}/…` };
      if (typeof url === 'string' && URL.canParse(url) && new URL(url).protocol === 'http:') {
        return { ok: false, detail: `${new URL(url).origin}/…, plain http: Bob refuses it (400). A kit partner links its PUBLIC_URL: give it the partner's https address` };
      }
      return { ok: false, detail: `resultUrl is ${url === undefined ? 'absent' : JSON.stringify(url).slice(0, 80)}: Bob shows the result at an https URL` };
    },
  },
  {
    id: 'cancel.stops_updates',
    section: '§6',
    name: 'the canceled order is never PATCHed, even when the vendor\'s product posts its result after the cancel',
    applies: (ctx) => {
      if (!ctx.state.canceled) return 'needs the cancel of cancel.answered';
      return ctx.state.canceled.result ? true : 'needs the result update.completed posts';
    },
    run: async (ctx) => {
      const { id, result } = ctx.state.canceled!;
      const patches = callsAbout(ctx, id).filter((c) => c.kind === 'update');
      const said = `the results endpoint answered ${describeAnswer(result!, 60)}`;
      if (patches.length > 0) return { ok: false, detail: `${patches.length} PATCH${patches.length === 1 ? '' : 'es'} after the cancel (${callWords(ctx, patches[0]!)}); ${said}` };
      const sentinel = ctx.state.completed ? ", the first order's came after it" : '';
      return { ok: true, detail: `no PATCH${sentinel}; ${said}` };
    },
  },

  // --- §5, §6 companies apart -----------------------------------------------------------------------
  {
    id: 'isolation.orders',
    section: '§5',
    name: "company B's events naming company A's orders — a cancel of one under way, a trigger of another — touch neither: nothing read or updated with A's token for B, and A's order still completes",
    applies: (ctx) => {
      const orders = needsOrdersAndResults(ctx);
      if (orders !== true) return orders;
      return ctx.state.installed.b ? true : "needs company B's install (install.answered)";
    },
    run: async (ctx) => {
      const { a, b } = ctx.companies;
      const ours = order(ctx, BARBARA);
      const { answer, read } = await triggerAndRead(ctx, `(${BARBARA.email})`, ours);
      const problem = readProblem(ctx, ours, { answer }, read);
      if (problem) return { ok: false, detail: `company A's order: ${problem}` };
      const { answer: cancel } = await deliver(ctx, `(company B, of company A's ${BARBARA.email})`, 'assessment.cancelled', b, ours);
      // An order of A's that only B's event names: Bob answers B's token 404 for it.
      const theirs = order(ctx, EDSGER);
      const { answer: trigger } = await deliver(ctx, `(company B, naming company A's ${EDSGER.email})`, 'assessment.triggered', b, theirs);
      const broken = [cancel, trigger].find((x) => !x.ok || x.status >= 500);
      if (broken) return { ok: false, detail: `company B's event was answered ${describeAnswer(broken, 100)}` };
      // Handled in order, B's cancel is before B's trigger: the partner's look at the trigger's order says both were.
      await ctx.bob.waitFor((c) => c.kind === 'details' && c.orderId === theirs, ctx.callTimeoutMs);
      const posted = await postResult(ctx, `(${BARBARA.email})`, ours, RESULT);
      const patch = await ctx.bob.waitFor(resultPatch(ours), posted.ok && posted.status === 200 ? ctx.callTimeoutMs : 0);
      const withA = callsAbout(ctx, theirs).filter((c) => c.tokens?.company === a);
      if (withA.length > 0) return { ok: false, detail: `company B's trigger made the partner ${withA[0]!.kind === 'update' ? 'update' : 'read'} company A's order with company A's token (${callWords(ctx, withA[0]!)})` };
      if (!patch) {
        const said = posted.ok && posted.status === 409 ? `: the results endpoint answered ${describeAnswer(posted, 80)}, company B's cancel canceled it` : `${whatCame(ctx, ours)}; the results endpoint answered ${describeAnswer(posted, 80)}`;
        return { ok: false, detail: `company A's order was not completed after company B's cancel${said}` };
      }
      if (patch.tokens?.company !== a) return { ok: false, detail: `company A's order was PATCHed with ${tokenWords(ctx, patch)}` };
      const theirsSeen = callsAbout(ctx, theirs);
      const looked = theirsSeen.length > 0 ? `its order read with company B's token (${theirsSeen[0]!.status})` : 'its order not read';
      return { ok: true, detail: `company B's cancel ${statusOf(cancel)}, trigger ${statusOf(trigger)}, ${looked}; company A's order completed with A's token` };
    },
  },

  // --- §3 the tokens -------------------------------------------------------------------------------
  {
    id: 'token.after_401',
    section: '§3',
    name: "when Bob answers an order's read with 401, company A's token is refreshed (refresh_token grant) and the order read again with the new one",
    applies: needsOrders,
    run: async (ctx) => {
      const id = order(ctx, KATHERINE);
      ctx.bob.refuseNextRead(id);
      const { answer, read } = await triggerAndRead(ctx, `(${KATHERINE.email}, its read refused once)`, id);
      if (!is2xx(answer)) return { ok: false, detail: `the signed delivery was answered ${describeAnswer(answer, 100)}, not 2xx` };
      const refusal = ctx.bob.calls.find((c) => c.kind === 'details' && c.orderId === id && c.status === 401);
      if (!refusal) return { ok: false, detail: `no read of order ${id} came within ${ctx.callTimeoutMs / 1000} s${whatCame(ctx, id)}` };
      const refreshes = ctx.bob.calls.filter((c) => c.n > refusal.n && c.grant?.type === 'refresh_token');
      const refreshed = refreshes.find((c) => c.issued?.company === ctx.companies.a);
      if (!read) {
        const after = refreshes.length === 0 ? 'no refresh_token grant came' : `the refresh was refused: ${refreshes[0]!.refused}`;
        return { ok: false, detail: `401 to the read, then ${after}, and no read with a new token within ${ctx.callTimeoutMs / 1000} s${whatCame(ctx, id)}` };
      }
      if (!refreshed || read.n < refreshed.n || read.tokens?.via !== 'refresh') return { ok: false, detail: `401 to the read, then the read again with ${tokenWords(ctx, read)}, not one refreshed after the 401` };
      return { ok: true, detail: `401 to the read, a refresh ${ms(refusal.at, refreshed.at)} later, the read again with its new token: 200` };
    },
  },
  {
    id: 'token.after_expiry',
    section: '§3',
    name: "after company A installs again and its new access token expires, the next order is read with a token refreshed from that install's refresh token",
    applies: needsOrders,
    run: async (ctx) => {
      const code = ctx.bob.installCode(ctx.companies.a, SHORT_EXPIRY_S);
      const { verdict, pair } = await install(ctx, 'company A, installing again', code, ctx.companies.a);
      if (!pair) return { ok: false, detail: verdict.detail };
      // Its time is up: a second after expires_in, so that the partner's clock, from when it got the answer, agrees.
      await sleep(pair.issuedAt + (SHORT_EXPIRY_S + 1) * 1000 - Date.now());
      ctx.bob.expire(pair);
      const id = order(ctx, MARGARET);
      const { answer, read } = await triggerAndRead(ctx, `(${MARGARET.email}, after the token expired)`, id);
      if (!is2xx(answer)) return { ok: false, detail: `the signed delivery was answered ${describeAnswer(answer, 100)}, not 2xx` };
      const refused = ctx.bob.calls.find((c) => c.kind === 'details' && c.orderId === id && c.tokens === pair);
      if (!read) {
        const after = refused ? 'read with the expired token (401), then' : 'no read with a fresh token:';
        const grants = ctx.bob.calls.filter((c) => c.grant?.type === 'refresh_token' && c.at >= pair.issuedAt);
        return { ok: false, detail: `${after} ${grants.length === 0 ? 'no refresh_token grant came' : `the refresh was refused: ${grants[0]!.refused}`} within ${ctx.callTimeoutMs / 1000} s${whatCame(ctx, id)}` };
      }
      if (rootOf(ctx, read.tokens!) !== pair) return { ok: false, detail: `read with ${tokenWords(ctx, read)} from before the install again: the install's new tokens were set aside` };
      return { ok: true, detail: refused ? "read with the expired token first (401), then refreshed and read again: 200" : 'refreshed before it was used: read with the new token, 200' };
    },
  },

  // --- judged at the end of the run -------------------------------------------------------------------
  {
    id: 'order.duplicate',
    section: '§5',
    name: `the first order's delivery sent again (${DUPLICATES} copies at once) answers 2xx and makes nothing new: by the end of the run one read of it, and one PATCH with its result`,
    applies: (ctx) => (ctx.state.first?.duplicates ? true : 'needs the order of order.details'),
    run: async (ctx) => {
      const { id, duplicates } = ctx.state.first!;
      const bad = duplicates!.find((d) => !is2xx(d));
      if (bad) return { ok: false, detail: `a copy was answered ${describeAnswer(bad, 100)}: Bob delivers it again for hours` };
      const reads = callsAbout(ctx, id).filter((c) => c.kind === 'details');
      const patches = ctx.bob.calls.filter(resultPatch(id));
      if (reads.length > 1) return { ok: false, detail: `${reads.length} reads of the order: it was acted on again` };
      if (patches.length > 1) return { ok: false, detail: `${patches.length} PATCHes of it with a result: a second update` };
      return { ok: true, detail: `${duplicates!.map((d) => statusOf(d)).join(', ')}; 1 read, ${patches.length} PATCH${patches.length === 1 ? '' : 'es'}` };
    },
  },
  {
    id: 'webhook.refused_inert',
    section: '§5',
    name: 'by the end of the run, nothing was done for the deliveries answered 401: no read nor update of their orders',
    applies: (ctx) => (ctx.state.refused.length > 0 ? true : 'no delivery was refused (webhook.unsigned, webhook.wrong_signature, webhook.altered)'),
    run: async (ctx) => {
      const touched = ctx.state.refused.flatMap((id) => callsAbout(ctx, id));
      if (touched.length > 0) return { ok: false, detail: `order ${touched[0]!.orderId} of a refused delivery: ${callWords(ctx, touched[0]!)}` };
      return { ok: true, detail: `nothing about the ${ctx.state.refused.length} orders they named` };
    },
  },
  {
    id: 'isolation.tokens',
    section: '§6',
    name: "every call of the run about an order carried the token of a company whose event named it: company B's never on company A's orders",
    run: async (ctx) => {
      const calls = ctx.bob.calls.filter((c) => (c.kind === 'details' || c.kind === 'update') && c.orderId !== undefined && ctx.state.named.has(c.orderId));
      if (calls.length === 0) return { notRun: 'no call about an order came' };
      const wrong = calls.filter((c) => !c.tokens || !ctx.state.named.get(c.orderId!)!.has(c.tokens.company));
      if (wrong.length > 0) {
        const c = wrong[0]!;
        const named = [...ctx.state.named.get(c.orderId!)!].map((x) => whose(ctx, x)).join(' and ');
        return { ok: false, detail: `${wrong.length} call${wrong.length === 1 ? '' : 's'}: order ${c.orderId}, named by ${named}'s event: ${callWords(ctx, c)}` };
      }
      return { ok: true, detail: `${calls.length} calls, each with the token of the company whose event named the order` };
    },
  },
  {
    id: 'update.bodies',
    section: '§6',
    name: "every PATCH of the run is JSON Bob takes: status one of completed, passed, failed; no assessmentRequestId; resultUrl https; score a number",
    run: async (ctx) => {
      const patches = ctx.bob.calls.filter((c) => c.kind === 'update');
      if (patches.length === 0) return { notRun: 'no PATCH came' };
      const problems: string[] = [];
      for (const patch of patches) {
        const type = patch.contentType ?? '';
        if (!/^application\/json\b/i.test(type)) problems.push(`order ${patch.orderId}: Content-Type ${type === '' ? 'absent' : JSON.stringify(type)}, not application/json`);
        const problem = patchProblem(bodyOf(patch) ?? null);
        if (problem) problems.push(`order ${patch.orderId}: ${problem}`);
      }
      if (problems.length > 0) return { ok: false, detail: `${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}` };
      return { ok: true, detail: `${patches.length} PATCH${patches.length === 1 ? '' : 'es'}, each valid` };
    },
  },
];
