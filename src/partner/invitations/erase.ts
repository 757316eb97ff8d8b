import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import { placeholders, type Sql } from '../../lib/sql.js';

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
 * reports, deliveries and the dashboard's counts stay consistent. Only the invitations the given
 * platform sent, of the given accounts (those bound to the company), are touched: the company and
 * candidate numbers are that platform's, and mean nothing on another's invitations. Running it
 * again changes nothing.
 */
export async function eraseCandidatePersonalData(
  sql: Sql,
  clock: Clock,
  target: { platform: string; companyId: number; candidateId: number; accountIds: readonly number[] },
): Promise<ErasedCandidate> {
  if (target.accountIds.length === 0) return { reportIds: [], mails: 0 };
  const ofInvitation = '(SELECT id FROM invitations WHERE report_id = $2)';
  return sql.transaction(async (tx) => {
    const now = isoAt(clock.now());
    const reportIds = (
      await tx.all<{ report_id: string }>(
        `SELECT report_id FROM invitations
          WHERE company_id = $1 AND candidate_id = $2 AND platform = $3 AND account_id IN (${placeholders(target.accountIds.length, 4)})
          ORDER BY report_id`,
        [target.companyId, target.candidateId, target.platform, ...target.accountIds],
      )
    ).map((r) => r.report_id);
    let mails = 0;
    for (const reportId of reportIds) {
      await tx.run(
        `UPDATE invitations SET first_name = '', last_name = '', email = '', phone = NULL, extra_inputs = '{}', updated_at = $1 WHERE report_id = $2`,
        [now, reportId],
      );
      const kept = await tx.get<{ n: number }>(
        `SELECT count(*) AS n FROM mail_outbox
          WHERE invitation_id = (SELECT id FROM invitations WHERE report_id = $1) AND (recipient IS NOT NULL OR subject IS NOT NULL OR message IS NOT NULL)`,
        [reportId],
      );
      mails += kept?.n ?? 0;
      await tx.run(`UPDATE mail_outbox SET recipient = NULL, subject = NULL, message = NULL, last_error = NULL, updated_at = $1 WHERE invitation_id = ${ofInvitation}`, [
        now,
        reportId,
      ]);
    }
    return { reportIds, mails };
  });
}
