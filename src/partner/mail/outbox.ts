import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import { placeholders, withPrelude, type Prelude, type Sql } from '../../lib/sql.js';
import { DELIVERY_RETRY } from '../updates/policy.js';
import { claimQuery } from '../jobs/lease.js';
import { toInvitation, type Invitation, type InvitationRow } from '../invitations/store.js';

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

/** A claimed e-mail with what rendering it needs, read in the claim. */
export interface MailToSend {
  mail: QueuedMail;
  /** Its invitation when claimed; undefined once erased. */
  invitation?: Invitation;
  /** The name of the invitation's account. */
  accountName?: string;
}

/** The columns of `mail_outbox` that make a `QueuedMail`. */
const MAIL_COLUMNS = [
  'id', 'report_id', 'kind', 'status', 'attempts', 'next_attempt_at', 'give_up_at', 'last_error',
  'recipient', 'subject', 'message_id', 'message', 'sent_at', 'created_at',
] as const;

/** A claimed e-mail's row: its columns as mail_…, its invitation's (all null once erased) and the account's name. */
type ClaimedRow = { [C in (typeof MAIL_COLUMNS)[number] as `mail_${C}`]: Row[C] } & InvitationRow & { account_name: string | null };

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
 * Retries follow the report updates' schedule (updates/policy.ts).
 */
