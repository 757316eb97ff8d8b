import { randomBytes, randomUUID } from 'node:crypto';
import { VENDOR_SIGNATURE_HEADER, VENDOR_SIGNATURE_TOLERANCE_MS, signVendorResult } from '../contract/vendor-signature.js';
import { USER_AGENT, describeAnswer, expectStatus, hasErrorMessage, type Answer, type Probe } from './probe.js';
import type { Check, Verdict } from './types.js';

/**
 * The checks of the partner's results endpoint, `POST /vendor/reports/{report_id}/result`
 * (docs/results-endpoint.md): what the vendor's product calls, signed with the shared
 * VENDOR_RESULTS_SECRET, which the checker is given (`--results-secret`) and never prints.
 *
 * They post to reports the checker's own sends created earlier in the run: X, the first send
 * (token A), and Y, the concurrent one (token B). The checks that refuse a request come first,
 * so X is still open for the result; then X gets one result, and what may follow it is checked.
 */

/** A body larger than any sane BODY_LIMIT_BYTES (the partner's own is unknown to the checker). */
export const RESULTS_OVERSIZE_BYTES = 2 * 1024 * 1024;

/** The result posted to report X: a score of at most 5 characters, as the platform's badge takes. */
export const RESULT = { status: 'completed', score: '87%', subtitle: 'Conformance check: not a real candidate' } as const;

/** Where a kit partner answers results: `${PUBLIC_URL}/vendor/reports/{report_id}/result`. */
export const RESULTS_URL_TEMPLATE = '/vendor/reports/{report_id}/result';

/**
 * The results endpoint beside a kit partner's endpoints for a platform: `url`'s path without the
 * trailing segments named (`send_candidate`, then `callbacks`; `greenhouse`), each where it is
 * there, then the kit's results path. `https://p.example/callbacks/send_candidate` →
 * `https://p.example/vendor/reports/{report_id}/result`.
 */
export function resultsUrlBeside(url: string, ...trailing: string[]): string {
  const parsed = new URL(url);
  let path = parsed.pathname.replace(/\/+$/, '');
  for (const segment of trailing) {
    if (path.endsWith(`/${segment}`)) path = path.slice(0, -segment.length - 1).replace(/\/+$/, '');
  }
  return `${parsed.origin}${path}${RESULTS_URL_TEMPLATE}`;
}

export interface ResultsContext {
  probe: Probe;
  secret: string;
  /** The endpoint, with `{report_id}` where the report id goes. */
  urlTemplate: string;
  /** The reports the checker's sends created (2xx), in the order they were sent. */
  reports: readonly string[];
  /** What earlier checks learned. */
  state: {
    /** Why X cannot take a result: the partner canceled it before the checker posted one. */
    canceled?: string;
    /** X took the result (200). */
    recorded?: boolean;
  };
}

/** A check of the results endpoint; its run may find that it cannot say anything (`{notRun}`). */
export type ResultsCheck = Check<ResultsContext> & {
  /** Whether the check can run after what the earlier ones found; a string says why not. */
  applies?: (ctx: ResultsContext) => true | string;
};

const urlOf = (ctx: ResultsContext, reportId: string) => ctx.urlTemplate.replace('{report_id}', encodeURIComponent(reportId));
const nowSeconds = () => Math.floor(Date.now() / 1000);

interface Post {
  label: string;
  reportId: string;
  body: string;
  /** The signature header: the valid one by default, `null` for none. */
  signature?: string | null;
  contentType?: string;
}

function post(ctx: ResultsContext, p: Post): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': p.contentType ?? 'application/json', 'user-agent': USER_AGENT };
  const signature = p.signature === undefined ? signVendorResult(ctx.secret, p.reportId, p.body) : p.signature;
  if (signature !== null) headers[VENDOR_SIGNATURE_HEADER] = signature;
  return ctx.probe.send(`results POST ${p.label}`, { method: 'POST', url: urlOf(ctx, p.reportId), headers, body: p.body });
}

const X = (ctx: ResultsContext) => ctx.reports[0]!;
const Y = (ctx: ResultsContext) => ctx.reports[1]!;
const RESULT_BODY = JSON.stringify(RESULT);

