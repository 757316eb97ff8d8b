import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { VENDOR_SIGNATURE_HEADER, signVendorResult } from '../../../contract/vendor-signature.js';
import { FOUR_XX, USER_AGENT, allOf, basicAuth, describeAnswer, expectStatus, jsonRequest, type Answer, type Probe } from '../../probe.js';
import type { Receiver, ReceivedRequest } from '../../receiver.js';
import { RESULT } from '../../results-checks.js';
import type { Check, Verdict } from '../../types.js';
import {
  GreenhouseTest,
  PATCH_PATH,
  SendTestAnswer,
  TestStatusAnswer,
  responseErrorBody,
  sendTestBody,
  type GreenhouseTargets,
} from './wire.js';

/**
 * The checks of a partner's Greenhouse endpoints (docs/greenhouse.md), made as Greenhouse makes its
 * calls. They run in this order and build on each other: the sends use the first test the key
 * lists; the status, isolation and PATCH checks follow the interview of the first send, whose `url`
 * is on the checker's own receiver.
 */

export interface GreenhouseContext {
  probe: Probe;
  targets: GreenhouseTargets;
  /** The customer's key, as Greenhouse sends it. */
  key: string;
  /** A second customer's key, for the tenant isolation checks. */
  otherKey?: string;
  receiver: Receiver;
  /** Posts the interview's result through the kit's results endpoint; without it, a person completes the test. */
  results?: { secret: string; urlTemplate: string };
  /** How long to wait for the PATCH once the test is complete (or the person was asked to complete it). */
  patchTimeoutMs: number;
  /** Told what the person running the checker must do now (complete the test by hand). */
  notice: (text: string) => void;
  /** What earlier checks learned. */
  state: {
    tests?: GreenhouseTest[];
    /** The first send, accepted: its interview and the `url` it gave. */
    interview?: { id: string; url: string; path: string };
    /** The tests the other key lists (isolation.list_tests). */
    otherTests?: GreenhouseTest[];
    /** The refused `url` on the receiver, once send_test.url_not_allowed sent it, and its interview if the partner took it. */
    refused?: { url: string; path: string; interviewId?: string };
    /** The request that came to the interview's `url`, if one did. */
    patch?: ReceivedRequest;
    /** test_status after the PATCH, when it answered a JSON object. */
    finalStatus?: Record<string, unknown>;
  };
}

export type GreenhouseCheck = Check<GreenhouseContext>;

const ENDPOINTS = ['list_tests', 'send_test', 'test_status', 'response_error'] as const;
type Endpoint = (typeof ENDPOINTS)[number];

/** The host the metadata services of cloud machines answer on: the classic target of a forged URL. */
const METADATA_HOST = '169.254.169.254';

const interviewPath = (n: number) => `${PATCH_PATH}/${n}`;
/** The candidate of the first send (wire.ts's sendTestBody), and the other one sent the same test. */
const FIRST_CANDIDATE_EMAIL = 'hpotter@example.com';
const SECOND_CANDIDATE = { first_name: 'Hermione', last_name: 'Granger', preferred_name: null, email: 'hgranger@example.com' } as const;
/** A test the other key lists and the first key does not. */
const otherCustomersTest = (ctx: GreenhouseContext) => {
  const own = new Set((ctx.state.tests ?? []).map((t) => t.partner_test_id));
  return ctx.state.otherTests?.find((t) => !own.has(t.partner_test_id));
};
const firstTest = (ctx: GreenhouseContext) => ctx.state.tests?.[0];
const needsTest = (ctx: GreenhouseContext) => (firstTest(ctx) ? true : 'no test listed for the key: see list_tests.list');
const needsInterview = (ctx: GreenhouseContext) => (ctx.state.interview ? true : 'needs a successful send_test.create');
const needsOtherKey = (ctx: GreenhouseContext) => (ctx.otherKey === undefined ? 'give --other-key' : true);