export function mailOutbox(sql: Sql, clock: Clock) {
  // The e-mails claimed, each with its invitation and the account's name, which rendering it
  // needs: the claim and the read in one statement. The e-mail's columns are named mail_… beside
  // the invitation's.
  const claimDue = claimQuery(sql, {
    table: 'mail_outbox',
    lease: 'next_attempt_at',
    from: 'mail_outbox m',
    alias: 'm',
    where: `m.status = 'pending' AND m.next_attempt_at <= $1`,
    order: 'm.next_attempt_at, m.id',
    select: `SELECT ${MAIL_COLUMNS.map((c) => `c.${c} AS mail_${c}`).join(', ')}, a.name AS account_name, i.*
               FROM claimed c LEFT JOIN invitations i ON i.id = c.invitation_id LEFT JOIN accounts a ON a.id = i.account_id
              ORDER BY c.id`,
  });
  const ofInvitation = '(SELECT id FROM invitations WHERE report_id = $1)';
  const now = () => isoAt(clock.now());
  const mails = async (text: string, params: unknown[]) => (await sql.all<Row>(text, params)).map(toMail);

  return {
    /** Call inside the transaction (`tx`) of the change that calls for the e-mail. */
    async enqueue(tx: Sql, reportId: string, kind: MailKind): Promise<number> {
      const at = clock.now();
      const row = await tx.get<{ id: number }>(
        `INSERT INTO mail_outbox (invitation_id, report_id, kind, next_attempt_at, give_up_at, created_at, updated_at)
         SELECT id, report_id, $2, $3, $4, $3, $3 FROM invitations WHERE report_id = $1 RETURNING id`,
        [reportId, kind, isoAt(at), isoAt(at + DELIVERY_RETRY.giveUpAfterMs)],
      );
      if (!row) throw new Error(`No invitation for report ${reportId}`);
      return row.id;
    },
    /**
     * A change of an invitation and the e-mail it calls for, as one step, as the update outbox's
     * `enqueueWith` (read it there): `change` ends `RETURNING id, report_id` and the columns `when`
     * reads, and the e-mail is queued only for a changed row that meets `when` (a condition on the
     * invitation's columns). One statement on PostgreSQL, with `prelude`'s writes in front when given
     * (the delivery's record of the answer that called for it); on SQLite two, in the transaction
     * `tx`. Resolves with whether it queued the e-mail.
     */
    async enqueueWith(tx: Sql, change: { text: string; params: unknown[] }, kind: MailKind, when: string, prelude?: Prelude): Promise<boolean> {
      const at = clock.now();
      const queued = [kind, isoAt(at), isoAt(at + DELIVERY_RETRY.giveUpAfterMs)];
      const [k, t, g] = [1, 2, 3].map((i) => `$${change.params.length + i}`);
      const insert = `INSERT INTO mail_outbox (invitation_id, report_id, kind, next_attempt_at, give_up_at, created_at, updated_at)`;
      if (tx.dialect === 'sqlite') {
        const changed = await tx.get<{ report_id: string }>(change.text, change.params);
        if (!changed) return false;
        // The changed row is the invitation as the change left it: `when` reads it there.
        const row = await tx.get(`${insert} SELECT id, report_id, $2, $3, $4, $3, $3 FROM invitations WHERE report_id = $1 AND (${when}) RETURNING id`, [
          changed.report_id,
          ...queued,
        ]);
        return row !== undefined;
      }
      const row = await tx.get<{ queued: number }>(
        ...withPrelude(
          prelude,
          `WITH changed AS (${change.text}),
                queued AS (${insert} SELECT id, report_id, ${k}, ${t}, ${g}, ${t}, ${t} FROM changed WHERE ${when} RETURNING id)
           SELECT count(*) AS queued FROM queued`,
          [...change.params, ...queued],
        ),
      );
      return Number(row?.queued ?? 0) > 0;
    },
    /**
     * Claims the e-mails that are due, oldest first, for `leaseMs` (jobs/lease.ts): no other run,
     * on any instance, sends them until then. Recording what became of one settles it. Each comes
     * with its invitation as it is now (none once erased) and the name of the invitation's account.
     */
    async claimDue(limit: number, leaseMs: number): Promise<MailToSend[]> {
      const rows = await sql.all<ClaimedRow>(claimDue, [now(), isoAt(clock.now() + leaseMs), limit]);
      return rows.map((r) => {
        const mail = toMail(Object.fromEntries(MAIL_COLUMNS.map((c) => [c, r[`mail_${c}`]])) as unknown as Row);
        return r.report_id === null ? { mail } : { mail, invitation: toInvitation(r), accountName: r.account_name ?? undefined };
      });
    },
    /** Claims given back unsent (a shutdown): due again at once, for any instance. */
    async release(ids: readonly number[]): Promise<void> {
      if (ids.length === 0) return;
      await sql.run(`UPDATE mail_outbox SET next_attempt_at = $1 WHERE status = 'pending' AND id IN (${placeholders(ids.length, 2)})`, [now(), ...ids]);
    },
    nextDueAt: async (): Promise<string | undefined> =>
      (await sql.get<{ at: string | null }>(`SELECT min(next_attempt_at) AS at FROM mail_outbox WHERE status = 'pending'`))?.at ?? undefined,
    async find(id: number): Promise<QueuedMail | undefined> {
      return (await mails('SELECT * FROM mail_outbox WHERE id = $1', [id]))[0];
    },
    ofReport: (reportId: string): Promise<QueuedMail[]> => mails(`SELECT * FROM mail_outbox WHERE invitation_id = ${ofInvitation} ORDER BY id`, [reportId]),
    recent: (limit = 100): Promise<QueuedMail[]> => mails('SELECT * FROM mail_outbox ORDER BY id DESC LIMIT $1', [limit]),

    /** `message`: the rendered e-mail to keep (the JSON transport's output), or null. `tx`: the sender's batch. */
    async markSent(tx: Sql, id: number, info: { recipient: string; subject: string; messageId: string; message: string | null }): Promise<void> {
      await tx.run(
        `UPDATE mail_outbox SET status = 'sent', attempts = attempts + 1, recipient = $2, subject = $3, message_id = $4, message = $5,
                sent_at = $6, last_error = NULL, updated_at = $6
          WHERE id = $1 AND status = 'pending'`,
        [id, info.recipient, info.subject, info.messageId, info.message, now()],
      );
    },
    async markSkipped(tx: Sql, id: number, reason: string): Promise<void> {
      await tx.run(`UPDATE mail_outbox SET status = 'skipped', last_error = $1, updated_at = $2 WHERE id = $3 AND status = 'pending'`, [reason, now(), id]);
    },
    /** An invitation that was canceled owes nobody an e-mail any more. Call inside the cancel's transaction. */
    async skipPendingOf(tx: Sql, reportId: string, reason: string): Promise<void> {
      await tx.run(`UPDATE mail_outbox SET status = 'skipped', last_error = $2, updated_at = $3 WHERE invitation_id = ${ofInvitation} AND status = 'pending'`, [
        reportId,
        reason,
        now(),
      ]);
    },
    /** A failed send: tried again at `retryAt`, or given up (dead) when that is past the give-up time. */
    async markFailed(tx: Sql, mail: QueuedMail, error: string, retryAt: number): Promise<'retry' | 'dead'> {
      const dead = retryAt >= Date.parse(mail.giveUpAt);
      await tx.run(
        `UPDATE mail_outbox SET status = $1, attempts = attempts + 1, last_error = $2, next_attempt_at = $3, updated_at = $4 WHERE id = $5 AND status = 'pending'`,
        [dead ? 'dead' : 'pending', error.slice(0, 1000), isoAt(retryAt), now(), mail.id],
      );
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
