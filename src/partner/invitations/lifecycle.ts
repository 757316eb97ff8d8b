import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { ReportStatus } from '../../contract/decisions.js';
import { withPrelude, type Prelude, type Sql } from '../../lib/sql.js';
import type { MailOutbox } from '../mail/outbox.js';
import type { ProviderResult, ResultDetail } from './result.js';
import type { UpdateOutbox } from '../updates/outbox.js';
import type { InvitationLinks } from './links.js';
import type { Invitation } from './store.js';
import type { ProgressStage } from './progress.js';
import type { Queued } from '../jobs/wakeups.js';
import { InvitationUpdate } from './update.js';
import { scoreNumber } from './score.js';

export type CancelOutcome = 'canceled' | 'already_canceled' | 'completed' | 'failed' | 'unknown';

/**
 * Who cancels: the platform (urls.cancel, a webhook handler), the vendor's operator (the
 * dashboard), or the vendor's product (its own `canceled` result, stored as canceled by the vendor).
 */
export type CancelBy = 'platform' | 'vendor' | 'product';

/**
 * What reporting a result or a progress stage did: `recorded` (it changed the invitation),
 * `unchanged` (the same was reported before: nothing changed), `conflict` (the invitation already
 * finished otherwise, or was canceled: a status never moves backwards) or `unknown` (no such report).
 */
export type ReportOutcome = 'recorded' | 'unchanged' | 'conflict' | 'unknown';

export { PROGRESS_STAGES, type ProgressStage } from './progress.js';

/** What a vendor's product may add to a result: when it was reached, and details for the results page. */
export interface ResultExtras {
  completedAt?: string;
  details?: readonly ResultDetail[];
}

export type InvitationLifecycle = ReturnType<typeof invitationLifecycle>;

/**
 * The `product_cancel` a cancel leaves, given what it owes the product (the query parameter
 * `param`): the call only for an invitation the product started; 'by_product' whatever it was.
 */
const productCancel = (param: string) => `CASE WHEN CAST(${param} AS TEXT) = 'by_product' OR started_at IS NOT NULL THEN CAST(${param} AS TEXT) END`;

/**
 * Every change of an invitation that the outside world hears about, each in one transaction with
 * what announces it: the report update for the platform (report_updates) and the e-mail for the
 * candidate (mail_outbox). The workers that send them run later; a crash at any point leaves
 * either the change and its announcements, or neither.
 *
 *   start     → the report's first update (`started`, urls.show), and the invitation e-mail when
 *               the invitation's platform does not wait for it to accept that update
 *               (`Platform.emailAfterAcceptance`)
 *   accepted  → the platform accepted a report update for the first time: the invitation e-mail
 *               (the platform first, `reportKnown` in updates/policy.ts: never an e-mail for a
 *               report the platform does not know)
 *   unknown   → the platform answered 404 to a report it never accepted an update of: canceled,
 *               with the reason; no e-mail, no update (the platform has no report to update)
 *   finish    → report status (completed | failed), score (and the number it reads as),
 *               subtitle, properties, completed_at, urls.show: the whole result, whatever the
 *               platform takes of it (its `deliveryRequest` decides)
 *   cancel    → report status canceled, who canceled and why; unsent e-mail dropped; the kit's candidate page stops
 *               answering the link; and, when the product started the invitation, its cancel hook
 *               is queued (`product_cancel`, product-canceller.ts: the product closes its own
 *               link) — unless the cancel is the product's own
 *   unknown and a start that finds its invitation canceled queue the hook too
 *   progress  → the stage (opened, started, in_review), recorded for the dashboard in
 *               invitation_events, and queued for a platform that hears of progress
 *               (`Platform.hearsProgress`: Ashby's `Started`)
 *
 * Every update carries `at`, when the change happened.
 *
 * Each transition happens once: it only applies to an invitation still `sent`, so a double
 * submit, a repeated cancel or a race between the two produces one update, not two.
 */
