import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { TestItem } from '../../../contract/schemas.js';
import {
  FOUR_XX,
  NOT_5XX,
  TWO_XX,
  allOf,
  describeAnswer,
  expectStatus,
  hasErrorMessage,
  is2xx,
  variant,
  type Answer,
  type Exchange,
} from '../../probe.js';
import type { Check, Verdict } from '../../types.js';
import type { Targets, Tokens } from './types.js';
import type { CallbackProbe } from './wire.js';

/**
 * The checks of the partner's callbacks (platform-contract.md §4), made as the platform makes its
 * calls. They run in this order and build on each other: the first binds token A to company 1,
 * the sends use the first test token A lists, the replay repeats the first send.
 *
 * The company ids are the bundled mock's seeded companies (1 Acme Corp, 2 Globex), so that with
 * --mock the same accounts can be integrated there; for a partner they are just two companies.
 */
export const COMPANY_A = 1;
export const COMPANY_B = 2;
/** Where the account without tests is bound before its list is asked for. */
export const COMPANY_EMPTY = 3;

/** How many identical send_candidate calls go out at once. */
export const CONCURRENT_SENDS = 20;
/** The body sent to check a partner's body limit: larger than any callback the platform makes. */
export const OVERSIZE_BYTES = 1024 * 1024;

export interface CallbackContext {
  probe: CallbackProbe;
  targets: Targets;
  tokens: Tokens;
  /**
   * The platform the run stands in for, told of each send the platform would make (the first and
   * the concurrent one) before it is made: with --mock, the mock, so that it knows the report the
   * partner then updates. Absent: no platform knows the checker's reports.
   */
  platform?: { sending(body: Record<string, unknown>): Promise<void> };
  /** What earlier checks learned. */
  state: {
    tests: { a?: TestItem[]; b?: TestItem[] };
    firstSend?: { body: Record<string, unknown>; answer: Answer };
    /** The report ids of the sends the partner accepted (2xx), in order: the results checks post to them. */
    created?: string[];
  };
}

export type CallbackCheck = Check<CallbackContext>;

/** The sends need a test of the account's own list: one made up would be refused as unknown. */
const needsTestsOf = (which: 'a' | 'b') => (ctx: CallbackContext) =>
  (ctx.state.tests[which]?.length ?? 0) > 0 ? true : `no test listed for token ${which.toUpperCase()}: see tests.list`;
const needsFirstSend = (ctx: CallbackContext) =>
  ctx.state.firstSend && is2xx(ctx.state.firstSend.answer) ? true : 'needs a successful send_candidate.create';

/**
 * A test id no account lists, and numeric, as real ids often are: a partner that checks only the
 * id's format, or never looks the test up, accepts it.
 */
function unlistedNumericId(ctx: CallbackContext): string {
  const listed = [...(ctx.state.tests.a ?? []), ...(ctx.state.tests.b ?? [])].map((t) => Number(t.id)).filter(Number.isSafeInteger);
  return String(Math.max(900_000, ...listed) + 1 + randomInt(1000));
}

const unknownToken = () => `conformance-unknown-${randomBytes(16).toString('hex')}`;

function validateToken(ctx: CallbackContext, label: string, token: string, companyId: number) {
  return ctx.probe.call(label, { method: 'POST', url: ctx.targets.validateToken, token, body: { company_id: companyId } });
}

/** A send_candidate body (§4.3) for token A's company and first test, with a fresh report id. */
function sendBody(ctx: CallbackContext, overrides: Record<string, unknown> = {}, tests = ctx.state.tests.a): Record<string, unknown> {
  const test = tests?.[0];
  return {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    candidate_id: 17,
    company_id: COMPANY_A,
    report_id: randomUUID(),
    // §4.3: the platform sends test_id as a string, whatever type the list used. Without a listed
    // test, only the checks whose answer does not depend on the test run (a 401, a malformed body).
    test_id: String(test?.id ?? '1'),
    test_name: test?.name ?? 'Test',
    ...overrides,
  };
}

async function send(ctx: CallbackContext, label: string, body: Record<string, unknown>, token = ctx.tokens.a): Promise<Answer> {
  const answer = await ctx.probe.call(label, { method: 'POST', url: ctx.targets.sendCandidate, token, body });
  const created = (ctx.state.created ??= []);
  if (is2xx(answer) && typeof body.report_id === 'string' && !created.includes(body.report_id)) created.push(body.report_id);
  return answer;
}

