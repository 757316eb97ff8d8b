import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';
import { DELIVERY_RETRY } from '../reports/policy.js';

export type MailKind = 'invitation';
export type MailStatus = 'pending' | 'sent' | 'skipped' | 'dead';

export interface QueuedMail {
  id: number;
  reportId: string;
  kind: MailKind;
  status: MailStatus;
  attempts: number;
  nextAttemptAt: string;
  giveUpAt: string;
  lastError: string | null;
  recipient: string | null;
  subject: string | null;
  messageId: string | null;
  /** The e-mail as the JSON transport rendered it (JSON text); null for SMTP, before sending and once erased. */
  message: string | null;
  sentAt: string | null;
  createdAt: string;
}

interface Row {
  id: number;
  report_id: string;
  kind: MailKind;
  status: MailStatus;
  attempts: number;
  next_attempt_at: string;
  give_up_at: string;
  last_error: string | null;
  recipient: string | null;
  subject: string | null;
  message_id: string | null;
  message: string | null;
  sent_at: string | null;
  created_at: string;
}

export type MailOutbox = ReturnType<typeof mailOutbox>;

/**
 * The `mail_outbox` table: e-mail the kit owes someone. `enqueue` runs inside the transaction of
 * the change that calls for the e-mail, so a crash right after send_candidate's answer, or right
 * after the invitation started, loses no e-mail: the sender finds the row on its next run.
 * Retries follow the report updates' schedule (reports/policy.ts).
 */
export function mailOutbox(db: Db, clock: Clock) {
  const insert = db.prepare<[MailKind, string, string, string, string, string], { id: number }>(
    `INSERT INTO mail_outbox (invitation_id, report_id, kind, next_attempt_at, give_up_at, created_at, updated_at)
     SELECT id, report_id, ?, ?, ?, ?, ? FROM invitations WHERE report_id = ? RETURNING id`,
  );
  const due = db.prepare<[string, number], Row>(
    `SELECT * FROM mail_outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`,
  );
  const nextDue = db.prepare<[], string | null>(`SELECT min(next_attempt_at) FROM mail_outbox WHERE status = 'pending'`).pluck();
  const byId = db.prepare<[number], Row>('SELECT * FROM mail_outbox WHERE id = ?');
  const ofReport = db.prepare<[string], Row>(`SELECT * FROM mail_outbox WHERE invitation_id = (SELECT id FROM invitations WHERE report_id = ?) ORDER BY id`);
  const recent = db.prepare<[number], Row>('SELECT * FROM mail_outbox ORDER BY id DESC LIMIT ?');
  const sent = db.prepare(
    `UPDATE mail_outbox SET status = 'sent', attempts = attempts + 1, recipient = @recipient, subject = @subject,
            message_id = @messageId, message = @message, sent_at = @now, last_error = NULL, updated_at = @now
      WHERE id = @id AND status = 'pending'`,
  );
  const skipped = db.prepare<[string, string, number]>(
    `UPDATE mail_outbox SET status = 'skipped', last_error = ?, updated_at = ? WHERE id = ? AND status = 'pending'`,
  );
  const skipPending = db.prepare<[string, string, string]>(
    `UPDATE mail_outbox SET status = 'skipped', last_error = ?, updated_at = ? WHERE invitation_id = (SELECT id FROM invitations WHERE report_id = ?) AND status = 'pending'`,
  );
  const failed = db.prepare<[MailStatus, string, string, string, number]>(
    `UPDATE mail_outbox SET status = ?, attempts = attempts + 1, last_error = ?, next_attempt_at = ?, updated_at = ?
      WHERE id = ? AND status = 'pending'`,
  );
  const now = () => isoAt(clock.now());

  return {
    /** Call inside the transaction of the change that calls for the e-mail. */
    enqueue(reportId: string, kind: MailKind): number {
      const at = clock.now();
      const row = insert.get(kind, isoAt(at), isoAt(at + DELIVERY_RETRY.giveUpAfterMs), isoAt(at), isoAt(at), reportId);
      if (!row) throw new Error(`No invitation for report ${reportId}`);
      return row.id;
    },
    due(limit: number): QueuedMail[] {
      return due.all(now(), limit).map(toMail);
    },
    nextDueAt: (): string | undefined => nextDue.get() ?? undefined,
    find(id: number): QueuedMail | undefined {
      const row = byId.get(id);
      return row && toMail(row);
    },
    ofReport: (reportId: string): QueuedMail[] => ofReport.all(reportId).map(toMail),
    recent: (limit = 100): QueuedMail[] => recent.all(limit).map(toMail),

    /** `message`: the rendered e-mail to keep (the JSON transport's output), or null. */
    markSent(id: number, info: { recipient: string; subject: string; messageId: string; message: string | null }): void {
      sent.run({ id, ...info, now: now() });
    },
    markSkipped(id: number, reason: string): void {
      skipped.run(reason, now(), id);
    },
    /** An invitation that was canceled owes nobody an e-mail any more. Call inside the cancel's transaction. */
    skipPendingOf(reportId: string, reason: string): void {
      skipPending.run(reason, now(), reportId);
    },
    /** A failed send: tried again at `retryAt`, or given up (dead) when that is past the give-up time. */
    markFailed(mail: QueuedMail, error: string, retryAt: number): 'retry' | 'dead' {
      const dead = retryAt >= Date.parse(mail.giveUpAt);
      failed.run(dead ? 'dead' : 'pending', error.slice(0, 1000), isoAt(retryAt), now(), mail.id);
      return dead ? 'dead' : 'retry';
    },
  };
}

function toMail(r: Row): QueuedMail {
  return {
    id: r.id,
    reportId: r.report_id,
    kind: r.kind,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    giveUpAt: r.give_up_at,
    lastError: r.last_error,
    recipient: r.recipient,
    subject: r.subject,
    messageId: r.message_id,
    message: r.message,
    sentAt: r.sent_at,
    createdAt: r.created_at,
  };
}