export function invitationLifecycle(deps: {
  sql: Sql;
  clock: Clock;
  updates: UpdateOutbox;
  mail: MailOutbox;
  /**
   * Without links (an app that serves the callbacks only, with no workers), updates carry no URLs
   * and a start queues no first update, so nothing is e-mailed either.
   */
  links?: Pick<InvitationLinks, 'resultsUrl'>;
  /**
   * Whether a platform (`invitations.platform`) must accept the report's first update before the
   * invitation e-mail goes (`Platform.emailAfterAcceptance`); all do when not given.
   */
  emailAfterAcceptance?: (platform: string) => boolean;
  /** Whether a platform hears of the candidate's progress (`Platform.hearsProgress`); none does when not given. */
  hearsProgress?: (platform: string) => boolean;
  /**
   * Told after a commit that queued something, with the loops that have work (jobs/wakeups.ts), so
   * they need not wait for their next poll; undefined: any of them may.
   */
  wake?: (loops?: Queued) => void;
  /**
   * Whether the provider has a cancel hook (`Provider.cancelInvitation`): then a cancel of an
   * invitation the product started queues the call to it, in the cancel's transaction. Asked at
   * each cancel (the provider is built after the lifecycle). Without it, nothing is queued.
   */
  hasCancelHook?: () => boolean;
}) {
  const { sql, clock, updates, mail, links } = deps;
  const wake = (loops?: Queued) => {
    if (loops?.length !== 0) deps.wake?.(loops);
  };
  /**
   * [kit decision] What a cancel owes the product, as `product_cancel`: nothing when the product
   * made the cancel itself ('by_product'); else the call, when the provider has a hook ('pending',
   * kept only for an invitation the product started: see `productCancel`); else nothing (NULL).
   */
  const owed = (by: CancelBy): 'by_product' | 'pending' | null => (by === 'product' ? 'by_product' : deps.hasCancelHook?.() ? 'pending' : null);
  const statusOf = async (tx: Sql, reportId: string) =>
    (await tx.get<{ status: ReportStatus }>('SELECT status FROM invitations WHERE report_id = $1', [reportId]))?.status;

  // Checked before it is queued: an update no platform would take (a score over 5 characters, say)
  // fails here, with the change, rather than as a dead letter later.
  const queue = (tx: Sql, reportId: string, body: InvitationUpdate, at: string) => updates.enqueue(tx, reportId, InvitationUpdate.parse({ ...body, at }));

  /**
   * `tx`: a transaction to start in (the starter records a batch of starts in one). Without one, a
   * start that is one statement (on PostgreSQL, where the platform waits for its first update) runs
   * as that statement; any other opens its own transaction. Resolves with the loops it left work
   * for, which the caller wakes once it has committed.
   */
  const start = async (invitation: Pick<Invitation, 'reportId' | 'platform'>, candidateUrl: string, tx?: Sql): Promise<Queued> => {
    const { reportId } = invitation;
    const now = isoAt(clock.now());
    // Checked before anything is written, so a start it refuses leaves nothing to undo.
    const update = links && InvitationUpdate.parse({ started: true, urls: { show: links.resultsUrl(reportId) }, at: now });
    // The e-mail waits for the platform to accept the first update (`accepted`), on a platform that
    // must; another already knows the report from the answer to its send: accepted now, e-mailed now.
    const mailNow = update !== undefined && !(deps.emailAfterAcceptance?.(invitation.platform) ?? true);
    const change = {
      text: `UPDATE invitations SET started_at = $1, candidate_url = $2, start_error = NULL, updated_at = $1${mailNow ? ', platform_accepted_at = coalesce(platform_accepted_at, $1)' : ''}
              WHERE report_id = $3 AND started_at IS NULL AND status = 'sent' RETURNING id, report_id`,
      params: [now, candidateUrl, reportId],
    };
    const inside = async (t: Sql): Promise<Queued> => {
      // Marked started and its first update queued, in one step (updates/outbox.ts).
      const started = update ? await updates.enqueueWith(t, change, update) : await t.get(change.text, change.params);
      if (!started) {
        // Canceled while the product was starting it: the product has a test the kit never
        // recorded, so it is told of the cancel now (unless the cancel was its own). Still not started here.
        if (!deps.hasCancelHook?.()) return [];
        const owed = await t.run(
          `UPDATE invitations SET product_cancel = 'pending', product_cancel_next_at = $1, updated_at = $1
            WHERE report_id = $2 AND status = 'canceled' AND started_at IS NULL AND product_cancel IS NULL`,
          [now, reportId],
        );
        return owed.changes === 1 ? ['product canceller'] : [];
      }
      if (!update) return [];
      if (!mailNow) return ['report delivery'];
      await mail.enqueue(t, reportId, 'invitation');
      return ['report delivery', 'mail sender'];
    };
    if (tx) return inside(tx);
    return sql.dialect === 'postgres' && !mailNow ? inside(sql) : sql.transaction(inside);
  };

  const finish = (reportId: string, result: ProviderResult, extra: ResultExtras = {}): Promise<ReportOutcome> =>
    sql.transaction(async (tx) => {
      const now = isoAt(clock.now());
      const properties = (result.properties ?? []).map((p) => ({ label: p.label, value: p.value }));
      const values = {
        status: result.status,
        score: result.score,
        subtitle: result.subtitle ?? null,
        // Stored with the keys in one order, so the same result reported again compares equal.
        properties: JSON.stringify(properties),
      };
      const at = extra.completedAt ?? now;
      const details = extra.details === undefined ? null : JSON.stringify(extra.details);
      const finished = await tx.run(
        `UPDATE invitations SET status = $1, score = $2, subtitle = $3, properties = $4, details = $5, completed_at = $6,
                submitted_at = coalesce(submitted_at, $7), updated_at = $7
          WHERE report_id = $8 AND status = 'sent'`,
        [values.status, values.score, values.subtitle, values.properties, details, at, now, reportId],
      );
      if (finished.changes === 0) {
        const prior = await tx.get<{ status: ReportStatus; score: string | null; subtitle: string | null; properties: string }>(
          'SELECT status, score, subtitle, properties FROM invitations WHERE report_id = $1',
          [reportId],
        );
        if (!prior) return 'unknown';
        const same =
          prior.status === values.status && prior.score === values.score && prior.subtitle === values.subtitle && prior.properties === values.properties;
        return same ? 'unchanged' : 'conflict';
      }
      await queue(
        tx,
        reportId,
        {
          status: result.status,
          score: result.score,
          score_value: scoreNumber(result.score) ?? null,
          completed_at: at,
          ...(result.subtitle !== undefined && { subtitle: result.subtitle }),
          ...(result.properties !== undefined && { properties }),
          // A fresh results link: the one sent at the start may be close to its expiry by now.
          ...(links && { urls: { show: links.resultsUrl(reportId) } }),
        },
        now,
      );
      return 'recorded';
    });

  const progress = (reportId: string, stage: ProgressStage): Promise<ReportOutcome> =>
    sql.transaction(async (tx) => {
      const invitation = await tx.get<{ status: ReportStatus; platform: string }>('SELECT status, platform FROM invitations WHERE report_id = $1', [reportId]);
      if (invitation === undefined) return 'unknown';
      // A stage reported again (a retry) is answered alike, even once the result is in.
      if (await tx.get('SELECT 1 AS seen FROM invitation_events WHERE report_id = $1 AND stage = $2', [reportId, stage])) return 'unchanged';
      if (invitation.status !== 'sent') return 'conflict';
      const now = isoAt(clock.now());
      // Two reports of one stage at once: the unique (report_id, stage) keeps one.
      const added = await tx.run('INSERT INTO invitation_events (report_id, stage, at) VALUES ($1, $2, $3) ON CONFLICT (report_id, stage) DO NOTHING', [reportId, stage, now]);
      if (stage === 'opened') await tx.run('UPDATE invitations SET opened_at = $1, updated_at = $1 WHERE report_id = $2 AND opened_at IS NULL', [now, reportId]);
      if (added.changes === 1 && deps.hearsProgress?.(invitation.platform)) await queue(tx, reportId, { stage }, now);
      return 'recorded';
    });

  const cancel = (reportId: string, by: CancelBy, reason?: string): Promise<CancelOutcome> =>
    sql.transaction(async (tx) => {
      const now = isoAt(clock.now());
      const why = reason?.trim().slice(0, 500) || null;
      const canceled = await tx.run(
        `UPDATE invitations SET status = 'canceled', canceled_at = $1, canceled_by = $2, updated_at = $1,
                cancel_reason = coalesce($5, cancel_reason), product_cancel = ${productCancel('$4')}, product_cancel_next_at = $1
          WHERE report_id = $3 AND status = 'sent'`,
        [now, by === 'platform' ? 'platform' : 'vendor', reportId, owed(by), why],
      );
      if (canceled.changes === 1) {
        await mail.skipPendingOf(tx, reportId, 'the invitation was canceled');
        await queue(tx, reportId, { status: 'canceled', canceled_by: by, cancel_reason: why }, now);
        return 'canceled';
      }
      const status = await statusOf(tx, reportId);
      if (status === undefined) return 'unknown';
      return status === 'canceled' ? 'already_canceled' : (status as 'completed' | 'failed');
    });

  const resend = (reportId: string, candidateUrl: string): Promise<boolean> =>
    sql.transaction(async (tx) => {
      // Before the platform accepted the report there is no e-mail to send again: the one the
      // acceptance queues carries the newest link (it is rendered when it is sent).
      const relinked = await tx.run(
        `UPDATE invitations SET candidate_url = $1, updated_at = $2
          WHERE report_id = $3 AND status = 'sent' AND started_at IS NOT NULL AND platform_accepted_at IS NOT NULL`,
        [candidateUrl, isoAt(clock.now()), reportId],
      );
      if (relinked.changes === 0) return false;
      await mail.enqueue(tx, reportId, 'invitation');
      return true;
    });

  /**
   * The platform accepted an update of the report (2xx), in `tx`, the delivery's own transaction,
   * or with the delivery's record as `prelude` (`platformAnswered`). The first time, it is the
   * proof the platform knows the report: the invitation e-mail is queued, unless the invitation is
   * no longer `sent`. True when it queued the e-mail.
   */
  const accepted = (tx: Sql, reportId: string, prelude?: Prelude): Promise<boolean> =>
    // Marked accepted and the e-mail queued, in one step (mail/outbox.ts). The UPDATE reads the row
    // as committed last (and waits for a cancel in flight): the e-mail is queued once, whichever
    // instance records the acceptance, and never after a cancel.
    mail.enqueueWith(
      tx,
      {
        text: `UPDATE invitations SET platform_accepted_at = $1 WHERE report_id = $2 AND platform_accepted_at IS NULL
                RETURNING id, report_id, status, started_at`,
        params: [isoAt(clock.now()), reportId],
      },
      'invitation',
      `status = 'sent' AND started_at IS NOT NULL`,
      prelude,
    );

  /**
   * The platform answered 404 to an update of the report, in `tx`, the delivery's own transaction.
   * A report it never accepted an update of is unknown to it (the send's answer was lost, or the
   * report deleted before its first update): the invitation is canceled, with `reason`, and nothing
   * is queued — no e-mail was, and the platform has no report to update. Once the platform accepted
   * one, a 404 means the report was deleted since: the invitation stays as it is (the platform
   * first, `reportKnown` in updates/policy.ts).
   */
  const unknown = async (tx: Sql, reportId: string, reason: string, prelude?: Prelude): Promise<boolean> => {
    const now = isoAt(clock.now());
    const canceled = await tx.run(
      ...withPrelude(
        prelude,
        `UPDATE invitations SET status = 'canceled', canceled_at = $1, canceled_by = 'platform', cancel_reason = $2, updated_at = $1,
                product_cancel = ${productCancel('$4')}, product_cancel_next_at = $1
          WHERE report_id = $3 AND status = 'sent' AND platform_accepted_at IS NULL`,
        [now, `The platform does not know this report: it answered ${reason} before it had accepted any update of it`.slice(0, 500), reportId, owed('platform')],
      ),
    );
    // No e-mail to drop: one is queued only once the platform accepted the report.
    return canceled.changes === 1;
  };

  const after = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    const result = await fn(...args);
    if (result === true || result === 'canceled' || result === 'recorded') wake();
    return result;
  };
  const record = after((reportId: string, result: ProviderResult, extra?: ResultExtras) => finish(reportId, result, extra));

  return {
    /**
     * The provider started the test: marked started, with the report's first update queued (and the
     * e-mail, on a platform that does not wait for the update). Resolves with the loops it left work
     * for: none when already started or no longer `sent` (the product canceller when it was canceled
     * meanwhile and the product is owed the call). `tx`: a transaction to record it in. The
     * caller wakes those loops once it has committed (the starter does).
     */
    start,
    /** The candidate submitted what a check needs (consent); the result comes later. */
    submitted: async (reportId: string): Promise<boolean> => {
      const now = isoAt(clock.now());
      const changed = await sql.run(`UPDATE invitations SET submitted_at = $1, updated_at = $1 WHERE report_id = $2 AND status = 'sent' AND submitted_at IS NULL`, [
        now,
        reportId,
      ]);
      return changed.changes === 1;
    },
    /** The result is known. False when the invitation was no longer `sent` (already finished or canceled). */
    finish: async (reportId: string, result: ProviderResult): Promise<boolean> => (await record(reportId, result)) === 'recorded',
    /**
     * The result is known, as the vendor's product reports it (`completedAt`: when, ISO 8601 UTC,
     * now when absent; `details` for the results page). Says what happened: the same status, score,
     * subtitle and properties again is `unchanged`, another result for a finished or canceled
     * invitation a `conflict`.
     */
    record,
    /** The candidate got this far in the vendor's product; for the dashboard only. */
    progress,
    /**
     * Canceled by the platform (urls.cancel, a webhook handler), the vendor's operator (the
     * dashboard) or the vendor's product (its `canceled` result), with why when it is known (the
     * platform's update carries it). The product's cancel hook is queued with it
     * (`hasCancelHook`), except for the product's own.
     */
    cancel: after(cancel),
    /**
     * A new link and e-mail for a started invitation (the dashboard's "resend"). False before the
     * platform accepted the report: the e-mail has not gone out once yet.
     */
    resend: after(resend),
    /**
     * What the platform's answer to a report update means for the invitation, recorded in the
     * delivery worker's transaction `tx`, or, given the delivery's own record as `prelude` (on
     * PostgreSQL), in one statement that carries both (the caller wakes the workers once it
     * commits): `accepted` for a 2xx, `unknown` for a 404. Always one statement on PostgreSQL.
     * True when it changed something.
     */
    platformAnswered: (tx: Sql, reportId: string, answer: { accepted: true } | { accepted: false; reason: string }, prelude?: Prelude): Promise<boolean> =>
      answer.accepted ? accepted(tx, reportId, prelude) : unknown(tx, reportId, answer.reason, prelude),
    /**
     * Wakes the loop that what `platformAnswered` recorded left work for, once the delivery's
     * transaction committed: the mail sender after an acceptance, the product canceller after a cancel.
     */
    answerRecorded: (answer: { accepted: boolean }): void => wake([answer.accepted ? 'mail sender' : 'product canceller']),
    /**
     * Tells the workers something was queued (after a transaction of the caller's own committed):
     * `loops`, or any that may have work when not given.
     */
    wake,
  };
}
