import { rmSync } from 'node:fs';
import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';

export interface ErasedCandidate {
  /** Report ids of the invitations whose personal data was erased. */
  reportIds: string[];
  /** E-mails sent to them whose recipient, subject and kept message were blanked. */
  mails: number;
  /**
   * Files that the JSON transport wrote before e-mails were kept in the database (migration 011)
   * and that could not be deleted: the operator must remove them.
   */
  oldMailFilesLeft: string[];
}

/**
 * Erases what the kit stores about a candidate as a person: the names, e-mail address, phone and
 * extra inputs (the admin who sent the test) of their invitations, and the recipient, subject,
 * rendered message and last error (an SMTP refusal may quote the address) of the e-mails sent to
 * them — all in one transaction. The rows stay, with their ids, statuses, scores and dates, so
 * reports, deliveries and the dashboard's counts stay consistent. Only the invitations of the
 * given accounts (those bound to the company) are touched. Running it again changes nothing.
 *
 * An e-mail sent before messages were kept in the database may still be a file in the old
 * MAIL_DIR; that file is deleted after the commit.
 */
export function eraseCandidatePersonalData(
  db: Db,
  clock: Clock,
  target: { companyId: number; candidateId: number; accountIds: readonly number[] },
): ErasedCandidate {
  if (target.accountIds.length === 0) return { reportIds: [], mails: 0, oldMailFilesLeft: [] };
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
  const mailTable = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'mail_outbox'").pluck().get();
  const mailsOf = mailTable
    ? db.prepare<[string], { file: string | null }>(
        `SELECT file FROM mail_outbox
          WHERE report_id = ? AND (recipient IS NOT NULL OR subject IS NOT NULL OR message IS NOT NULL OR file IS NOT NULL)`,
      )
    : undefined;
  const eraseMail = mailTable
    ? db.prepare<[string, string]>(
        `UPDATE mail_outbox SET recipient = NULL, subject = NULL, message = NULL, file = NULL, last_error = NULL, updated_at = ?
          WHERE report_id = ?`,
      )
    : undefined;

  const { reportIds, mails, files } = db.transaction(() => {
    const now = isoAt(clock.now());
    const ids = reportsOf.all(target.companyId, target.candidateId, ...target.accountIds);
    let mails = 0;
    const files: string[] = [];
    for (const reportId of ids) {
      eraseInvitation.run(now, reportId);
      if (mailsOf && eraseMail) {
        for (const { file } of mailsOf.all(reportId)) {
          mails += 1;
          if (file) files.push(file);
        }
        eraseMail.run(now, reportId);
      }
    }
    return { reportIds: ids, mails, files };
  })();
  // After the commit: an old file that cannot be removed must not undo the erasure of the rows.
  const oldMailFilesLeft: string[] = [];
  for (const file of files) {
    try {
      rmSync(file, { force: true });
    } catch {
      oldMailFilesLeft.push(file);
    }
  }
  return { reportIds, mails, oldMailFilesLeft };
}
