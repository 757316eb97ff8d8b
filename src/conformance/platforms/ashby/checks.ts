import { randomBytes, randomUUID } from 'node:crypto';
import { VENDOR_SIGNATURE_HEADER, VENDOR_SIGNATURE_TOLERANCE_MS, signVendorResult } from '../../../contract/vendor-signature.js';
import { USER_AGENT, allOf, basicAuth, describeAnswer, expectStatus, jsonRequest, type Answer, type Probe } from '../../probe.js';
import type { Receiver, ReceivedRequest } from '../../receiver.js';
import { RESULT } from '../../results-checks.js';
import type { Check, Verdict } from '../../types.js';
import {
  ADA,
  AshbyAssessmentType,
  AssessmentData,
  AssessmentUpdate,
  EDSGER,
  GRACE,
  ListAnswer,
  MessageAnswer,
  StartAnswer,
  UPDATE_PATH,
  describeUpdateAuth,
  firstIssue,
  isAshbyAuth,
  startBody,
  type AshbyCall,
  type AshbyTargets,
} from './wire.js';

/**
 * The checks of a partner's Ashby endpoints (docs/ashby.md), made as Ashby makes its calls, and of
 * the `assessment.update` requests the partner posts to Ashby's API, which the checker's receiver
 * plays. They run in this order and build on each other: the starts use the first assessment the
 * key lists; the first start (Ada's) gets the candidate's progress and the result, and its updates
 * are checked; a second assessment (Grace's, the concurrent starts') is the one the isolation and
 * cancel checks cancel, so that a partner failing them still has its first assessment to complete.
 */

export interface AshbyContext {
  probe: Probe;
  targets: AshbyTargets;
  /** The customer's key, as Ashby sends it. */
  key: string;
  /** A second customer's key, for the tenant isolation checks. */
  otherKey?: string;
  /** Each customer's Ashby API key: what the partner must post `assessment.update` with. */
  apiKeys: { key: string; otherKey: string };
  receiver: Receiver;
  /** Posts progress and the result through the kit's results endpoint; without it, a person completes the assessment. */
  results?: { secret: string; urlTemplate: string };
  /** How long to wait for each update (the candidate started, the result). */
  updateTimeoutMs: number;
  /** Told what the person running the checker must do now (complete the assessment by hand). */
  notice: (text: string) => void;
  /** What earlier checks learned. */
  state: {
    types?: AshbyAssessmentType[];
    otherTypes?: AshbyAssessmentType[];
    /** Every assessment the partner gave an id for, and whose key started it. */
    assessments: Map<string, 'key' | 'otherKey'>;
    /** Ada's assessment (start.shape): the one completed. */
    first?: { id: string; body: Record<string, unknown> };
    /** Grace's assessment, under way until cancel.answer cancels it. */
    second?: { id: string; body: Record<string, unknown> };
    /** The other customer's own assessment (isolation.start), which it cancels in isolation.cancel. */
    otherOwn?: string;
    /** When the checker posted the result (or asked for it), in ms since the epoch. */
    resultAt?: number;
    /** The update of the first assessment with its result, and when it came. */
    update?: { request: ReceivedRequest; body: Record<string, unknown>; at: number };
  };
}

export type AshbyCheck = Check<AshbyContext>;

/** How far the partner's clock may be from the checker's for a timestamp to be "now": the kit's signature tolerance. */
const CLOCK_SKEW_MS = VENDOR_SIGNATURE_TOLERANCE_MS;
/** How many identical starts start.concurrent sends at once. */
const CONCURRENT_STARTS = 5;

const firstType = (ctx: AshbyContext) => ctx.state.types?.[0];
const needsType = (ctx: AshbyContext) => (firstType(ctx) ? true : 'no assessment listed for the key: see list.shape');
const needsFirst = (ctx: AshbyContext) => (ctx.state.first ? true : 'needs a successful start.shape');
const needsOtherKey = (ctx: AshbyContext) => (ctx.otherKey === undefined ? 'give --other-key' : true);
const needsUpdate = (ctx: AshbyContext) => (ctx.state.update ? true : 'needs the update of update.received');
/** An assessment type the key lists and the other key does not. */
const ownOnlyType = (ctx: AshbyContext) => {
  const others = new Set((ctx.state.otherTypes ?? []).map((t) => t.assessment_type_id.toLowerCase()));
  return ctx.state.types?.find((t) => !others.has(t.assessment_type_id.toLowerCase()));
};

