import { z } from 'zod';
import { isoAt, type Clock } from '../../lib/clock.js';
import { REPORT_SCORE_MAX_LENGTH, REPORT_SCORE_TOO_LONG } from '../../contract/decisions.js';
import { ReportProperty, text } from '../../contract/schemas.js';
import { KitReportId } from '../invitations/report-id.js';
import type { InvitationLifecycle, ProgressStage, ReportOutcome } from '../invitations/lifecycle.js';
import type { ResultDetail } from '../invitations/result.js';

export type { ProgressStage, ReportOutcome } from '../invitations/lifecycle.js';

/**
 * [kit decision] How far in the future a vendor's `completed_at` may be: the two machines' clocks
 * may differ a little; a result from the future is a bug on the sender's side.
 */
const COMPLETED_AT_SKEW_MS = 5 * 60_000;

/**
 * A finished test or check as the vendor's product reports it. `score` is the platform badge's
 * text, required, at most 5 characters for every kind (contract §3.2 — "76%", "B+", "Clear"); an
 * assessment puts what does not fit in `subtitle` or `properties`. A check's outcome is its status
 * (`complete` or `fail`) with a word that fits ("Clear", "Alert"): its reports may not carry
 * `subtitle` or `properties`, so the kit drops them.
 */
export interface VendorResult {
  score: string;
  subtitle?: string;
  properties?: readonly { label: string; value: string }[];
  /** When the candidate finished; now when absent. An ISO 8601 date-time (any offset) or a Date. */
  completedAt?: string | Date;
  /** Lines for the recruiter's results page and the dashboard (e.g. per section); never sent to the platform. */
  details?: readonly ResultDetail[];
}

/** The result fields, as both the in-process API and the HTTP endpoint check them. */
export const ResultFields = z.object({
  score: text()
    .trim()
    .min(1, 'must not be empty')
    .max(REPORT_SCORE_MAX_LENGTH, REPORT_SCORE_TOO_LONG),
  subtitle: text().max(500).optional(),
  properties: z.array(ReportProperty).max(50).optional(),
  completed_at: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-11-01T09:30:00Z' }).optional(),
  details: z
    .array(z.object({ label: text().min(1).max(200), value: text().max(1000), ok: z.boolean().optional() }))
    .max(100)
    .optional(),
});

/** A result handed to `reports.complete`/`fail` that the platform could not take. */
export class InvalidResultError extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    super(`Invalid result: ${Object.entries(errors).map(([field, messages]) => `${field} ${messages[0]}`).join('; ')}`);
    this.name = 'InvalidResultError';
  }
}

/**
 * Results pushed by the vendor's product, in process: `partner.reports` from `startPartner`, and
 * `kit.reports` for a provider. The HTTP endpoint (`POST /vendor/reports/{id}/result`) calls the
 * same functions. Each change and the report update it queues for the platform commit together
 * (the lifecycle's transaction); delivery is durable, ordered and retried (docs/report-delivery.md).
 *
 * Every call says what happened — `recorded`, `unchanged` (the same again: nothing new is sent),
 * `conflict` (finished otherwise, or canceled: a status never moves backwards) or `unknown`.
 */
export interface VendorReports {
  /** The candidate passed (report status `completed`). Rejects with `InvalidResultError` for a result the platform could not take. */
  complete(reportId: string, result: VendorResult): Promise<ReportOutcome>;
  /** The candidate did not pass (report status `failed`). Rejects with `InvalidResultError` like `complete`. */
  fail(reportId: string, result: VendorResult): Promise<ReportOutcome>;
  /** How far the candidate got: shown in the dashboard; the platform's report does not change. */
  progress(reportId: string, stage: ProgressStage): Promise<ReportOutcome>;
  /**
   * The vendor's product canceled the test (report status `canceled`); `unchanged` when it already
   * was. The product made this cancel: its cancel hook (`Provider.cancelInvitation`) is not called for it.
   */
  cancel(reportId: string): Promise<ReportOutcome>;
}

export function vendorReports(deps: {
  lifecycle: Pick<InvitationLifecycle, 'record' | 'progress' | 'cancel'>;
  clock: Clock;
}): VendorReports {
  const { lifecycle, clock } = deps;
  const known = (reportId: string) => KitReportId.safeParse(reportId).success;

  const finish = (status: 'completed' | 'failed') => async (reportId: string, result: VendorResult): Promise<ReportOutcome> => {
    const at = result.completedAt;
    // An invalid Date becomes text the check refuses, rather than a RangeError from toISOString.
    const completedAt = at instanceof Date ? (Number.isNaN(at.getTime()) ? String(at) : at.toISOString()) : at;
    const parsed = checkResult({ ...result, completed_at: completedAt }, clock);
    if (!known(reportId)) return 'unknown';
    return lifecycle.record(
      reportId,
      { status, score: parsed.score, subtitle: parsed.subtitle, properties: parsed.properties },
      { completedAt: parsed.completedAt, details: parsed.details },
    );
  };

  return {
    complete: finish('completed'),
    fail: finish('failed'),
    async progress(reportId, stage) {
      return known(reportId) ? lifecycle.progress(reportId, stage) : 'unknown';
    },
    async cancel(reportId) {
      if (!known(reportId)) return 'unknown';
      const outcome = await lifecycle.cancel(reportId, 'product');
      if (outcome === 'canceled') return 'recorded';
      if (outcome === 'already_canceled') return 'unchanged';
      return outcome === 'unknown' ? 'unknown' : 'conflict';
    },
  };
}

/**
 * The result's fields checked (`InvalidResultError` naming each bad one), with `completed_at`
 * normalised to the platform's format (UTC, milliseconds) and refused in the future.
 */
export function checkResult(
  input: Record<string, unknown>,
  clock: Clock,
): {
  score: string;
  subtitle?: string;
  properties?: { label: string; value: string }[];
  completedAt?: string;
  details?: ResultDetail[];
} {
  const parsed = ResultFields.safeParse(input, { error: (issue) => (issue.input === undefined ? 'is required' : undefined) });
  const errors: Record<string, string[]> = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) (errors[issue.path.join('.') || 'body'] ??= []).push(issue.message);
    throw new InvalidResultError(errors);
  }
  const { score, subtitle, properties, completed_at, details } = parsed.data;
  let completedAt: string | undefined;
  if (completed_at !== undefined) {
    const ms = Date.parse(completed_at);
    if (ms > clock.now() + COMPLETED_AT_SKEW_MS) throw new InvalidResultError({ completed_at: ['must not be in the future'] });
    completedAt = isoAt(ms);
  }
  return { score, subtitle, properties, completedAt, details };
}
