import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';

export interface ErasedCandidate {
  /** Report ids of the invitations whose personal data was erased. */
  reportIds: string[];
  /** E-mails sent to them whose recipient, subject and kept message were blanked. */
  mails: number;
}

/**
 * Erases what the kit stores about a candidate as a person: the names, e-mail address, phone and
 * extra inputs (the admin who sent the test) of their invitations, and the recipient, subject,
 * rendered message and last error (an SMTP refusal may quote the address) of the e-mails sent to
 * them — all in one transaction. The rows stay, with their ids, statuses, scores and dates, so
 * reports, deliveries and the dashboard's counts stay consistent. Only the invitations of the
 * given accounts (those bound to the company) are touched. Running it again changes nothing.
 */
export function eraseCandidatePersonalData(
  db: Db,
  clock: Clock,
  target: { companyId: number; candidateId: number; accountIds: readonly number[] },
): ErasedCandidate {
  if (target.accountIds.length === 0) return { reportIds: [], mails: 0 };
  const accounts = target.accountIds.map(() => '?').join(', ');
  const reportsOf = db
    .prepare<(number | string)[], string>(
      `SELECT report_id FROM invitations WHERE company_id = ? AND candidate_id = ? AND account_id IN (${accounts}) ORDER BY report_id`,
    )
    .pluck();
  const eraseInvitation = db.prepare<[string, string]>(
    `UPDATE invitations SET first_name = '', last_name = '', email = '', phone = NULL, extra_inputs = '{}', updated_at = ?
      WHERE report_id = ?`,
  );
  const countMails = db
    .prepare<[string], number>(
      `SELECT count(*) FROM mail_outbox
        WHERE invitation_id = (SELECT id FROM invitations WHERE report_id = ?) AND (recipient IS NOT NULL OR subject IS NOT NULL OR message IS NOT NULL)`,
    )
    .pluck();
  const eraseMail = db.prepare<[string, string]>(
    `UPDATE mail_outbox SET recipient = NULL, subject = NULL, message = NULL, last_error = NULL, updated_at = ?
      WHERE invitation_id = (SELECT id FROM invitations WHERE report_id = ?)`,
  );

  return db.transaction(() => {
    const now = isoAt(clock.now());
    const reportIds = reportsOf.all(target.companyId, target.candidateId, ...target.accountIds);
    let mails = 0;
    for (const reportId of reportIds) {
      eraseInvitation.run(now, reportId);
      mails += countMails.get(reportId) ?? 0;
      eraseMail.run(now, reportId);
    }
    return { reportIds, mails };
  })();
}
