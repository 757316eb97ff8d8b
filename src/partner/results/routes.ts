import express, { type Express, type RequestHandler } from 'express';
import { z } from 'zod';
import type { Clock } from '../../lib/clock.js';
import { KitReportId } from '../invitations/report-id.js';
import { badRequest, conflict, notFound, unauthorized, unprocessable } from '../../lib/errors.js';
import type { Logger } from '../../lib/http/logger.js';
import { parseOr422 } from '../../lib/http/validate.js';
import { jsonDeclared } from '../../lib/perf/json-body.js';
import { PROGRESS_STAGES, type ProgressStage, type ReportOutcome } from '../invitations/lifecycle.js';
import type { InvitationStore } from '../invitations/store.js';
import { InvalidResultError, ResultFields, type VendorReports } from './api.js';
import { VENDOR_SIGNATURE_HEADER, verifyVendorSignature } from '../../contract/vendor-signature.js';

/** [kit decision] Where the vendor's product posts results; `{report_id}` is the platform's report id. */
export const VENDOR_RESULTS_PATH = '/vendor/reports/:reportId/result';

export interface VendorResultsDeps {
  /** VENDOR_RESULTS_SECRET; without it every request is answered 401 "results endpoint not configured". */
  secret: string | undefined;
  reports: VendorReports;
  invitations: Pick<InvitationStore, 'get'>;
  clock: Clock;
  logger: Logger;
  bodyLimitBytes: number;
}

const FINISHED = ['completed', 'failed'] as const;
const STATUSES = [...FINISHED, 'canceled', ...PROGRESS_STAGES] as const;

/**
 * The body: a status, and for `completed` and `failed` the result (`score` required). The other
 * statuses carry nothing else: a field sent with them is refused rather than silently ignored.
 */
export const ResultBody = z
  .object({ status: z.enum(STATUSES) })
  .extend(ResultFields.partial().shape)
  .superRefine((body, ctx) => {
    const finished = (FINISHED as readonly string[]).includes(body.status);
    if (finished && body.score === undefined) ctx.addIssue({ code: 'custom', path: ['score'], message: `is required when status is ${body.status}` });
    if (!finished) {
      for (const field of ['score', 'subtitle', 'properties', 'completed_at', 'details'] as const) {
        if (body[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'is accepted with status completed or failed only' });
      }
    }
  });

const SIGNATURE_PROBLEMS = {
  missing: 'Missing X-Vendor-Signature header',
  malformed: 'Malformed X-Vendor-Signature header: expected t=<unix seconds>,v1=<hex HMAC-SHA256>',
  stale: 'Signature timestamp is more than 5 minutes away from the server time',
  // Also what a product still signing "<t>.<raw body>" (without the report id) is answered.
  mismatch: 'Invalid signature: v1 must be the hex HMAC-SHA256 of "<t>.<report_id>.<raw body>" keyed with VENDOR_RESULTS_SECRET',
} as const;

/**
 * `POST /vendor/reports/{report_id}/result`: results and progress pushed by the vendor's product
 * (docs/results-endpoint.md), in a fixed order:
 *
 *   1. no VENDOR_RESULTS_SECRET → 401 "results endpoint not configured";
 *   2. a body declared as JSON (415, the callbacks' rule), the raw body, up to `bodyLimitBytes`
 *      (413), uncompressed (415);
 *   3. `X-Vendor-Signature` (timestamp within 5 minutes, HMAC-SHA256 of "<t>.<report_id>.<body>",
 *      the report id of the path percent-decoded, letter for letter: the id itself, whichever of
 *      its characters a client or proxy encoded) → 401 for anything else — before the report id is
 *      looked up, so an unsigned request learns nothing, not even whether a report exists, and a
 *      request signed for one report is refused on any other;
 *   4. the report id (404 "Unknown report"), JSON (400), the body's fields (422 {error, errors});
 *   5. the lifecycle, in one transaction with the report update it queues: 200 {id, status} when
 *      recorded or when the same was recorded before (idempotent), 409 when the report finished
 *      otherwise or was canceled, 404 when unknown.
 */
export function registerVendorResults(app: Express, deps: VendorResultsDeps): void {
  const { reports, invitations, clock, logger } = deps;
  const configured: RequestHandler = (_req, _res, next) => {
    next(deps.secret ? undefined : unauthorized('results endpoint not configured: set VENDOR_RESULTS_SECRET'));
  };
  // The exact bytes sent: the signature is over them, so nothing may decode or decompress them.
  const rawBody = express.raw({ type: () => true, limit: deps.bodyLimitBytes, inflate: false });

  const receive: RequestHandler = async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    // Express has percent-decoded the path's id: `%37d0c…` and `7d0c…` are one report, one signature.
    const signed = verifyVendorSignature(deps.secret!, req.params.reportId as string, raw, req.headers[VENDOR_SIGNATURE_HEADER], clock.now());
    if (!signed.ok) {
      logger.warn({ reason: signed.reason }, 'vendor result refused: signature');
      throw unauthorized(SIGNATURE_PROBLEMS[signed.reason]);
    }
    const reportId = KitReportId.safeParse(req.params.reportId);
    if (!reportId.success) throw notFound('Unknown report');
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      throw badRequest('Malformed JSON body');
    }
    const body = parseOr422(ResultBody, json ?? {});
    const id = reportId.data;

    let outcome: ReportOutcome;
    try {
      if (body.status === 'completed' || body.status === 'failed') {
        const result = { score: body.score!, subtitle: body.subtitle, properties: body.properties, completedAt: body.completed_at, details: body.details };
        outcome = await (body.status === 'completed' ? reports.complete(id, result) : reports.fail(id, result));
      } else if (body.status === 'canceled') {
        outcome = await reports.cancel(id);
      } else {
        outcome = await reports.progress(id, body.status satisfies ProgressStage);
      }
    } catch (err) {
      if (err instanceof InvalidResultError) throw unprocessable(err.message.replace(/^Invalid result: /, ''), err.errors);
      throw err;
    }

    if (outcome === 'unknown') throw notFound('Unknown report');
    if (outcome === 'conflict') {
      const status = (await invitations.get(id))?.status ?? 'finished';
      if (status === 'canceled') throw conflict('Report was canceled');
      throw conflict(body.status === 'completed' || body.status === 'failed' ? `Report already ${status} with another result` : `Report already ${status}`);
    }
    logger.info({ reportId: id, status: body.status, outcome }, 'vendor result');
    res.json({ id, status: body.status });
  };

  app.post(VENDOR_RESULTS_PATH, configured, jsonDeclared, rawBody, receive);
}
