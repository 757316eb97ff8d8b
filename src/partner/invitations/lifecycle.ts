import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { PartnerKind, ReportStatus } from '../../contract/decisions.js';
import { ReportUpdate } from '../../contract/schemas.js';
import type { Db } from '../../lib/db.js';
import type { MailOutbox } from '../mail/outbox.js';
import type { ProviderResult, ResultDetail } from '../provider/types.js';
import type { ReportOutbox } from '../reports/outbox.js';
import type { InvitationLinks } from './links.js';
import type { Invitation } from './store.js';

export type CancelOutcome = 'canceled' | 'already_canceled' | 'completed' | 'failed' | 'unknown';

/**
 * What reporting a result or a progress stage did: `recorded` (it changed the invitation),
 * `unchanged` (the same was reported before: nothing changed), `conflict` (the invitation already
 * finished otherwise, or was canceled: a status never moves backwards) or `unknown` (no such report).
 */
export type ReportOutcome = 'recorded' | 'unchanged' | 'conflict' | 'unknown';

/** How far the candidate got in the vendor's product, before the result. Recorded, never sent to the platform. */
export const PROGRESS_STAGES = ['opened', 'started', 'in_review'] as const;
export type ProgressStage = (typeof PROGRESS_STAGES)[number];

/** What a vendor's product may add to a result: when it was reached, and details for the results page. */
export interface ResultExtras {
  completedAt?: string;
  details?: readonly ResultDetail[];
}

export type InvitationLifecycle = ReturnType<typeof invitationLifecycle>;

/**
 * Every change of an invitation that the outside world hears about, each in one transaction with
 * what announces it: the report update for the platform (report_updates) and the e-mail for the
 * candidate (mail_outbox). The workers that send them run later; a crash at any point leaves
 * either the change and its announcements, or neither.
 *
 *   start     → invitation e-mail; report urls.show + urls.cancel
 *   finish    → report status (completed | failed), score, completed_at, urls.show
 *               (+ subtitle, properties for assessments)
 *   cancel    → report status canceled; unsent e-mail dropped; the candidate link stops working
 *   progress  → nothing for the platform: the stage (opened, started, in_review) is recorded for
 *               the dashboard in invitation_events
 *
 * Each transition happens once: it only applies to an invitation still `sent`, so a double
 * submit, a repeated cancel or a race between the two produces one update, not two.
 */