const withoutToken = (ctx: CallbackContext, label: string, req: Parameters<CallbackProbe['request']>[0]) =>
  ctx.probe.send(label, variant(ctx.probe.request(req), { authorization: undefined }));

/** The same answer: status and body (as JSON when it is JSON, else byte for byte). */
function sameAnswer(a: Answer, b: Answer): boolean {
  if (!a.ok || !b.ok || a.status !== b.status) return false;
  return a.json !== undefined || b.json !== undefined ? isDeepStrictEqual(a.json, b.json) : a.text === b.text;
}

interface TestsRead {
  verdict: Verdict;
  /** The tests to send, even from an answer that failed the check (an array wrapped in an object). */
  usable?: TestItem[];
}

/** §4.2: 200 with a bare JSON array of `{id: number | string, name: string}`. */
function readTests(answer: Answer, { requireOne }: { requireOne: boolean }): TestsRead {
  if (!answer.ok || answer.status !== 200) {
    return { verdict: { ok: false, detail: `expected 200, got ${describeAnswer(answer)}` } };
  }
  const json = answer.json;
  if (!Array.isArray(json)) {
    const what = json === undefined ? 'a body that is not JSON' : json === null ? 'null' : `a JSON ${typeof json}`;
    return { verdict: { ok: false, detail: `expected a bare JSON array, got ${what}: ${describeAnswer(answer, 80)}` }, usable: salvage(json) };
  }
  const invalid = json.map((item, i) => [i, TestItem.safeParse(item)] as const).filter(([, parsed]) => !parsed.success);
  if (invalid.length > 0) {
    const [i, parsed] = invalid[0]!;
    const issue = parsed.error!.issues[0];
    return {
      verdict: { ok: false, detail: `item ${i}: ${issue?.path.join('.') || 'item'} ${issue?.message ?? 'is invalid'} (${invalid.length} invalid of ${json.length})` },
      usable: json.filter((item) => TestItem.safeParse(item).success) as TestItem[],
    };
  }
  const tests = json as TestItem[];
  if (requireOne && tests.length === 0) {
    return { verdict: { ok: false, detail: 'an empty list: give tokens of accounts with at least one test' }, usable: tests };
  }
  return { verdict: { ok: true, detail: `200, ${tests.length} test${tests.length === 1 ? '' : 's'}` }, usable: tests };
}

/** The first array of tests inside an object, so the send checks can still run. */
function salvage(json: unknown): TestItem[] | undefined {
  if (json === null || typeof json !== 'object') return undefined;
  for (const value of Object.values(json)) {
    if (Array.isArray(value)) {
      const tests = value.filter((item) => TestItem.safeParse(item).success) as TestItem[];
      if (tests.length > 0) return tests;
    }
  }
  return undefined;
}

/** A 4xx whose body carries the message the platform shows its user (§4: other 4xx). */
function expectMessage(answer: Answer, status: number): Verdict {
  const verdict = expectStatus(answer, status);
  if (!verdict.ok) return verdict;
  return hasErrorMessage(answer.json)
    ? { ok: true, detail: `${status} ${JSON.stringify((answer.json as { error: string }).error)}` }
    : { ok: false, detail: `${status} without {"error": "<message>"}: ${describeAnswer(answer, 80)}` };
}