/** Ashby's call to `endpoint`, with `authorization` (Ashby's own, the first key's, by default; null: none). */
function call(ctx: AshbyContext, label: string, endpoint: AshbyCall, body: unknown, authorization: string | null = basicAuth(ctx.key)): Promise<Answer> {
  const url = endpoint === 'assessment.list' ? ctx.targets.list : endpoint === 'assessment.start' ? ctx.targets.start : ctx.targets.cancel;
  return ctx.probe.send(`${endpoint} ${label}`.trim(), jsonRequest({ method: 'POST', url, authorization: authorization ?? undefined, body }));
}

const json = (answer: Answer) => (answer.ok ? answer.json : undefined);
/** A start (or cancel) that succeeded: `{success: true, results: {assessment_id}}`, its id. */
const startedId = (answer: Answer): string | undefined => {
  if (!answer.ok || answer.status < 200 || answer.status > 299) return undefined;
  const parsed = StartAnswer.safeParse(answer.json);
  return parsed.success ? parsed.data.results.assessment_id : undefined;
};
/** What `success` an answer's JSON says, if any. */
const successOf = (answer: Answer) => (json(answer) as { success?: unknown } | undefined)?.success;

/** §3: 200 `{success: true, results: [{assessment_type_id, name, description}]}`. */
function readList(answer: Answer): { verdict: Verdict; types?: AshbyAssessmentType[] } {
  if (!answer.ok || answer.status !== 200) return { verdict: { ok: false, detail: `expected 200, got ${describeAnswer(answer)}` } };
  const list = ListAnswer.safeParse(answer.json);
  if (!list.success) return { verdict: { ok: false, detail: `not {"success": true, "results": [...]}: ${describeAnswer(answer, 100)}` } };
  const items = list.data.results;
  const invalid = items.findIndex((item) => !AshbyAssessmentType.safeParse(item).success);
  if (invalid !== -1) {
    const error = AshbyAssessmentType.safeParse(items[invalid]).error!;
    return { verdict: { ok: false, detail: `results.${invalid}.${firstIssue(error)}: ${JSON.stringify(items[invalid]).slice(0, 120)}` } };
  }
  const types = items as AshbyAssessmentType[];
  return { verdict: { ok: true, detail: `200, ${types.length} assessment${types.length === 1 ? '' : 's'}` }, types };
}

/** Starts `body` with `who`'s key, keeping the id the partner gave. */
async function start(ctx: AshbyContext, label: string, body: unknown, who: 'key' | 'otherKey' = 'key'): Promise<{ answer: Answer; id?: string }> {
  const answer = await call(ctx, label, 'assessment.start', body, basicAuth(who === 'key' ? ctx.key : ctx.otherKey!));
  const id = startedId(answer);
  if (id !== undefined) ctx.state.assessments.set(id, who);
  return { answer, ...(id !== undefined && { id }) };
}

/** Grace's assessment, to cancel: the one start.concurrent made, else one started now. */
async function second(ctx: AshbyContext): Promise<{ id: string; body: Record<string, unknown> } | Verdict> {
  if (ctx.state.second) return ctx.state.second;
  const body = startBody(firstType(ctx)!.assessment_type_id, GRACE);
  const { answer, id } = await start(ctx, `(${GRACE.email}, to cancel)`, body);
  if (id === undefined) return { ok: false, detail: `could not start an assessment to cancel: ${describeAnswer(answer)}` };
  ctx.state.second = { id, body };
  return ctx.state.second;
}

/** A start of the same application again: 409, or the same assessment's id; a new id is a second assessment. */
function sameAssessment(answer: Answer, id: string): Verdict {
  if (answer.ok && answer.status === 409) return { ok: true, detail: '409' };
  const again = startedId(answer);
  if (again === id) return { ok: true, detail: `${answer.ok ? answer.status : ''}, the same assessment_id` };
  if (again !== undefined) return { ok: false, detail: `${JSON.stringify(again)}, a second assessment of the application, beside ${JSON.stringify(id)}` };
  return { ok: false, detail: `expected 409 or the same assessment_id, got ${describeAnswer(answer)}` };
}

/**
 * What a refusal to the other customer names of this one that the same refusal of a made-up id
 * does not: the candidate's name and e-mail, the assessment's id, the type's name.
 */
function namedOfTheCustomer(answer: Answer, baseline: Answer, words: readonly string[]): string[] {
  const text = answer.ok ? answer.text : '';
  const base = baseline.ok ? baseline.text : '';
  return words.filter((w) => w.length >= 3 && text.includes(w) && !base.includes(w));
}

