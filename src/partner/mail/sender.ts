import { Eta } from 'eta';
import type { Clock } from '../../lib/clock.js';
import type { PartnerKind } from '../../contract/decisions.js';
import type { Sql } from '../../lib/sql.js';
import type { Logger } from '../../lib/http/logger.js';
import { nextTurn, type Pause } from '../../lib/perf/requests-first.js';
import { backoffMs } from '../jobs/backoff.js';
import { heldBatch } from '../jobs/loop.js';
import { claimsInHand } from '../jobs/lease.js';
import { KIND_WORDING } from '../invitations/kinds.js';
import type { Invitation } from '../invitations/store.js';
import { PARTNER_VIEWS_DIR, views } from '../pages/views.js';
import { DELIVERY_RETRY } from '../updates/policy.js';
import type { MailOutbox, MailToSend, QueuedMail } from './outbox.js';
import { oneLine, type MailMessage, type Mailer } from './transport.js';

const BATCH = 20;

/** The plain-text part is not HTML: nothing in it is escaped. */
const textViews = new Eta({ views: PARTNER_VIEWS_DIR, cache: true, autoEscape: false });

export type MailSender = ReturnType<typeof mailSender>;

/**
 * Sends what the mail outbox holds. The message is rendered from the invitation as the claim read
 * it, in the statement that claimed the e-mail (mail/outbox.ts): an invitation canceled by then has
 * its e-mail skipped, and a resend carries the newest link.
 * E-mails go out `concurrency` at a time (one per pooled SMTP connection), each lane pausing
 * between two. Sending is at least once: a crash after the SMTP server took the message and
 * before the row was marked sends it again on restart (better twice than never for an invitation).
 * What became of a batch's e-mails is recorded in one transaction (`heldBatch`), at the latest
 * 100 ms after the batch began: that bounds what a crash sends twice.
 */