/** The error message of a 409 that says the report was canceled (`Report was canceled`). */
const canceledConflict = (answer: Answer) =>
  answer.ok && answer.status === 409 && hasErrorMessage(answer.json) && /cancel/i.test((answer.json as { error: string }).error);

/** A 4xx with the contract's `{"error": "<message>"}`, its message in the detail. */
function expectError(answer: Answer, status: number): Verdict {
  const verdict = expectStatus(answer, status);
  if (!verdict.ok) return verdict;
  return hasErrorMessage(answer.json)
    ? { ok: true, detail: `${status} ${JSON.stringify((answer.json as { error: string }).error)}` }
    : { ok: false, detail: `${status} without {"error": "<message>"}: ${describeAnswer(answer, 80)}` };
}

const needsTwoReports = (ctx: ResultsContext) =>
  ctx.reports.length >= 2 ? true : `needs the reports of send_candidate.create and send_candidate.concurrent, which the partner did not accept`;
const needsOneReport = (ctx: ResultsContext) => (ctx.reports.length >= 1 ? true : 'needs the report of send_candidate.create, which the partner did not accept');
const needsRecorded = (ctx: ResultsContext) => {
  const one = needsOneReport(ctx);
  if (one !== true) return one;
  if (ctx.state.canceled) return ctx.state.canceled;
  return ctx.state.recorded ? true : 'needs the result results.record posts';
};