/** Three requests the platform never sends; a partner still must not fail on them (5xx). */
function robustness(endpoint: 'validate_token' | 'send_candidate', section: string): CallbackCheck[] {
  const base = (ctx: CallbackContext) =>
    endpoint === 'validate_token'
      ? ctx.probe.request({ method: 'POST', url: ctx.targets.validateToken, token: ctx.tokens.a, body: { company_id: COMPANY_A } })
      : ctx.probe.request({ method: 'POST', url: ctx.targets.sendCandidate, token: ctx.tokens.a, body: sendBody(ctx) });
  return [
    {
      id: `robust.${endpoint}.malformed_json`,
      section,
      name: `${endpoint} answers malformed JSON with a 4xx, not a 5xx`,
      run: async (ctx) => {
        const req = variant(base(ctx), {}, '{"company_id": 1, "report_id": ');
        return expectStatus(await ctx.probe.send(`${endpoint} POST (malformed JSON)`, req), FOUR_XX);
      },
    },
    {
      id: `robust.${endpoint}.content_type`,
      section,
      name: `${endpoint} answers a body declared text/plain without a 5xx`,
      run: async (ctx) => {
        const req = variant(base(ctx), { 'content-type': 'text/plain' });
        return expectStatus(await ctx.probe.send(`${endpoint} POST (text/plain)`, req), NOT_5XX);
      },
    },
    {
      id: `robust.${endpoint}.oversize`,
      section,
      name: `${endpoint} answers a 1 MB body without a 5xx`,
      run: async (ctx) => {
        const req = base(ctx);
        const body = JSON.parse(String(req.body)) as Record<string, unknown>;
        const big = JSON.stringify({ ...body, padding: 'x'.repeat(OVERSIZE_BYTES) });
        return expectStatus(await ctx.probe.send(`${endpoint} POST (1 MB body)`, variant(req, {}, big)), NOT_5XX);
      },
    },
  ];
}