/** Greenhouse's call to `endpoint`, with `authorization` (Greenhouse's own by default). */
function call(ctx: GreenhouseContext, label: string, endpoint: Endpoint, options: { authorization?: string | null; body?: unknown; interviewId?: string } = {}) {
  const authorization = options.authorization === null ? undefined : (options.authorization ?? basicAuth(ctx.key));
  const req = (() => {
    switch (endpoint) {
      case 'list_tests':
        return jsonRequest({ method: 'GET', url: ctx.targets.listTests, authorization });
      case 'send_test':
        return jsonRequest({ method: 'POST', url: ctx.targets.sendTest, authorization, body: options.body });
      case 'test_status':
        return jsonRequest({ method: 'GET', url: ctx.targets.testStatus, authorization, query: { partner_interview_id: options.interviewId ?? '' } });
      case 'response_error':
        return jsonRequest({ method: 'POST', url: ctx.targets.responseError, authorization, body: options.body });
    }
  })();
  return ctx.probe.send(`${endpoint} ${label}`.trim(), req);
}

/** A send_test body for the key's first test and a fresh `url` on the receiver. */
function validSend(ctx: GreenhouseContext, candidate: Record<string, unknown> = {}) {
  const n = randomInt(1, 1_000_000_000);
  const url = ctx.receiver.url(interviewPath(n));
  return { body: sendTestBody(firstTest(ctx)?.partner_test_id ?? '1', url, candidate), url, path: interviewPath(n) };
}

/** §2: 200 with a JSON array of `{partner_test_id: string, partner_test_name: string}`. */
function readTests(answer: Answer): { verdict: Verdict; tests?: GreenhouseTest[] } {
  if (!answer.ok || answer.status !== 200) return { verdict: { ok: false, detail: `expected 200, got ${describeAnswer(answer)}` } };
  if (!Array.isArray(answer.json)) return { verdict: { ok: false, detail: `expected a JSON array, got ${describeAnswer(answer, 80)}` } };
  const items = answer.json as unknown[];
  const invalid = items.findIndex((item) => !GreenhouseTest.safeParse(item).success);
  if (invalid !== -1) {
    const issue = GreenhouseTest.safeParse(items[invalid]).error!.issues[0];
    return { verdict: { ok: false, detail: `item ${invalid}: ${issue?.path.join('.') || 'item'} ${issue?.message ?? 'is invalid'}: ${JSON.stringify(items[invalid]).slice(0, 120)}` } };
  }
  const tests = items as GreenhouseTest[];
  return { verdict: { ok: true, detail: `200, ${tests.length} test${tests.length === 1 ? '' : 's'}` }, tests };
}

/** One status for each of the four endpoints, called with `authorization`. */
function authCheck(id: string, name: string, authorization: (ctx: GreenhouseContext) => string | null): GreenhouseCheck {
  return {
    id,
    section: '§2',
    name,
    run: async (ctx) => {
      const auth = authorization(ctx);
      const label = `(${id.split('.')[1]!.replace(/_/g, ' ')})`;
      const interviewId = ctx.state.interview?.id ?? randomUUID();
      const test = firstTest(ctx);
      const parts: { label: string; verdict: Verdict }[] = [];
      for (const endpoint of ENDPOINTS) {
        const body =
          endpoint === 'send_test'
            ? validSend(ctx).body
            : endpoint === 'response_error'
              ? responseErrorBody(interviewId, test?.partner_test_id ?? '1', test?.partner_test_name ?? 'Test')
              : undefined;
        const answer = await call(ctx, label, endpoint, { authorization: auth, body, interviewId });
        parts.push({ label: endpoint, verdict: expectStatus(answer, 401) });
      }
      const verdict = allOf(parts);
      return verdict.ok ? { ok: true, detail: '401 from each of the four' } : verdict;
    },
  };
}