export const RESULTS_CHECKS: readonly ResultsCheck[] = [
  // --- The signature: refused before anything else, for any report --------------------------------
  {
    id: 'results.missing_signature',
    section: 'results',
    name: 'a result without X-Vendor-Signature answers 401',
    applies: needsOneReport,
    run: async (ctx) => expectError(await post(ctx, { label: '(no signature)', reportId: X(ctx), body: RESULT_BODY, signature: null }), 401),
  },
  {
    id: 'results.stale_signature',
    section: 'results',
    name: 'a result signed 10 minutes ago answers 401',
    applies: needsOneReport,
    run: async (ctx) => {
      // Twice the kit's tolerance, so a clock a little off between checker and partner does not matter.
      const t = nowSeconds() - (2 * VENDOR_SIGNATURE_TOLERANCE_MS) / 1000;
      const signature = signVendorResult(ctx.secret, X(ctx), RESULT_BODY, t);
      return expectError(await post(ctx, { label: '(stale signature)', reportId: X(ctx), body: RESULT_BODY, signature }), 401);
    },
  },
  {
    id: 'results.wrong_signature',
    section: 'results',
    name: 'a result signed with another secret answers 401',
    applies: needsOneReport,
    run: async (ctx) => {
      const signature = signVendorResult(randomBytes(32).toString('hex'), X(ctx), RESULT_BODY);
      return expectError(await post(ctx, { label: '(another secret)', reportId: X(ctx), body: RESULT_BODY, signature }), 401);
    },
  },
  {
    id: 'results.cross_report',
    section: 'results',
    name: 'a result signed for one report, replayed to another, answers 401 and changes neither',
    applies: needsTwoReports,
    run: async (ctx) => {
      // A request captured on its way to X, sent as it is to Y: the signature must bind the report.
      const signature = signVendorResult(ctx.secret, X(ctx), RESULT_BODY);
      const replay = await post(ctx, { label: '(signed for another report)', reportId: Y(ctx), body: RESULT_BODY, signature });
      const verdict = expectError(replay, 401);
      if (!verdict.ok) {
        return { ok: false, detail: `${verdict.detail}: a result signed for report ${X(ctx)} was taken for report ${Y(ctx)}` };
      }
      // Y unchanged: a progress stage, properly signed, is taken by an open report and refused (409)
      // by a finished one. It changes nothing on the platform.
      const opened = await post(ctx, { label: '(progress, to check the other report)', reportId: Y(ctx), body: JSON.stringify({ status: 'opened' }) });
      if (opened.ok && opened.status === 200) return { ok: true, detail: `${verdict.detail}; the other report still takes a progress stage (200)` };
      if (canceledConflict(opened)) return { ok: true, detail: `${verdict.detail}; the other report was canceled by the partner meanwhile` };
      return { ok: false, detail: `${verdict.detail}, but the other report changed: a progress stage then got ${describeAnswer(opened, 80)}` };
    },
  },
  {
    id: 'results.unknown_report',
    section: 'results',
    name: 'a validly signed result for an unknown report answers 404',
    run: async (ctx) => expectError(await post(ctx, { label: '(unknown report)', reportId: randomUUID(), body: RESULT_BODY }), 404),
  },

  // --- The body: refused before the report changes ------------------------------------------------
  {
    id: 'results.content_type',
    section: 'results',
    name: 'a signed result declared text/plain answers 415',
    applies: needsOneReport,
    run: async (ctx) => expectError(await post(ctx, { label: '(text/plain)', reportId: X(ctx), body: RESULT_BODY, contentType: 'text/plain' }), 415),
  },
  {
    id: 'results.oversize',
    section: 'results',
    name: `a signed result of ${RESULTS_OVERSIZE_BYTES / 1024 / 1024} MB answers 413`,
    applies: needsOneReport,
    run: async (ctx) => {
      const body = JSON.stringify({ ...RESULT, subtitle: 'x'.repeat(RESULTS_OVERSIZE_BYTES) });
      return expectError(await post(ctx, { label: `(${RESULTS_OVERSIZE_BYTES / 1024 / 1024} MB body)`, reportId: X(ctx), body }), 413);
    },
  },
  {
    id: 'results.invalid_field',
    section: 'results',
    name: 'a signed result with a score over 5 characters answers 422 naming the field in errors',
    applies: needsOneReport,
    run: async (ctx) => {
      const answer = await post(ctx, { label: '(score too long)', reportId: X(ctx), body: JSON.stringify({ ...RESULT, score: '87 of 100' }) });
      const verdict = expectError(answer, 422);
      if (!verdict.ok) return verdict;
      const errors = (answer.json as { errors?: unknown }).errors;
      return errors !== null && typeof errors === 'object' && 'score' in errors
        ? verdict
        : { ok: false, detail: `422 without "errors" naming score: ${describeAnswer(answer, 120)}` };
    },
  },

  // --- One result, and what may follow it ----------------------------------------------------------
  {
    id: 'results.record',
    section: 'results',
    name: 'a valid result answers 200 {id, status}',
    applies: needsOneReport,
    run: async (ctx) => {
      const answer = await post(ctx, { label: '(the result)', reportId: X(ctx), body: RESULT_BODY });
      if (canceledConflict(answer)) {
        // A kit partner cancels an invitation whose first report update its platform answered 404:
        // the platform never sent the checker's reports. Refusing the result is then right.
        ctx.state.canceled =
          'the partner canceled the checker\'s report before its result: its platform does not know the report (see "What a run leaves behind" in docs/conformance.md)';
        return { notRun: ctx.state.canceled };
      }
      const verdict = expectStatus(answer, 200);
      if (!verdict.ok) return verdict;
      const json = answer.json as { id?: unknown; status?: unknown } | undefined;
      if (json?.id !== X(ctx) || json.status !== RESULT.status) {
        return { ok: false, detail: `200, but not {"id": "${X(ctx)}", "status": "${RESULT.status}"}: ${describeAnswer(answer, 120)}` };
      }
      ctx.state.recorded = true;
      return { ok: true, detail: describeAnswer(answer) };
    },
  },
  {
    id: 'results.repeat',
    section: 'results',
    name: 'the same result again answers 200 (idempotent)',
    applies: needsRecorded,
    run: async (ctx) => expectStatus(await post(ctx, { label: '(the same again)', reportId: X(ctx), body: RESULT_BODY }), 200),
  },
  {
    id: 'results.conflict',
    section: 'results',
    name: 'another result after it answers 409',
    applies: needsRecorded,
    run: async (ctx) => {
      const body = JSON.stringify({ status: 'failed', score: '12%' });
      return expectError(await post(ctx, { label: '(another result)', reportId: X(ctx), body }), 409);
    },
  },
  {
    id: 'results.progress_after_result',
    section: 'results',
    name: 'a progress stage after the result answers 409',
    applies: needsRecorded,
    run: async (ctx) => expectError(await post(ctx, { label: '(progress after the result)', reportId: X(ctx), body: JSON.stringify({ status: 'started' }) }), 409),
  },
];