export function mailSender(deps: {
  sql: Sql;
  outbox: MailOutbox;
  mailer: Mailer;
  clock: Clock;
  logger: Logger;
  kind: PartnerKind;
  /** The vendor's name (`config.partnerName`), for the templates to sign with. */
  partnerName: string;
  /** The name the e-mail greets the candidate by (its platform's `greetingName`); the first name when not given. */
  greeting?: (invitation: Invitation) => string;
  random?: () => number;
  /** Between two e-mails (`requestsFirst` in the server): lets the platform's requests go first. */
  pause?: Pause;
  /** E-mails in flight at once (default 1): the SMTP pool's `maxConnections`. */
  concurrency?: number;
  /** How long a claimed e-mail is this instance's to send (jobs/lease.ts). */
  leaseMs: number;
}) {
  const { outbox, mailer, clock, logger, kind } = deps;
  const random = deps.random ?? Math.random;
  const pause = deps.pause ?? nextTurn;
  const concurrency = Math.max(1, deps.concurrency ?? 1);
  const { sql } = deps;

  /**
   * The e-mail's words are templates, one folder per kind of partner:
   * views/partner/mail/{kind}/{mail kind}-subject.eta, -text.eta and -html.eta (an assessment's
   * invitation, a background check's consent request, a reference check's request). A fork edits
   * them to change what its candidates read, subject included.
   */
  function render(mail: QueuedMail, invitation: Invitation, accountName: string | undefined): MailMessage {
    const data = {
      invitation,
      greeting: deps.greeting?.(invitation) ?? invitation.firstName,
      wording: KIND_WORDING[kind],
      kind,
      vendor: deps.partnerName,
      company: accountName ?? 'The recruiter',
      link: invitation.candidateUrl,
    };
    const template = `./mail/${kind}/${mail.kind}`;
    return {
      // Structured, never "Name <address>" text: a name can hold commas and addresses of its own.
      to: { name: oneLine(`${invitation.firstName} ${invitation.lastName}`), address: invitation.email },
      // The account's and the test's names are not ours to trust with a header: one line, always.
      subject: oneLine(textViews.render(`${template}-subject`, data)),
      text: textViews.render(`${template}-text`, data),
      html: views.render(`${template}-html`, data),
    };
  }

  const inHand = claimsInHand<number>((ids) => outbox.release(ids));

  type Outcome = 'sent' | 'skipped' | 'retry' | 'dead';
  /** What became of one e-mail: `write` records it in one statement, with the rest of its batch in one transaction. */
  interface Done {
    mail: QueuedMail;
    write: (tx: Sql) => Promise<Outcome>;
    error?: string;
  }

  async function sendOne({ mail, invitation, accountName }: MailToSend): Promise<Done> {
    if (!invitation || invitation.status !== 'sent') {
      const reason = `the invitation is ${invitation?.status ?? 'gone'}`;
      return { mail, write: async (tx) => (await outbox.markSkipped(tx, mail.id, reason), 'skipped') };
    }
    if (!invitation.candidateUrl) {
      return { mail, write: async (tx) => (await outbox.markSkipped(tx, mail.id, 'the invitation has no candidate link'), 'skipped') };
    }
    try {
      const message = render(mail, invitation, accountName);
      const sent = await mailer.send(message);
      const info = { recipient: invitation.email, subject: message.subject, messageId: sent.messageId, message: sent.message };
      return { mail, write: async (tx) => (await outbox.markSent(tx, mail.id, info), 'sent') };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      const retryAt = clock.now() + backoffMs(mail.attempts + 1, DELIVERY_RETRY, random);
      return { mail, error, write: (tx) => outbox.markFailed(tx, mail, error, retryAt) };
    }
  }

  return {
    /**
     * Sends every e-mail that is due, up to `concurrency` at a time; resolves with what happened to
     * each. Once `stopping` aborts it begins no more e-mails, and what the ones in flight became
     * is recorded as each is done; the rest stay in the outbox.
     */
    async runOnce(stopping?: AbortSignal): Promise<Record<Outcome, number>> {
      const counts = { sent: 0, skipped: 0, retry: 0, dead: 0 };
      const sent = heldBatch(
        async (done: Done[]) => {
          // Each record is one statement: a batch of one needs no transaction around it.
          const outcomes =
            done.length === 1
              ? [await done[0]!.write(sql)]
              : await sql.transaction(async (tx) => {
                  const out: Outcome[] = [];
                  for (const d of done) out.push(await d.write(tx));
                  return out;
                });
          for (const d of done) inHand.settled(d.mail.id);
          const reportIds: string[] = [];
          outcomes.forEach((outcome, i) => {
            const { mail, error } = done[i]!;
            counts[outcome] += 1;
            if (outcome === 'sent') reportIds.push(mail.reportId);
            if (error !== undefined) logger.warn({ mailId: mail.id, reportId: mail.reportId, error, result: outcome }, 'e-mail failed');
          });
          // One line for the batch, naming each report; a failure was logged on its own.
          if (reportIds.length > 0) logger.info({ reportIds }, reportIds.length === 1 ? 'e-mail sent' : `${reportIds.length} e-mails sent`);
        },
        { stopping },
      );
      for (;;) {
        const due = await outbox.claimDue(BATCH, deps.leaseMs);
        inHand.claimed(due.map(({ mail }) => mail.id));
        let next = 0;
        const lane = async () => {
          while (next < due.length && !stopping?.aborted) {
            const each = due[next++]!;
            await sent.add(() => sendOne(each));
            await pause();
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, lane));
        // Recorded before the next query, which must not find these e-mails pending again.
        await sent.flush();
        if (due.length < BATCH || stopping?.aborted) return counts;
      }
    },
    nextDueAt: (): Promise<string | undefined> => outbox.nextDueAt(),
    /**
     * Gives back the e-mails claimed and not recorded (call once the runs have stopped): on
     * PostgreSQL, another instance, or this one restarted, sends them at once rather than when
     * their lease runs out. One still in flight at the SMTP server may then go twice.
     */
    release: () => inHand.release(),
  };
}