/** The JSON bodies of the updates that came, with their requests. */
function updates(ctx: AshbyContext): { request: ReceivedRequest; body: Record<string, unknown> | undefined }[] {
  return ctx.receiver.requests.map((request) => {
    try {
      const body = JSON.parse(request.body) as unknown;
      return { request, body: body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined };
    } catch {
      return { request, body: undefined };
    }
  });
}

const isUpdateOf = (r: ReceivedRequest, id: string, has: (body: Record<string, unknown>) => boolean) => {
  if (r.method !== 'POST' || r.path.split('?')[0] !== UPDATE_PATH) return false;
  try {
    const body = JSON.parse(r.body) as Record<string, unknown> | null;
    return body !== null && typeof body === 'object' && body.assessment_id === id && has(body);
  } catch {
    return false;
  }
};

/** What came to the receiver instead, and a hint when nothing did. */
function whatCameInstead(ctx: AshbyContext, id: string): string {
  const came = updates(ctx);
  if (came.length === 0) return ` (nothing came to the checker's Ashby API: is the partner's ASHBY_API_URL ${ctx.receiver.origin}?)`;
  const own = came.filter((u) => u.body?.assessment_id === id).map((u) => Object.keys(u.body!).filter((k) => k !== 'assessment_id' && k !== 'timestamp').join('+') || 'no field');
  const shown = own.length > 0 ? own.map((fields) => `an update with ${fields}`) : came.map((u) => `${u.request.method} ${u.request.path}`);
  return ` (came: ${shown.slice(0, 3).join(', ')})`;
}

/** Posts `body` to the kit's results endpoint for `assessmentId`, signed as the vendor's product signs. */
function postResult(ctx: AshbyContext, label: string, assessmentId: string, body: unknown): Promise<Answer> {
  const raw = JSON.stringify(body);
  const { secret, urlTemplate } = ctx.results!;
  return ctx.probe.send(`results POST ${label}`, {
    method: 'POST',
    url: urlTemplate.replace('{report_id}', encodeURIComponent(assessmentId)),
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, [VENDOR_SIGNATURE_HEADER]: signVendorResult(secret, assessmentId, raw) },
    body: raw,
  });
}

/** One status for each of the three calls, made with `authorization`. */
function authCheck(id: string, name: string, authorization: (ctx: AshbyContext) => string | null): AshbyCheck {
  return {
    id,
    section: '§2',
    name,
    run: async (ctx) => {
      const auth = authorization(ctx);
      const label = `(${id.split('.')[1]!.replace(/_/g, ' ')})`;
      const type = firstType(ctx)?.assessment_type_id ?? randomUUID();
      const bodies: Record<AshbyCall, unknown> = {
        'assessment.list': {},
        'assessment.start': startBody(type, ADA),
        // A made-up id: a partner that cancels without looking at the key must not cancel a real one.
        'assessment.cancel': { assessment_id: randomUUID() },
      };
      const parts: { label: string; verdict: Verdict }[] = [];
      for (const [endpoint, body] of Object.entries(bodies) as [AshbyCall, unknown][]) {
        const answer = await call(ctx, label, endpoint, body, auth);
        const id = startedId(answer);
        if (endpoint === 'assessment.start' && id !== undefined) ctx.state.assessments.set(id, 'key');
        parts.push({ label: endpoint, verdict: expectStatus(answer, 401) });
      }
      const verdict = allOf(parts);
      return verdict.ok ? { ok: true, detail: '401 from each of the three' } : verdict;
    },
  };
}