/** Whether `header` is `Basic base64(key + ":")` (the scheme in any case, RFC 9110 §11.1), the credentials compared in constant time. */
function isGreenhouseAuth(header: string | undefined, key: string): boolean {
  const [scheme, credentials, ...rest] = (header ?? '').trim().split(/\s+/);
  if (scheme?.toLowerCase() !== 'basic' || credentials === undefined || rest.length > 0) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(credentials), digest(basicAuth(key).slice('Basic '.length)));
}

/** What an Authorization header is, in words that never show the key. */
function describeAuth(header: string | undefined, key: string): string {
  if (header === undefined) return 'no Authorization header';
  const [scheme = '', credentials = ''] = header.split(/\s+/, 2);
  if (scheme.toLowerCase() !== 'basic') return `Authorization ${scheme || 'without a scheme'}, not Basic`;
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return 'Basic without a "user:password" pair';
  const user = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (user !== key) return 'Basic with another user name than the key';
  return password === '' ? 'Basic with the key and an empty password' : 'Basic with the key and a password that is not empty';
}

/** `partner_status` and the fields that must come with `complete` (§2). */
function statusOf(answer: Answer): { verdict: Verdict; status?: Record<string, unknown> } {
  if (!answer.ok || answer.status !== 200) return { verdict: { ok: false, detail: `expected 200, got ${describeAnswer(answer)}` } };
  const json = answer.json;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { verdict: { ok: false, detail: `expected a JSON object, got ${describeAnswer(answer, 80)}` } };
  const status = json as Record<string, unknown>;
  if (typeof status.partner_status !== 'string' || status.partner_status === '') {
    return { verdict: { ok: false, detail: `partner_status is not a string: ${describeAnswer(answer, 120)}` }, status };
  }
  return { verdict: { ok: true, detail: `200 partner_status ${JSON.stringify(status.partner_status)}` }, status };
}

async function postResult(ctx: GreenhouseContext, interviewId: string): Promise<Answer> {
  const body = JSON.stringify(RESULT);
  const { secret, urlTemplate } = ctx.results!;
  return ctx.probe.send('results POST (the result)', {
    method: 'POST',
    url: urlTemplate.replace('{report_id}', encodeURIComponent(interviewId)),
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, [VENDOR_SIGNATURE_HEADER]: signVendorResult(secret, interviewId, body) },
    body,
  });
}