export function invitationLifecycle(deps: {
  db: Db;
  clock: Clock;
  kind: PartnerKind;
  reports: ReportOutbox;
  mail: MailOutbox;
  /** Without links (an app that serves the callbacks only), updates carry no URLs. */
  links?: Pick<InvitationLinks, 'resultsUrl' | 'cancelUrl'>;
  /** Told after a commit that queued something, so the workers need not wait for their next poll. */
  wake?: () => void;
}) {
  const { db, clock, kind, reports, mail, links } = deps;
  const wake = () => deps.wake?.();

  const started = db.prepare<[string, string, string, string]>(
    `UPDATE invitations SET started_at = ?, candidate_url = ?, start_error = NULL, updated_at = ?
      WHERE report_id = ? AND started_at IS NULL AND status = 'sent'`,
  );
  const relinked = db.prepare<[string, string, string]>(
    `UPDATE invitations SET candidate_url = ?, updated_at = ? WHERE report_id = ? AND status = 'sent' AND started_at IS NOT NULL`,
  );
  const submitted = db.prepare<[string, string, string]>(
    `UPDATE invitations SET submitted_at = ?, updated_at = ? WHERE report_id = ? AND status = 'sent' AND submitted_at IS NULL`,
  );
  const finished = db.prepare(
    `UPDATE invitations SET status = @status, score = @score, subtitle = @subtitle, properties = @properties,
            details = @details, completed_at = @completedAt, submitted_at = coalesce(submitted_at, @now), updated_at = @now
      WHERE report_id = @reportId AND status = 'sent'`,
  );
  const resultOf = db.prepare<[string], { status: ReportStatus; score: string | null; subtitle: string | null; properties: string }>(
    'SELECT status, score, subtitle, properties FROM invitations WHERE report_id = ?',
  );
  const eventOf = db.prepare<[string, string], number>('SELECT count(*) FROM invitation_events WHERE report_id = ? AND stage = ?').pluck();
  const addEvent = db.prepare<[string, string, string]>('INSERT INTO invitation_events (report_id, stage, at) VALUES (?, ?, ?)');
  const openedNow = db.prepare<[string, string, string]>(
    'UPDATE invitations SET opened_at = ?, updated_at = ? WHERE report_id = ? AND opened_at IS NULL',
  );
  const canceled = db.prepare<[string, 'platform' | 'vendor', string, string]>(
    `UPDATE invitations SET status = 'canceled', canceled_at = ?, canceled_by = ?, updated_at = ?
      WHERE report_id = ? AND status = 'sent'`,
  );
  const statusOf = db.prepare<[string], ReportStatus>('SELECT status FROM invitations WHERE report_id = ?').pluck();

  // Parsed with the wire schema before it is queued: an update the platform would refuse (a score
  // over 5 characters, say) fails here, with the change, rather than as a dead letter later.
  const queue = (reportId: string, body: ReportUpdate) => reports.enqueue(reportId, ReportUpdate.parse(body));

  const start = db.transaction((reportId: string, candidateUrl: string): boolean => {
    const now = isoAt(clock.now());
    if (started.run(now, candidateUrl, now, reportId).changes === 0) return false;
    mail.enqueue(reportId, 'invitation');
    if (links) queue(reportId, { urls: { show: links.resultsUrl(reportId), cancel: links.cancelUrl(reportId) } });
    return true;
  });

  const finish = db.transaction((reportId: string, result: ProviderResult, extra: ResultExtras = {}): ReportOutcome => {
    const now = isoAt(clock.now());
    // Check kinds may not send subtitle or properties (contract §3.2): the kit drops them whatever a provider returns.
    const shown = kind === 'assessment' ? { subtitle: result.subtitle, properties: result.properties } : {};
    const values = {
      status: result.status,
      score: result.score,
      subtitle: shown.subtitle ?? null,
      // Stored with the keys in one order, so the same result reported again compares equal.
      properties: JSON.stringify((shown.properties ?? []).map((p) => ({ label: p.label, value: p.value }))),
    };
    const at = extra.completedAt ?? now;
    const details = extra.details === undefined ? null : JSON.stringify(extra.details);
    if (finished.run({ reportId, ...values, details, completedAt: at, now }).changes === 0) {
      const prior = resultOf.get(reportId);
      if (!prior) return 'unknown';
      const same =
        prior.status === values.status && prior.score === values.score && prior.subtitle === values.subtitle && prior.properties === values.properties;
      return same ? 'unchanged' : 'conflict';
    }
    queue(reportId, {
      status: result.status,
      score: result.score,
      completed_at: at,
      ...(shown.subtitle !== undefined && { subtitle: shown.subtitle }),
      ...(shown.properties !== undefined && { properties: shown.properties.map((p) => ({ label: p.label, value: p.value })) }),
      // A fresh results link: the one sent at the start may be close to its expiry by now.
      ...(links && { urls: { show: links.resultsUrl(reportId) } }),
    });
    return 'recorded';
  });

  const progress = db.transaction((reportId: string, stage: ProgressStage): ReportOutcome => {
    const status = statusOf.get(reportId);
    if (status === undefined) return 'unknown';
    // A stage reported again (a retry) is answered alike, even once the result is in.
    if (eventOf.get(reportId, stage) !== 0) return 'unchanged';
    if (status !== 'sent') return 'conflict';
    const now = isoAt(clock.now());
    addEvent.run(reportId, stage, now);
    if (stage === 'opened') openedNow.run(now, now, reportId);
    return 'recorded';
  });

  const cancel = db.transaction((reportId: string, by: 'platform' | 'vendor'): CancelOutcome => {
    const now = isoAt(clock.now());
    if (canceled.run(now, by, now, reportId).changes === 1) {
      mail.skipPendingOf(reportId, 'the invitation was canceled');
      queue(reportId, { status: 'canceled' });
      return 'canceled';
    }
    const status = statusOf.get(reportId);
    if (status === undefined) return 'unknown';
    return status === 'canceled' ? 'already_canceled' : (status as 'completed' | 'failed');
  });

  const resend = db.transaction((reportId: string, candidateUrl: string): boolean => {
    if (relinked.run(candidateUrl, isoAt(clock.now()), reportId).changes === 0) return false;
    mail.enqueue(reportId, 'invitation');
    return true;
  });

  const after = <A extends unknown[], R>(fn: (...args: A) => R) => (...args: A): R => {
    const result = fn(...args);
    if (result === true || result === 'canceled' || result === 'recorded') wake();
    return result;
  };
  const record = after((reportId: string, result: ProviderResult, extra?: ResultExtras) => finish(reportId, result, extra));

  return {
    /** The provider started the test: the e-mail and the report's links are queued. False when already started or no longer `sent`. */
    start: after((invitation: Pick<Invitation, 'reportId'>, candidateUrl: string) => start(invitation.reportId, candidateUrl)),
    /** The candidate submitted what a check needs (consent); the result comes later. */
    submitted: (reportId: string): boolean => submitted.run(isoAt(clock.now()), isoAt(clock.now()), reportId).changes === 1,
    /** The result is known. False when the invitation was no longer `sent` (already finished or canceled). */
    finish: (reportId: string, result: ProviderResult): boolean => record(reportId, result) === 'recorded',
    /**
     * The result is known, as the vendor's product reports it (`completedAt`: when, ISO 8601 UTC,
     * now when absent; `details` for the results page). Says what happened: the same status, score,
     * subtitle and properties again is `unchanged`, another result for a finished or canceled
     * invitation a `conflict`.
     */
    record,
    /** The candidate got this far in the vendor's product; for the dashboard only. */
    progress: (reportId: string, stage: ProgressStage): ReportOutcome => progress(reportId, stage),
    /** Canceled by the platform (urls.cancel) or by the vendor (dashboard). */
    cancel: after((reportId: string, by: 'platform' | 'vendor') => cancel(reportId, by)),
    /** A new link and e-mail for a started invitation (the dashboard's "resend"). */
    resend: after((reportId: string, candidateUrl: string) => resend(reportId, candidateUrl)),
  };
}