export const CALLBACK_CHECKS: readonly CallbackCheck[] = [
  // --- §4.1 validate_token ------------------------------------------------------------------------
  {
    id: 'validate_token.bind',
    section: '§4.1',
    name: 'validate_token POST {company_id} binds the account',
    run: async (ctx) => expectStatus(await validateToken(ctx, 'validate_token POST', ctx.tokens.a, COMPANY_A), TWO_XX),
  },
  {
    id: 'validate_token.bind_second',
    section: '§4.1',
    name: 'validate_token POST binds a second account to another company',
    run: async (ctx) => expectStatus(await validateToken(ctx, 'validate_token POST', ctx.tokens.b, COMPANY_B), TWO_XX),
  },
  {
    id: 'validate_token.repeat',
    section: '§4.1',
    name: 'validate_token POST again for the same company answers 2xx',
    run: async (ctx) => expectStatus(await validateToken(ctx, 'validate_token POST (again)', ctx.tokens.a, COMPANY_A), TWO_XX),
  },
  {
    id: 'validate_token.get',
    section: '§4.1',
    name: 'validate_token GET without a body answers 2xx',
    run: async (ctx) =>
      expectStatus(await ctx.probe.call('validate_token GET', { method: 'GET', url: ctx.targets.validateToken, token: ctx.tokens.a }), TWO_XX),
  },
  {
    id: 'validate_token.other_company',
    section: '§4.1',
    name: 'validate_token for another company than the bound one answers 403',
    run: async (ctx) => expectStatus(await validateToken(ctx, 'validate_token POST (other company)', ctx.tokens.a, COMPANY_B), 403),
  },
  {
    id: 'validate_token.unknown_token',
    section: '§4.1',
    name: 'validate_token with an unknown token answers 401',
    run: async (ctx) => expectStatus(await validateToken(ctx, 'validate_token POST (unknown token)', unknownToken(), COMPANY_A), 401),
  },
  {
    id: 'validate_token.malformed_token',
    section: '§4.1',
    name: 'validate_token with the token outside a Bearer header answers 401',
    run: async (ctx) => {
      const req = ctx.probe.request({ method: 'POST', url: ctx.targets.validateToken, token: ctx.tokens.a, body: { company_id: COMPANY_A } });
      return expectStatus(await ctx.probe.send('validate_token POST (no Bearer scheme)', variant(req, { authorization: ctx.tokens.a })), 401);
    },
  },
  {
    id: 'validate_token.missing_token',
    section: '§4.1',
    name: 'validate_token without a token answers 401',
    run: async (ctx) =>
      expectStatus(
        await withoutToken(ctx, 'validate_token POST (no token)', {
          method: 'POST',
          url: ctx.targets.validateToken,
          token: '',
          body: { company_id: COMPANY_A },
        }),
        401,
      ),
  },

  // --- §4.2 tests ---------------------------------------------------------------------------------
  {
    id: 'tests.list',
    section: '§4.2',
    name: 'tests answers 200 with a bare array of {id, name}, for each account',
    run: async (ctx) => {
      const parts = [];
      for (const which of ['a', 'b'] as const) {
        const answer = await ctx.probe.call('tests GET', { method: 'GET', url: ctx.targets.tests, token: ctx.tokens[which] });
        const read = readTests(answer, { requireOne: true });
        ctx.state.tests[which] = read.usable;
        parts.push({ label: `token ${which.toUpperCase()}`, verdict: read.verdict });
      }
      return allOf(parts);
    },
  },
  {
    id: 'tests.empty',
    section: '§4.2',
    name: 'tests answers [] for an account without tests',
    applies: (ctx) => (ctx.tokens.empty ? true : 'give --empty-token'),
    run: async (ctx) => {
      const token = ctx.tokens.empty!;
      const bound = await validateToken(ctx, 'validate_token POST', token, COMPANY_EMPTY);
      if (!is2xx(bound)) return { ok: false, detail: `validate_token for the empty account: ${describeAnswer(bound)}` };
      const answer = await ctx.probe.call('tests GET (empty account)', { method: 'GET', url: ctx.targets.tests, token });
      const read = readTests(answer, { requireOne: false });
      if (!read.verdict.ok) return read.verdict;
      return read.usable!.length === 0
        ? { ok: true, detail: '200 []' }
        : { ok: false, detail: `expected [], got ${read.usable!.length} tests: is --empty-token an account without tests?` };
    },
  },
  {
    id: 'tests.missing_token',
    section: '§4.2',
    name: 'tests without a token answers 401',
    run: async (ctx) => expectStatus(await withoutToken(ctx, 'tests GET (no token)', { method: 'GET', url: ctx.targets.tests, token: '' }), 401),
  },

  // --- §4.3 send_candidate ------------------------------------------------------------------------
  {
    id: 'send_candidate.create',
    section: '§4.3',
    name: 'send_candidate answers 2xx for a new report',
    applies: needsTestsOf('a'),
    run: async (ctx) => {
      const body = sendBody(ctx);
      await ctx.platform?.sending(body);
      const answer = await send(ctx, 'send_candidate POST', body);
      ctx.state.firstSend = { body, answer };
      return expectStatus(answer, TWO_XX);
    },
  },
  {
    id: 'send_candidate.replay',
    section: '§4.3',
    name: 'send_candidate again with the same report_id answers the same status and body',
    applies: needsFirstSend,
    run: async (ctx) => {
      const first = ctx.state.firstSend!;
      const again = await send(ctx, 'send_candidate POST (replay)', first.body);
      return sameAnswer(first.answer, again)
        ? { ok: true, detail: `${again.ok ? again.status : ''}, the same body` }
        : { ok: false, detail: `first ${describeAnswer(first.answer, 80)}, then ${describeAnswer(again, 80)}` };
    },
  },
  {
    id: 'send_candidate.conflict',
    section: '§4.3',
    name: 'send_candidate with the same report_id for another candidate answers 409',
    applies: needsFirstSend,
    run: async (ctx) => {
      const first = ctx.state.firstSend!;
      const other = { ...first.body, first_name: 'Alan', last_name: 'Turing', email: 'alan@example.com', candidate_id: 18 };
      return expectStatus(await send(ctx, 'send_candidate POST (conflicting replay)', other), 409);
    },
  },
  {
    id: 'send_candidate.company_mismatch',
    section: '§4.3',
    name: 'send_candidate for a company the token is not bound to answers 403',
    applies: needsTestsOf('a'),
    run: async (ctx) => expectStatus(await send(ctx, 'send_candidate POST (other company)', sendBody(ctx, { company_id: COMPANY_B })), 403),
  },
  {
    id: 'send_candidate.unknown_test',
    section: '§4.3',
    name: 'send_candidate with an unknown test, a made-up id and an unlisted number, answers 422 {"error": "…"}',
    run: async (ctx) => {
      const made = sendBody(ctx, { test_id: `no-such-test-${randomBytes(4).toString('hex')}`, test_name: 'No such test' });
      const unlisted = sendBody(ctx, { test_id: unlistedNumericId(ctx), test_name: 'No such test' });
      return allOf([
        { label: 'made-up id', verdict: expectMessage(await send(ctx, 'send_candidate POST (unknown test)', made), 422) },
        { label: `unlisted id ${String(unlisted.test_id)}`, verdict: expectMessage(await send(ctx, 'send_candidate POST (unlisted test id)', unlisted), 422) },
      ]);
    },
  },
  {
    id: 'send_candidate.invalid_email',
    section: '§4.3',
    name: 'send_candidate with an invalid e-mail answers 422 {"error": "…"}',
    applies: needsTestsOf('a'),
    run: async (ctx) => expectMessage(await send(ctx, 'send_candidate POST (invalid e-mail)', sendBody(ctx, { email: 'not-an-e-mail' })), 422),
  },
  {
    id: 'send_candidate.missing_token',
    section: '§4.3',
    name: 'send_candidate without a token answers 401',
    run: async (ctx) =>
      expectStatus(
        await withoutToken(ctx, 'send_candidate POST (no token)', { method: 'POST', url: ctx.targets.sendCandidate, token: '', body: sendBody(ctx) }),
        401,
      ),
  },
  {
    id: 'send_candidate.concurrent',
    section: '§4.3',
    name: `${CONCURRENT_SENDS} identical send_candidate calls at once all get the same 2xx answer`,
    applies: needsTestsOf('b'),
    run: async (ctx) => {
      const body = sendBody(ctx, { company_id: COMPANY_B, candidate_id: 31, first_name: 'Edsger', last_name: 'Dijkstra', email: 'edsger@example.com' }, ctx.state.tests.b);
      await ctx.platform?.sending(body);
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT_SENDS }, () => send(ctx, `send_candidate POST (×${CONCURRENT_SENDS} at once)`, body, ctx.tokens.b)),
      );
      return sameAnswers(answers);
    },
  },

  // --- §4 robustness ------------------------------------------------------------------------------
  ...robustness('validate_token', '§4'),
  ...robustness('send_candidate', '§4'),
];