export const GREENHOUSE_CHECKS: readonly GreenhouseCheck[] = [
  // --- §2 list_tests --------------------------------------------------------------------------------
  {
    id: 'list_tests.list',
    section: '§2',
    name: 'list_tests answers 200 with an array of {partner_test_id, partner_test_name}, strings',
    run: async (ctx) => {
      const read = readTests(await call(ctx, '', 'list_tests'));
      ctx.state.tests = read.tests;
      if (read.verdict.ok && read.tests!.length === 0) return { ok: false, detail: '200 []: give the key of an account with at least one test' };
      return read.verdict;
    },
  },

  // --- §2 send_test ---------------------------------------------------------------------------------
  {
    id: 'send_test.create',
    section: '§2',
    name: 'send_test with the documented body answers 200 {partner_interview_id}',
    applies: needsTest,
    run: async (ctx) => {
      const { body, url, path } = validSend(ctx);
      const answer = await call(ctx, '', 'send_test', { body });
      const verdict = expectStatus(answer, 200);
      if (!verdict.ok) return verdict;
      const parsed = SendTestAnswer.safeParse(answer.json);
      if (!parsed.success) return { ok: false, detail: `200, but not {"partner_interview_id": "<string>"}: ${describeAnswer(answer, 120)}` };
      ctx.state.interview = { id: parsed.data.partner_interview_id, url, path };
      return { ok: true, detail: `200 partner_interview_id ${JSON.stringify(parsed.data.partner_interview_id)}` };
    },
  },
  {
    id: 'test_status.pending',
    section: '§2',
    name: 'test_status right after the send answers 200 with a partner_status that is not complete',
    applies: needsInterview,
    run: async (ctx) => {
      const { verdict, status } = statusOf(await call(ctx, '(after the send)', 'test_status', { interviewId: ctx.state.interview!.id }));
      if (!verdict.ok) return verdict;
      return status!.partner_status === 'complete' ? { ok: false, detail: 'partner_status "complete" before the candidate took the test' } : verdict;
    },
  },
  {
    id: 'send_test.distinct_interviews',
    section: '§2',
    name: 'send_test for another candidate answers a partner_interview_id of its own',
    applies: needsInterview,
    run: async (ctx) => {
      // Greenhouse sends no idempotency key: each call is a new test instance (§2). A partner that
      // answers the id it gave before (the same test, the same key) shows one candidate's result
      // on the other's profile, and PATCHes only the first send's url.
      const { body } = validSend(ctx, SECOND_CANDIDATE);
      const answer = await call(ctx, '(another candidate)', 'send_test', { body });
      const verdict = expectStatus(answer, 200);
      if (!verdict.ok) return verdict;
      const parsed = SendTestAnswer.safeParse(answer.json);
      if (!parsed.success) return { ok: false, detail: `200, but not {"partner_interview_id": "<string>"}: ${describeAnswer(answer, 120)}` };
      const first = ctx.state.interview!.id;
      if (parsed.data.partner_interview_id === first) {
        return {
          ok: false,
          detail: `${SECOND_CANDIDATE.email} got the partner_interview_id of ${FIRST_CANDIDATE_EMAIL}, ${JSON.stringify(first)}: one test instance for two candidates`,
        };
      }
      return { ok: true, detail: `200 partner_interview_id ${JSON.stringify(parsed.data.partner_interview_id)}, not the first send's` };
    },
  },
  {
    id: 'send_test.unknown_test',
    section: '§2',
    name: 'send_test with a test the key does not list, a made-up id and an unlisted number, answers 4xx',
    run: async (ctx) => {
      const listed = (ctx.state.tests ?? []).map((t) => Number(t.partner_test_id)).filter(Number.isSafeInteger);
      const unlisted = String(Math.max(900_000, ...listed) + 1 + randomInt(1000));
      const parts = [];
      for (const [label, id] of [['made-up id', `no-such-test-${randomBytes(4).toString('hex')}`], [`unlisted id ${unlisted}`, unlisted]] as const) {
        const { body } = validSend(ctx);
        const answer = await call(ctx, `(${label})`, 'send_test', { body: { ...body, partner_test_id: id } });
        parts.push({ label, verdict: expectStatus(answer, FOUR_XX) });
      }
      return allOf(parts);
    },
  },
  {
    id: 'send_test.missing_email',
    section: '§2',
    name: 'send_test without candidate.email answers 4xx',
    applies: needsTest,
    run: async (ctx) => {
      const { body } = validSend(ctx);
      const { email: _email, ...candidate } = body.candidate as Record<string, unknown>;
      return expectStatus(await call(ctx, '(no candidate.email)', 'send_test', { body: { ...body, candidate } }), FOUR_XX);
    },
  },
  {
    id: 'send_test.url_not_allowed',
    section: '§4',
    name: 'send_test with a url outside the allowlist answers 4xx: a host not allowed, a user name and password',
    applies: needsTest,
    run: async (ctx) => {
      // 169.254.169.254 is a cloud machine's metadata service: nothing the checker can watch. The
      // url with credentials is on the checker's receiver, where a request the partner makes to it
      // is seen (send_test.url_unreached, at the end of the run).
      const n = randomInt(1, 1_000_000_000);
      const refused = ctx.receiver.url(interviewPath(n)).replace('http://', 'http://greenhouse:not-allowed@');
      ctx.state.refused = { url: refused, path: interviewPath(n) };
      const parts = [];
      for (const [label, url] of [[METADATA_HOST, `https://${METADATA_HOST}${interviewPath(n)}`], ['user name and password', refused]] as const) {
        const { body } = validSend(ctx);
        const answer = await call(ctx, `(url: ${label})`, 'send_test', { body: { ...body, url } });
        const verdict = expectStatus(answer, FOUR_XX);
        const id = SendTestAnswer.safeParse(answer.json);
        if (url === refused && !verdict.ok && id.success) ctx.state.refused.interviewId = id.data.partner_interview_id;
        parts.push({ label, verdict });
      }
      return allOf(parts);
    },
  },

  {
    id: 'send_test.url_plain_http',
    section: '§4',
    name: 'send_test with a url on plain http to a host not allowed answers 4xx',
    applies: needsTest,
    run: async (ctx) => {
      // The metadata service again, over http: an allowlist that judges https only, or takes any
      // http url as a test set-up, sends the PATCH and the customer's key there.
      const url = `http://${METADATA_HOST}${interviewPath(randomInt(1, 1_000_000_000))}`;
      const { body } = validSend(ctx);
      const verdict = expectStatus(await call(ctx, `(url: http://${METADATA_HOST})`, 'send_test', { body: { ...body, url } }), FOUR_XX);
      return verdict.ok ? verdict : { ok: false, detail: `${verdict.detail}: the partner would PATCH ${url}` };
    },
  },

  // --- §2 authentication, on each endpoint -------------------------------------------------------
  authCheck('auth.missing', 'every endpoint without Authorization answers 401', () => null),
  authCheck('auth.unknown_key', 'every endpoint with a key the partner never issued answers 401', () => basicAuth(`conformance-unknown-${randomBytes(16).toString('hex')}`)),
  authCheck('auth.bearer', 'every endpoint with the key as a Bearer token, not Basic, answers 401', (ctx) => `Bearer ${ctx.key}`),
  authCheck('auth.password', 'every endpoint with the key and a password that is not empty answers 401', (ctx) => basicAuth(ctx.key, 'not-empty')),

  // --- §2 test_status ---------------------------------------------------------------------------------
  {
    id: 'test_status.unknown',
    section: '§2',
    name: 'test_status of an unknown partner_interview_id answers 404',
    run: async (ctx) => expectStatus(await call(ctx, '(unknown id)', 'test_status', { interviewId: randomUUID() }), 404),
  },

  // --- §2 tenant isolation ----------------------------------------------------------------------------
  {
    id: 'isolation.test_status',
    section: '§2',
    name: "test_status of one customer's interview with another customer's key answers 404",
    applies: (ctx) => {
      const other = needsOtherKey(ctx);
      return other === true ? needsInterview(ctx) : other;
    },
    run: async (ctx) => {
      const answer = await call(ctx, '(the other key)', 'test_status', { authorization: basicAuth(ctx.otherKey!), interviewId: ctx.state.interview!.id });
      const verdict = expectStatus(answer, 404);
      return verdict.ok ? verdict : { ok: false, detail: `${verdict.detail}: another customer's key reads this customer's interview` };
    },
  },
  {
    id: 'isolation.list_tests',
    section: '§2',
    name: "list_tests with another customer's key answers 200 with that customer's list",
    applies: needsOtherKey,
    run: async (ctx) => {
      const read = readTests(await call(ctx, '(the other key)', 'list_tests', { authorization: basicAuth(ctx.otherKey!) }));
      ctx.state.otherTests = read.tests;
      if (!read.verdict.ok) return read.verdict;
      // Two customers may have the same tests: a list like the first says nothing, one unlike it shows the key is read.
      const ids = (tests: GreenhouseTest[] | undefined) => JSON.stringify((tests ?? []).map((t) => t.partner_test_id).sort());
      const same = ids(read.tests) === ids(ctx.state.tests);
      return { ok: true, detail: `${read.verdict.detail}, ${same ? "the same as the first key's (the two customers may have the same tests)" : "not the first key's"}` };
    },
  },

  {
    id: 'isolation.send_test',
    section: '§2',
    name: "send_test with one customer's key for a test only another customer lists answers 4xx",
    applies: (ctx) => {
      const other = needsOtherKey(ctx);
      if (other !== true) return other;
      if (!ctx.state.otherTests) return 'needs the list of isolation.list_tests';
      return otherCustomersTest(ctx) ? true : "the other key lists no test the first key does not: give --other-key of a customer with a test of its own";
    },
    run: async (ctx) => {
      const test = otherCustomersTest(ctx)!;
      const { body } = validSend(ctx);
      const answer = await call(ctx, "(the other customer's test)", 'send_test', { body: { ...body, partner_test_id: test.partner_test_id } });
      const verdict = expectStatus(answer, FOUR_XX);
      const shown = `${JSON.stringify(test.partner_test_id)} (${test.partner_test_name})`;
      return verdict.ok
        ? { ok: true, detail: `${verdict.detail} for test ${shown}` }
        : { ok: false, detail: `${verdict.detail}: the key sent test ${shown}, which only the other customer lists` };
    },
  },

  // --- §2 response_error ------------------------------------------------------------------------------
  {
    id: 'response_error.accept',
    section: '§2',
    name: 'response_error with the documented body answers 200',
    run: async (ctx) => {
      const test = firstTest(ctx);
      const body = responseErrorBody(ctx.state.interview?.id ?? randomUUID(), test?.partner_test_id ?? '1', test?.partner_test_name ?? 'Test');
      return expectStatus(await call(ctx, '', 'response_error', { body }), 200);
    },
  },

  // --- §3 the PATCH, and the status after it ---------------------------------------------------------
  {
    id: 'patch.received',
    section: '§3',
    name: "once the test is complete, the partner sends a PATCH to the send's url",
    applies: needsInterview,
    run: async (ctx) => {
      const { id, url, path } = ctx.state.interview!;
      const seconds = ctx.patchTimeoutMs / 1000;
      if (ctx.results) {
        const answer = await postResult(ctx, id);
        if (!answer.ok || answer.status !== 200) return { ok: false, detail: `the results endpoint did not take the result: ${describeAnswer(answer)}` };
      } else {
        ctx.notice(
          `Complete the test of ${FIRST_CANDIDATE_EMAIL} (partner_interview_id ${id}) by hand now, in the partner's product or dashboard: ` +
            `the checker waits up to ${seconds} s for the PATCH to ${url} (--patch-timeout; or give --results-secret to post the result itself).`,
        );
      }
      const started = performance.now();
      const received = await ctx.receiver.waitFor((r) => r.path === path, ctx.patchTimeoutMs);
      if (!received) {
        const elsewhere = ctx.receiver.requests.filter((r) => r.path !== ctx.state.refused?.path).map((r) => `${r.method} ${r.path}`);
        return { ok: false, detail: `no request to ${url} within ${seconds} s${elsewhere.length > 0 ? ` (came instead: ${elsewhere.slice(0, 3).join(', ')})` : ''}` };
      }
      ctx.state.patch = received;
      if (received.method !== 'PATCH') return { ok: false, detail: `a ${received.method} came to the url, not a PATCH` };
      return { ok: true, detail: `PATCH ${path}, ${Math.round(performance.now() - started)} ms after ${ctx.results ? 'the result' : 'the notice'}` };
    },
  },
  {
    id: 'patch.request',
    section: '§3',
    name: 'the PATCH has no body and carries Authorization: Basic base64(key + ":")',
    applies: (ctx) => (ctx.state.patch ? true : 'needs the PATCH of patch.received'),
    run: async (ctx) => {
      const patch = ctx.state.patch!;
      const auth = patch.headers.authorization;
      const problems = [];
      if (!isGreenhouseAuth(auth, ctx.key)) problems.push(`${describeAuth(auth, ctx.key)}, expected Basic with the key and an empty password`);
      if (patch.bodyBytes > 0) problems.push(`a body of ${patch.bodyBytes} bytes, expected none`);
      return problems.length === 0 ? { ok: true, detail: 'no body; Basic with the key and an empty password' } : { ok: false, detail: problems.join('; ') };
    },
  },
  {
    id: 'test_status.complete',
    section: '§2',
    name: 'test_status after the PATCH says complete, with an absolute partner_profile_url',
    applies: (ctx) => (ctx.state.patch ? true : 'needs the PATCH of patch.received'),
    run: async (ctx) => {
      const { verdict, status } = statusOf(await call(ctx, '(after the PATCH)', 'test_status', { interviewId: ctx.state.interview!.id }));
      if (status) ctx.state.finalStatus = status;
      if (!verdict.ok) return verdict;
      if (status!.partner_status !== 'complete') return { ok: false, detail: `partner_status ${JSON.stringify(status!.partner_status)} after the PATCH, expected "complete"` };
      const profile = TestStatusAnswer.shape.partner_profile_url.safeParse(status!.partner_profile_url);
      if (status!.partner_profile_url == null) return { ok: false, detail: 'partner_status "complete" without partner_profile_url' };
      if (!profile.success) return { ok: false, detail: `partner_profile_url is not an absolute http(s) URL: ${JSON.stringify(status!.partner_profile_url)}` };
      return { ok: true, detail: `complete, partner_profile_url ${new URL(String(status!.partner_profile_url)).origin}/…` };
    },
  },
  {
    id: 'test_status.result_fields',
    section: '§2',
    name: 'its partner_score is a number when present, its metadata a flat object of primitives',
    applies: (ctx) => (ctx.state.finalStatus ? true : 'needs the answer of test_status.complete'),
    run: async (ctx) => {
      const status = ctx.state.finalStatus!;
      const problems = [];
      const score = status.partner_score;
      if (score != null && typeof score !== 'number') problems.push(`partner_score is a ${typeof score} (${JSON.stringify(score)}), not a number`);
      const metadata = TestStatusAnswer.shape.metadata.safeParse(status.metadata);
      if (!metadata.success) {
        const issue = metadata.error.issues[0];
        problems.push(`metadata is not a flat object of primitives (${issue?.path.join('.') || 'metadata'}: ${issue?.message ?? 'invalid'})`);
      }
      if (problems.length > 0) return { ok: false, detail: problems.join('; ') };
      const keys = Object.keys(metadata.data ?? {});
      return {
        ok: true,
        detail: `${score == null ? 'no partner_score' : `partner_score ${String(score)}`}; ${keys.length === 0 ? 'no metadata' : `metadata ${keys.map((k) => JSON.stringify(k)).join(', ')}`}`,
      };
    },
  },

  // --- §4 what the refused url received, by the end of the run ---------------------------------------
  {
    id: 'send_test.url_unreached',
    section: '§4',
    name: 'no request reached a url the partner should have refused',
    applies: (ctx) => (ctx.state.refused ? true : 'needs the refused url of send_test.url_not_allowed'),
    run: async (ctx) => {
      const refused = ctx.state.refused!;
      const reached = () => ctx.receiver.requests.filter((r) => r.path === refused.path);
      // A partner that took the url gets its interview completed too, with the results secret: its
      // PATCH then shows where it would have gone.
      if (refused.interviewId !== undefined && ctx.results) {
        const answer = await postResult(ctx, refused.interviewId);
        if (answer.ok && answer.status === 200) await ctx.receiver.waitFor((r) => r.path === refused.path, ctx.patchTimeoutMs);
      }
      const shown = refused.url.replace(/\/\/[^@/]*@/, '//…@');
      return reached().length === 0
        ? { ok: true, detail: `none to ${shown}${refused.interviewId !== undefined && !ctx.results ? ' (the partner took it; give --results-secret to see where its PATCH goes)' : ''}` }
        : { ok: false, detail: `${reached().map((r) => r.method).join(', ')} to ${shown}, a url with a user name and password` };
    },
  },
];
