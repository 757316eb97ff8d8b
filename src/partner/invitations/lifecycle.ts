import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { PartnerKind, ReportStatus } from '../../contract/decisions.js';
import { ReportUpdate } from '../../contract/schemas.js';
import type { Db } from '../../lib/db.js';
import type { MailOutbox } from '../mail/outbox.js';
import type { ProviderResult } from '../provider/types.js';
import type { ReportOutbox } from '../reports/outbox.js';
import type { InvitationLinks } from './links.js';
import type { Invitation } from './store.js';

export type CancelOutcome = 'canceled' | 'already_canceled' | 'completed' | 'failed' | 'unknown';

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
            completed_at = @now, submitted_at = coalesce(submitted_at, @now), updated_at = @now
      WHERE report_id = @reportId AND status = 'sent'`,
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

  const finish = db.transaction((reportId: string, result: ProviderResult): boolean => {
    const now = isoAt(clock.now());
    // Check kinds may not send subtitle or properties (contract §3.2): the kit drops them whatever a provider returns.
    const details = kind === 'assessment' ? { subtitle: result.subtitle, properties: result.properties } : {};
    const changed = finished.run({
      reportId,
      status: result.status,
      score: result.score,
      subtitle: details.subtitle ?? null,
      properties: JSON.stringify(details.properties ?? []),
      now,
    }).changes;
    if (changed === 0) return false;
    queue(reportId, {
      status: result.status,
      score: result.score,
      completed_at: now,
      ...(details.subtitle !== undefined && { subtitle: details.subtitle }),
      ...(details.properties !== undefined && { properties: [...details.properties] }),
      // A fresh results link: the one sent at the start may be close to its expiry by now.
      ...(links && { urls: { show: links.resultsUrl(reportId) } }),
    });
    return true;
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
    if (result === true || result === 'canceled') wake();
    return result;
  };

  return {
    /** The provider started the test: the e-mail and the report's links are queued. False when already started or no longer `sent`. */
    start: after((invitation: Pick<Invitation, 'reportId'>, candidateUrl: string) => start(invitation.reportId, candidateUrl)),
    /** The candidate submitted what a check needs (consent); the result comes later. */
    submitted: (reportId: string): boolean => submitted.run(isoAt(clock.now()), isoAt(clock.now()), reportId).changes === 1,
    /** The result is known. False when the invitation was no longer `sent` (already finished or canceled). */
    finish: after((reportId: string, result: ProviderResult) => finish(reportId, result)),
    /** Canceled by the platform (urls.cancel) or by the vendor (dashboard). */
    cancel: after((reportId: string, by: 'platform' | 'vendor') => cancel(reportId, by)),
    /** A new link and e-mail for a started invitation (the dashboard's "resend"). */
    resend: after((reportId: string, candidateUrl: string) => resend(reportId, candidateUrl)),
  };
}