export const ASHBY_CHECKS: readonly AshbyCheck[] = [
  // --- §3 assessment.list ----------------------------------------------------------------------------
  {
    id: 'list.shape',
    section: '§3',
    name: 'assessment.list answers 200 {success: true, results: [{assessment_type_id, name, description}]}, strings',
    run: async (ctx) => {
      const read = readList(await call(ctx, '', 'assessment.list', {}));
      ctx.state.types = read.types;
      if (read.verdict.ok && read.types!.length === 0) return { ok: false, detail: '200 with no assessment: give the key of an account with at least one test' };
      return read.verdict;
    },
  },

  // --- §3 assessment.start -----------------------------------------------------------------------------
  {
    id: 'start.shape',
    section: '§3',
    name: 'assessment.start with the documented body answers 200 {success: true, results: {assessment_id}}, an update_request a valid update of it',
    applies: needsType,
    run: async (ctx) => {
      const body = startBody(firstType(ctx)!.assessment_type_id, ADA);
      const { answer, id } = await start(ctx, `(${ADA.email})`, body);
      const verdict = expectStatus(answer, 200);
      if (!verdict.ok) return verdict;
      if (id === undefined) return { ok: false, detail: `200, but not {"success": true, "results": {"assessment_id": "<string>"}}: ${describeAnswer(answer, 120)}` };
      const request = (answer.json as { results: { update_request?: unknown } }).results.update_request;
      if (request !== undefined && request !== null) {
        // Ashby's schema makes it an assessment.update body: the partner's first word on the assessment.
        const update = AssessmentUpdate.safeParse(request);
        if (!update.success) return { ok: false, detail: `update_request is no valid assessment.update (${firstIssue(update.error)}): ${JSON.stringify(request).slice(0, 120)}` };
        if (update.data.assessment_id !== id) return { ok: false, detail: `update_request names assessment ${JSON.stringify(update.data.assessment_id)}, not ${JSON.stringify(id)}` };
      }
      ctx.state.first = { id, body };
      const status = (request as { assessment_status?: { value?: unknown } } | undefined)?.assessment_status?.value;
      return { ok: true, detail: `200 assessment_id ${JSON.stringify(id)}${status === undefined ? '' : `, update_request ${JSON.stringify(status)}`}` };
    },
  },
  {
    id: 'start.duplicate',
    section: '§3',
    name: 'the same start again answers 409, or the same assessment_id: never a second assessment',
    applies: needsFirst,
    run: async (ctx) => {
      const { id, body } = ctx.state.first!;
      const { answer } = await start(ctx, '(the same again)', body);
      return sameAssessment(answer, id);
    },
  },
  {
    id: 'start.concurrent',
    section: '§3',
    name: `${CONCURRENT_STARTS} identical starts at once make one assessment: each answer 409 or its assessment_id`,
    applies: needsType,
    run: async (ctx) => {
      // Ashby may send a start again when an answer is slow: the copies arrive together.
      const body = startBody(firstType(ctx)!.assessment_type_id, GRACE);
      const answers = await Promise.all(Array.from({ length: CONCURRENT_STARTS }, (_, i) => start(ctx, `(${GRACE.email}, ${i + 1} of ${CONCURRENT_STARTS} at once)`, body)));
      const ids = new Set(answers.flatMap((a) => (a.id === undefined ? [] : [a.id])));
      const conflicts = answers.filter((a) => a.answer.ok && a.answer.status === 409).length;
      const other = answers.find((a) => a.id === undefined && !(a.answer.ok && a.answer.status === 409));
      if (other) return { ok: false, detail: `expected 200 or 409 from each, got ${describeAnswer(other.answer)}` };
      if (ids.size === 0) return { ok: false, detail: `all ${CONCURRENT_STARTS} answered 409: none started the assessment` };
      if (ids.size > 1) return { ok: false, detail: `${ids.size} assessments for one application and type: ${[...ids].map((i) => JSON.stringify(i)).join(', ')}` };
      const [id] = ids;
      ctx.state.second = { id: id!, body };
      return { ok: true, detail: `one assessment, ${JSON.stringify(id)}: ${CONCURRENT_STARTS - conflicts} × 200, ${conflicts} × 409` };
    },
  },
  {
    id: 'start.unknown_type',
    section: '§3',
    name: 'assessment.start with an assessment_type_id the key does not list answers 422 {message}',
    run: async (ctx) => {
      const { answer } = await start(ctx, '(a made-up assessment_type_id)', startBody(randomUUID(), ADA));
      const verdict = expectStatus(answer, 422);
      if (!verdict.ok) return verdict;
      const message = MessageAnswer.safeParse(answer.json);
      return message.success
        ? { ok: true, detail: `422 ${JSON.stringify(message.data.message)}` }
        : { ok: false, detail: `422 without {"message": "<text Ashby shows its user>"}: ${describeAnswer(answer, 120)}` };
    },
  },

  // --- §2 authentication, on each call ----------------------------------------------------------------
  authCheck('auth.missing', 'every call without Authorization answers 401', () => null),
  authCheck('auth.bearer', 'every call with the key as a Bearer token, not Basic, answers 401', (ctx) => `Bearer ${ctx.key}`),
  authCheck('auth.password', 'every call with the key and a password that is not empty answers 401', (ctx) => basicAuth(ctx.key, 'not-empty')),
  authCheck('auth.no_scheme', 'every call with the base64 credentials and no scheme answers 401', (ctx) => basicAuth(ctx.key).slice('Basic '.length)),
  // Characters outside base64's alphabet after the key's own credentials: a lenient decoder drops
  // them and finds the key; the kit (docs/ashby.md §2) refuses what does not decode.
  authCheck('auth.bad_base64', 'every call with credentials that are not base64 answers 401', (ctx) => `${basicAuth(ctx.key)}!!`),
  authCheck('auth.unknown_key', 'every call with a key the partner never issued answers 401', () => basicAuth(`conformance-unknown-${randomBytes(16).toString('hex')}`)),

  // --- §3, §4 tenant isolation ----------------------------------------------------------------------
  {
    id: 'isolation.list',
    section: '§3',
    name: "assessment.list with another customer's key answers 200 with that customer's list",
    applies: needsOtherKey,
    run: async (ctx) => {
      const read = readList(await call(ctx, '(the other key)', 'assessment.list', {}, basicAuth(ctx.otherKey!)));
      ctx.state.otherTypes = read.types;
      if (!read.verdict.ok) return read.verdict;
      if (read.types!.length === 0) return { ok: false, detail: '200 with no assessment: give --other-key of an account with at least one test' };
      const ids = (types: AshbyAssessmentType[] | undefined) => JSON.stringify((types ?? []).map((t) => t.assessment_type_id.toLowerCase()).sort());
      const same = ids(read.types) === ids(ctx.state.types);
      return { ok: true, detail: `${read.verdict.detail}, ${same ? "the same as the first key's (the two customers may have the same tests)" : "not the first key's"}` };
    },
  },
  {
    id: 'isolation.start',
    section: '§3',
    name: "another customer's start with this customer's assessment type is refused as a made-up type is, naming nothing of it; its own type starts",
    applies: (ctx) => {
      const other = needsOtherKey(ctx);
      if (other !== true) return other;
      if (!ctx.state.otherTypes?.length) return 'needs the list of isolation.list';
      return ownOnlyType(ctx) ? true : 'the other key lists every assessment the first key lists: give --other-key of a customer without the first one\'s test';
    },
    run: async (ctx) => {
      const type = ownOnlyType(ctx)!;
      const shown = `${JSON.stringify(type.assessment_type_id)} (${type.name})`;
      const theirs = await start(ctx, "(the other key, this customer's type)", startBody(type.assessment_type_id, EDSGER), 'otherKey');
      if (theirs.id !== undefined) return { ok: false, detail: `the other key started an assessment, ${JSON.stringify(theirs.id)}, of type ${shown}, which only this customer lists` };
      const madeUp = await start(ctx, '(the other key, a made-up type)', startBody(randomUUID(), EDSGER), 'otherKey');
      if (!theirs.answer.ok || !madeUp.answer.ok || theirs.answer.status !== madeUp.answer.status || successOf(theirs.answer) !== successOf(madeUp.answer)) {
        return {
          ok: false,
          detail: `this customer's type answered ${describeAnswer(theirs.answer, 80)}, a made-up one ${describeAnswer(madeUp.answer, 80)}: the other customer learns which types exist`,
        };
      }
      const named = namedOfTheCustomer(theirs.answer, madeUp.answer, [type.name, ...[...ctx.state.assessments].filter(([, who]) => who === 'key').map(([id]) => id)]);
      if (named.length > 0) return { ok: false, detail: `the refusal names this customer's ${named.map((w) => JSON.stringify(w)).join(', ')}: ${describeAnswer(theirs.answer, 120)}` };
      // The refusal must be the type's: the other customer's start of its own type is taken.
      const own = ctx.state.otherTypes![0]!;
      const mine = await start(ctx, "(the other key, its own type)", startBody(own.assessment_type_id, EDSGER), 'otherKey');
      if (mine.id === undefined) {
        return {
          ok: false,
          detail: `the other key's start of its own type ${JSON.stringify(own.name)} is refused too, so the refusal says nothing of the type (is that customer's Ashby API key set?): ${describeAnswer(mine.answer, 160)}`,
        };
      }
      ctx.state.otherOwn = mine.id;
      return { ok: true, detail: `${theirs.answer.status} as for a made-up type, naming nothing of this customer; its own type: 200 ${JSON.stringify(mine.id)}` };
    },
  },
  {
    id: 'isolation.cancel',
    section: '§4',
    name: "another customer's cancel of this customer's assessment is refused as an unknown id is, naming nothing of it, and the assessment goes on",
    applies: (ctx) => {
      const other = needsOtherKey(ctx);
      return other === true ? needsType(ctx) : other;
    },
    run: async (ctx) => {
      const target = await second(ctx);
      if ('ok' in target) return target;
      const other = basicAuth(ctx.otherKey!);
      const theirs = await call(ctx, "(the other key, this customer's assessment)", 'assessment.cancel', { assessment_id: target.id }, other);
      if (successOf(theirs) === true || startedId(theirs) !== undefined) {
        return { ok: false, detail: `the other key canceled this customer's assessment ${JSON.stringify(target.id)}: ${describeAnswer(theirs, 120)}` };
      }
      const unknown = await call(ctx, '(the other key, an unknown id)', 'assessment.cancel', { assessment_id: randomUUID() }, other);
      if (!theirs.ok || !unknown.ok || theirs.status !== unknown.status || successOf(theirs) !== successOf(unknown)) {
        return { ok: false, detail: `this customer's assessment answered ${describeAnswer(theirs, 80)}, an unknown id ${describeAnswer(unknown, 80)}: the other customer learns it exists` };
      }
      const named = namedOfTheCustomer(theirs, unknown, [GRACE.email, GRACE.first_name, GRACE.last_name, ...(ctx.state.types ?? []).map((t) => t.name)]);
      if (named.length > 0) return { ok: false, detail: `the refusal names this customer's ${named.map((w) => JSON.stringify(w)).join(', ')}: ${describeAnswer(theirs, 120)}` };
      // Unchanged: still under way, so the same start again is the same assessment.
      const again = await start(ctx, `(${GRACE.email} again, after the other key's cancel)`, target.body);
      const still = sameAssessment(again.answer, target.id);
      if (!still.ok) return { ok: false, detail: `after the other key's cancel, the same start again: ${still.detail}: the assessment is no longer under way` };
      let mine = '';
      if (ctx.state.otherOwn !== undefined) {
        // The refusal must be the owner's: the other customer cancels its own assessment.
        const own = await call(ctx, '(the other key, its own assessment)', 'assessment.cancel', { assessment_id: ctx.state.otherOwn }, other);
        if (successOf(own) !== true) return { ok: false, detail: `the other key cannot cancel its own assessment ${JSON.stringify(ctx.state.otherOwn)} either, so the refusal says nothing: ${describeAnswer(own, 120)}` };
        mine = '; its own: canceled';
      }
      return { ok: true, detail: `${theirs.status} as for an unknown id, naming nothing of this customer; the same start then: ${still.detail}${mine}` };
    },
  },

  // --- §4 assessment.cancel ---------------------------------------------------------------------------
  {
    id: 'cancel.answer',
    section: '§4',
    name: 'assessment.cancel of an assessment under way answers 200 {success: true, results: {assessment_id}}',
    applies: needsType,
    run: async (ctx) => {
      const target = await second(ctx);
      if ('ok' in target) return target;
      const answer = await call(ctx, `(${GRACE.email})`, 'assessment.cancel', { assessment_id: target.id });
      const verdict = expectStatus(answer, 200);
      if (!verdict.ok) return verdict;
      const id = startedId(answer);
      if (id === undefined) return { ok: false, detail: `200, but not {"success": true, "results": {"assessment_id": "<string>"}}: ${describeAnswer(answer, 120)}` };
      return id === target.id ? { ok: true, detail: `200 success, assessment_id ${JSON.stringify(id)}` } : { ok: false, detail: `200 naming assessment ${JSON.stringify(id)}, not ${JSON.stringify(target.id)}` };
    },
  },
  {
    id: 'cancel.unknown',
    section: '§4',
    name: 'assessment.cancel of an unknown assessment_id is refused: 200 {success: false, errorInfo} or a 4xx',
    run: async (ctx) => {
      const answer = await call(ctx, '(an unknown id)', 'assessment.cancel', { assessment_id: randomUUID() });
      if (!answer.ok) return { ok: false, detail: describeAnswer(answer) };
      if (answer.status >= 400 && answer.status < 500) return { ok: true, detail: describeAnswer(answer, 80) };
      const error = json(answer) as { success?: unknown; errorInfo?: { code?: unknown } } | undefined;
      if (answer.status === 200 && error?.success === false && typeof error.errorInfo?.code === 'string') {
        return { ok: true, detail: `200 success: false, ${error.errorInfo.code}` };
      }
      return { ok: false, detail: `expected 200 {success: false, errorInfo: {code}} or a 4xx, got ${describeAnswer(answer, 120)}` };
    },
  },

  // --- §6 assessment.update, after progress and a result --------------------------------------------
  {
    id: 'update.started',
    section: '§6',
    name: "the candidate's progress, started, is told as assessment.update with assessment_status \"Started\"",
    applies: (ctx) => {
      const first = needsFirst(ctx);
      if (first !== true) return first;
      // Only the results endpoint can make a partner hear the candidate start: nothing else the checker does would.
      return ctx.results ? true : 'give --results-secret: the checker reports the candidate starting through the results endpoint';
    },
    run: async (ctx) => {
      const { id } = ctx.state.first!;
      const posted = await postResult(ctx, '(the candidate started)', id, { status: 'started' });
      if (!posted.ok || posted.status !== 200) {
        // A partner whose results endpoint takes no progress: there is nothing to tell Ashby.
        return { notRun: `the results endpoint did not take the progress stage "started" (${describeAnswer(posted, 80)}), so the checker cannot make the partner report progress` };
      }
      const started = performance.now();
      const update = await ctx.receiver.waitFor(
        (r) => isUpdateOf(r, id, (b) => (b.assessment_status as { value?: unknown } | null | undefined)?.value === 'Started'),
        ctx.updateTimeoutMs,
      );
      if (!update) return { ok: false, detail: `no assessment.update of ${JSON.stringify(id)} with assessment_status "Started" within ${ctx.updateTimeoutMs / 1000} s${whatCameInstead(ctx, id)}` };
      return { ok: true, detail: `${Math.round(performance.now() - started)} ms after the progress` };
    },
  },
  {
    id: 'update.received',
    section: '§6',
    name: "once the result is in, the partner posts assessment.update with assessment_result to Ashby's API",
    applies: needsFirst,
    run: async (ctx) => {
      const { id } = ctx.state.first!;
      const seconds = ctx.updateTimeoutMs / 1000;
      ctx.state.resultAt = Date.now();
      if (ctx.results) {
        const answer = await postResult(ctx, '(the result)', id, RESULT);
        if (!answer.ok || answer.status !== 200) return { ok: false, detail: `the results endpoint did not take the result: ${describeAnswer(answer)}` };
      } else {
        ctx.notice(
          `Complete the assessment of ${ADA.email} (assessment_id ${id}) by hand now, in the partner's product or dashboard, with a score of 87: ` +
            `the checker waits up to ${seconds} s for its assessment.update at ${ctx.receiver.origin}${UPDATE_PATH} (--update-timeout; or give --results-secret to post the result itself).`,
        );
      }
      const started = performance.now();
      const received = await ctx.receiver.waitFor((r) => isUpdateOf(r, id, (b) => b.assessment_result != null), ctx.updateTimeoutMs);
      if (!received) return { ok: false, detail: `no assessment.update of ${JSON.stringify(id)} with assessment_result within ${seconds} s${whatCameInstead(ctx, id)}` };
      ctx.state.update = { request: received, body: JSON.parse(received.body) as Record<string, unknown>, at: Date.now() };
      return { ok: true, detail: `POST ${UPDATE_PATH}, ${Math.round(performance.now() - started)} ms after ${ctx.results ? 'the result' : 'the notice'}` };
    },
  },
  {
    id: 'update.auth',
    section: '§5',
    name: "every assessment.update carries Authorization: Basic base64(<the customer's Ashby API key> + \":\")",
    applies: needsUpdate,
    run: async (ctx) => {
      const keyOf = (who: 'key' | 'otherKey') => (who === 'key' ? ctx.apiKeys.key : ctx.apiKeys.otherKey);
      const problems: string[] = [];
      let count = 0;
      for (const { request, body } of updates(ctx)) {
        const who = ctx.state.assessments.get(String(body?.assessment_id));
        const own = who === undefined ? undefined : keyOf(who);
        if (own === undefined) continue;
        count++;
        if (isAshbyAuth(request.headers.authorization, own)) continue;
        const others = [
          { what: "the other customer's Ashby API key", key: who === 'key' ? ctx.apiKeys.otherKey : ctx.apiKeys.key },
          { what: "the key the partner gave the customer (the one Ashby calls with), not the customer's Ashby API key", key: who === 'key' ? ctx.key : ctx.otherKey! },
        ];
        problems.push(`the update of ${JSON.stringify(body!.assessment_id)}: ${describeUpdateAuth(request.headers.authorization, { own, others })}`);
      }
      if (problems.length > 0) return { ok: false, detail: `${problems.slice(0, 2).join('; ')}${problems.length > 2 ? ` (and ${problems.length - 2} more)` : ''}` };
      return { ok: true, detail: `${count} update${count === 1 ? '' : 's'}, each with Basic, the customer's Ashby API key and an empty password` };
    },
  },
  {
    id: 'update.score',
    section: '§6',
    name: 'its assessment_result is a numeric_score whose value is a number',
    applies: needsUpdate,
    run: async (ctx) => {
      const result = ctx.state.update!.body.assessment_result;
      const parsed = AssessmentData.safeParse(result);
      const shown = JSON.stringify(result).slice(0, 120);
      if (!parsed.success) return { ok: false, detail: `assessment_result is no typed value (${firstIssue(parsed.error)}): ${shown}` };
      if (parsed.data.type !== 'numeric_score') return { ok: false, detail: `assessment_result is of type ${JSON.stringify(parsed.data.type)}, not "numeric_score", for the score ${JSON.stringify(RESULT.score)}: ${shown}` };
      return { ok: true, detail: `numeric_score ${String(parsed.data.value)} for the score ${JSON.stringify(RESULT.score)}` };
    },
  },
  {
    id: 'update.profile_url',
    section: '§6',
    name: 'it carries assessment_profile_url, of type url, an absolute http(s) URL',
    applies: needsUpdate,
    run: async (ctx) => {
      const profile = ctx.state.update!.body.assessment_profile_url;
      const parsed = AssessmentData.safeParse(profile);
      const shown = JSON.stringify(profile)?.slice(0, 120) ?? 'absent';
      if (profile == null) return { ok: false, detail: 'no assessment_profile_url: Ashby requires one with a result' };
      if (!parsed.success) return { ok: false, detail: `assessment_profile_url is no typed value (${firstIssue(parsed.error)}): ${shown}` };
      if (parsed.data.type !== 'url') return { ok: false, detail: `assessment_profile_url is of type ${JSON.stringify(parsed.data.type)}, not "url": ${shown}` };
      const url = URL.canParse(String(parsed.data.value)) ? new URL(String(parsed.data.value)) : undefined;
      if (!url || !/^https?:$/.test(url.protocol)) return { ok: false, detail: `assessment_profile_url's value is no absolute http(s) URL: ${shown}` };
      return { ok: true, detail: `url ${url.origin}/…` };
    },
  },
  {
    id: 'update.timestamp',
    section: '§6',
    name: 'its timestamp is an integer count of milliseconds since the epoch, when the result came in',
    applies: needsUpdate,
    run: async (ctx) => {
      const { body, at } = ctx.state.update!;
      const t = body.timestamp;
      if (typeof t !== 'number' || !Number.isInteger(t)) return { ok: false, detail: `timestamp is ${JSON.stringify(t)}, not an integer` };
      // Seconds since the epoch are a thousand times smaller: read as milliseconds, January 1970.
      if (t < 1e11) return { ok: false, detail: `timestamp ${t} reads as ${new Date(t).toISOString()}: seconds, not milliseconds, since the epoch?` };
      const from = ctx.state.resultAt! - CLOCK_SKEW_MS;
      const to = at + CLOCK_SKEW_MS;
      if (t < from || t > to) {
        return { ok: false, detail: `timestamp ${t} (${new Date(t).toISOString()}) is ${Math.round(Math.abs(t - ctx.state.resultAt!) / 1000)} s from the result, more than the ${CLOCK_SKEW_MS / 60_000} minutes clocks may differ by` };
      }
      return { ok: true, detail: `${t}, ${t - ctx.state.resultAt! >= 0 ? '+' : ''}${t - ctx.state.resultAt!} ms from the result on the checker's clock` };
    },
  },

  // --- §6 every update of the run -------------------------------------------------------------------
  {
    id: 'update.bodies',
    section: '§6',
    name: "every request to Ashby's API is a JSON assessment.update of one of the run's assessments, valid by Ashby's schema",
    run: async (ctx) => {
      const came = updates(ctx);
      if (came.length === 0) return { notRun: "no request came to the checker's Ashby API" };
      const problems: string[] = [];
      for (const { request, body } of came) {
        const what = body && typeof body.assessment_id === 'string' ? `the update of ${JSON.stringify(body.assessment_id)}` : `${request.method} ${request.path}`;
        if (request.method !== 'POST' || request.path.split('?')[0] !== UPDATE_PATH) {
          problems.push(`${request.method} ${request.path}: not POST ${UPDATE_PATH}`);
          continue;
        }
        const type = String(request.headers['content-type'] ?? '');
        if (!/^application\/json\b/i.test(type)) problems.push(`${what}: Content-Type ${type === '' ? 'absent' : JSON.stringify(type)}, not application/json`);
        if (!body) {
          problems.push(`${what}: the body is no JSON object: ${JSON.stringify(request.body.slice(0, 80))}`);
          continue;
        }
        const parsed = AssessmentUpdate.safeParse(body);
        if (!parsed.success) problems.push(`${what}: ${firstIssue(parsed.error)}`);
        else if (!ctx.state.assessments.has(parsed.data.assessment_id)) problems.push(`${what}: no assessment the partner gave in this run`);
      }
      if (problems.length > 0) return { ok: false, detail: `${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}` };
      return { ok: true, detail: `${came.length} update${came.length === 1 ? '' : 's'}, each valid` };
    },
  },
];