/** Identical answers, all 2xx: one invitation's answer, whoever won the race. */
export function sameAnswers(answers: Answer[]): Verdict {
  const first = answers[0]!;
  if (answers.every((a) => is2xx(a) && sameAnswer(first, a))) {
    return { ok: true, detail: `${answers.length} × ${first.ok ? first.status : ''}, one body` };
  }
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(describeAnswer(a, 60), (counts.get(describeAnswer(a, 60)) ?? 0) + 1);
  const summary = [...counts].map(([answer, n]) => `${n} × ${answer}`);
  return { ok: false, detail: `${counts.size} different answers: ${summary.slice(0, 3).join(' | ')}${counts.size > 3 ? ' | …' : ''}` };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Checks over every answer of the run, platform calls included: they run last. */
export const ANSWER_CHECKS = [
  {
    id: 'errors.shape',
    section: '§4',
    name: 'every 4xx answer carries {"error": "<message>"}',
    run: (exchanges: readonly Exchange[], _timeoutMs: number): Verdict => {
      if (!exchanges.some((e) => e.status !== undefined)) return { ok: false, detail: 'no answers to judge' };
      const errors = exchanges.filter((e) => e.status !== undefined && e.status >= 400 && e.status < 500);
      const bad = errors.filter((e) => !hasErrorMessage(e.json));
      if (bad.length === 0) return { ok: true, detail: `${plural(errors.length, 'answer')} 4xx, each with a message` };
      const shown = bad.slice(0, 3).map((e) => `${e.label} → ${e.status} ${e.contentType ?? 'no content type'}`);
      return { ok: false, detail: `${bad.length} of ${errors.length} lack it: ${shown.join('; ')}${bad.length > 3 ? '; …' : ''}` };
    },
  },
  {
    id: 'timing.timeout',
    section: '§4',
    name: "every answer came within the platform's timeout",
    run: (exchanges: readonly Exchange[], timeoutMs: number): Verdict => {
      const answered = exchanges.filter((e) => e.status !== undefined);
      if (answered.length === 0) return { ok: false, detail: 'no answers to judge' };
      const late = exchanges.filter((e) => e.timedOut || e.durationMs > timeoutMs);
      const slowest = answered.reduce((max, e) => (e.durationMs > max.durationMs ? e : max));
      const slow = `slowest ${Math.round(slowest.durationMs)} ms: ${slowest.label}`;
      if (late.length === 0) return { ok: true, detail: `${plural(answered.length, 'answer')}, ${slow}` };
      return { ok: false, detail: `${late.length} not within ${timeoutMs / 1000} s (${late[0]!.label}); ${slow}` };
    },
  },
] as const;
