import { Eta } from 'eta';
import type { Clock } from '../../lib/clock.js';
import type { PartnerKind } from '../../contract/decisions.js';
import type { Db } from '../../lib/db.js';
import type { Logger } from '../../lib/http/logger.js';
import { nextTurn, type Pause } from '../../lib/perf/requests-first.js';
import { backoffMs } from '../jobs/backoff.js';
import { heldBatch } from '../jobs/loop.js';
import { KIND_WORDING } from '../invitations/kinds.js';
import type { Invitation, InvitationStore } from '../invitations/store.js';
import { PARTNER_VIEWS_DIR, views } from '../pages/views.js';
import { DELIVERY_RETRY } from '../reports/policy.js';
import type { MailOutbox, QueuedMail } from './outbox.js';
import { oneLine, type MailMessage, type Mailer } from './transport.js';

const BATCH = 20;

/** The plain-text part is not HTML: nothing in it is escaped. */
const textViews = new Eta({ views: PARTNER_VIEWS_DIR, cache: true, autoEscape: false });

export type MailSender = ReturnType<typeof mailSender>;

/**
 * Sends what the mail outbox holds. The message is rendered at send time from the invitation as
 * it is then: a canceled invitation's e-mail is skipped, and a resend carries the newest link.
 * E-mails go out `concurrency` at a time (one per pooled SMTP connection), each lane pausing
 * between two. Sending is at least once: a crash after the SMTP server took the message and
 * before the row was marked sends it again on restart (better twice than never for an invitation).
 * What became of a batch's e-mails is recorded in one transaction (`heldBatch`), at the latest
 * 100 ms after the batch began: that bounds what a crash sends twice.
 */
export function mailSender(deps: {
  db: Db;
  outbox: MailOutbox;
  invitations: InvitationStore;
  mailer: Mailer;
  clock: Clock;
  logger: Logger;
  kind: PartnerKind;
  random?: () => number;
  /** Between two e-mails (`requestsFirst` in the server): lets the platform's requests go first. */
  pause?: Pause;
  /** E-mails in flight at once (default 1): the SMTP pool's `maxConnections`. */
  concurrency?: number;
}) {
  const { outbox, invitations, mailer, clock, logger, kind } = deps;
  const random = deps.random ?? Math.random;
  const pause = deps.pause ?? nextTurn;
  const concurrency = Math.max(1, deps.concurrency ?? 1);
  const accountName = deps.db.prepare<[number], string>('SELECT name FROM accounts WHERE id = ?').pluck();

  function render(mail: QueuedMail, invitation: Invitation): MailMessage {
    const wording = KIND_WORDING[kind];
    const data = {
      invitation,
      wording,
      kind,
      company: accountName.get(invitation.accountId) ?? 'The recruiter',
      link: invitation.candidateUrl,
    };
    // The account's and the test's names are not ours to trust with a header: one line, always.
    const subject = oneLine(
      kind === 'assessment'
        ? `${data.company} invites you to take the ${invitation.testName} test`
        : `${data.company} requested a ${wording.noun}: your consent is needed`,
    );
    return {
      // Structured, never "Name <address>" text: a name can hold commas and addresses of its own.
      to: { name: oneLine(`${invitation.firstName} ${invitation.lastName}`), address: invitation.email },
      subject,
      text: textViews.render(`./mail/${mail.kind}-text`, data),
      html: views.render(`./mail/${mail.kind}-html`, data),
    };
  }

  type Outcome = 'sent' | 'skipped' | 'retry' | 'dead';
  /** Writes what became of one e-mail; runs with the rest of its batch, in one transaction. */
  type RecordOutcome = () => Outcome;

  async function sendOne(mail: QueuedMail): Promise<RecordOutcome> {
    const invitation = invitations.get(mail.reportId);
    if (!invitation || invitation.status !== 'sent') {
      const reason = `the invitation is ${invitation?.status ?? 'gone'}`;
      return () => (outbox.markSkipped(mail.id, reason), 'skipped');
    }
    if (!invitation.candidateUrl) {
      return () => (outbox.markSkipped(mail.id, 'the invitation has no candidate link'), 'skipped');
    }
    try {
      const message = render(mail, invitation);
      const sent = await mailer.send(message);
      return () => {
        outbox.markSent(mail.id, { recipient: invitation.email, subject: message.subject, messageId: sent.messageId, message: sent.message });
        return 'sent';
      };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      const retryAt = clock.now() + backoffMs(mail.attempts + 1, DELIVERY_RETRY, random);
      return () => {
        const result = outbox.markFailed(mail, error, retryAt);
        logger.warn({ mailId: mail.id, reportId: mail.reportId, error, result }, 'e-mail failed');
        return result;
      };
    }
  }

  const recordAll = deps.db.transaction((records: RecordOutcome[]) => records.map((record) => record()));

  return {
    /**
     * Sends every e-mail that is due, up to `concurrency` at a time; resolves with what happened to
     * each. Once `stopping` aborts it begins no more e-mails, and what the ones in flight became
     * is recorded as each is done; the rest stay in the outbox.
     */
    async runOnce(stopping?: AbortSignal): Promise<Record<Outcome, number>> {
      const counts = { sent: 0, skipped: 0, retry: 0, dead: 0 };
      const sent = heldBatch(
        (records: { mail: QueuedMail; record: RecordOutcome }[]) => {
          const outcomes = recordAll(records.map((r) => r.record));
          const reportIds: string[] = [];
          outcomes.forEach((outcome, i) => {
            counts[outcome] += 1;
            if (outcome === 'sent') reportIds.push(records[i]!.mail.reportId);
          });
          // One line for the batch, naming each report; a failure was logged on its own.
          if (reportIds.length > 0) logger.info({ reportIds }, reportIds.length === 1 ? 'e-mail sent' : `${reportIds.length} e-mails sent`);
        },
        { stopping },
      );
      for (;;) {
        const due = outbox.due(BATCH);
        let next = 0;
        const lane = async () => {
          while (next < due.length && !stopping?.aborted) {
            const mail = due[next++]!;
            await sent.add(async () => ({ mail, record: await sendOne(mail) }));
            await pause();
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, lane));
        // Recorded before the next query, which must not find these e-mails pending again.
        sent.flush();
        if (due.length < BATCH || stopping?.aborted) return counts;
      }
    },
    nextDueAt: (): string | undefined => outbox.nextDueAt(),
  };
}
