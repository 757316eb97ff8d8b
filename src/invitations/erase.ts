import { rmSync } from 'node:fs';
import type { Clock } from '../clock.js';
import { isoAt } from '../clock.js';
import type { Db } from '../db/open.js';

export interface ErasedCandidate {
  /** Report ids of the invitations whose personal data was erased. */
  reportIds: string[];
  /** E-mail files the JSON transport had written for them, now deleted. */
  mailFiles: number;
  /** Files that could not be deleted (the operator must remove them). */
  mailFilesLeft: string[];
}

/**
 * Erases what the kit stores about a candidate as a person: the names, e-mail address, phone and
 * extra inputs (the admin who sent the test) of their invitations, and the recipient, subject and
 * file of the e-mail sent to them. The rows stay, with their ids, statuses, scores and dates, so
 * reports, deliveries and the dashboard's counts stay consistent. Only the invitations of the
 * given accounts (those bound to the company) are touched. Running it again changes nothing.
 */
export function eraseCandidatePersonalData(
  db: Db,
  clock: Clock,
  target: { companyId: number; candidateId: number; accountIds: readonly number[] },
): ErasedCandidate {
  if (target.accountIds.length === 0) return { reportIds: [], mailFiles: 0, mailFilesLeft: [] };
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
  const mailFilesOf = mailTable
    ? db.prepare<[string], string>('SELECT file FROM mail_outbox WHERE report_id = ? AND file IS NOT NULL').pluck()
    : undefined;
  const eraseMail = mailTable
    ? db.prepare<[string, string]>('UPDATE mail_outbox SET recipient = NULL, subject = NULL, file = NULL, updated_at = ? WHERE report_id = ?')
    : undefined;

  const { reportIds, files } = db.transaction(() => {
    const now = isoAt(clock.now());
    const ids = reportsOf.all(target.companyId, target.candidateId, ...target.accountIds);
    const found: string[] = [];
    for (const reportId of ids) {
      eraseInvitation.run(now, reportId);
      if (mailFilesOf && eraseMail) {
        found.push(...mailFilesOf.all(reportId));
        eraseMail.run(now, reportId);
      }
    }
    return { reportIds: ids, files: found };
  })();
  // After the commit: a file that cannot be removed must not undo the erasure of the rows.
  let mailFiles = 0;
  const mailFilesLeft: string[] = [];
  for (const file of files) {
    try {
      rmSync(file, { force: true });
      mailFiles += 1;
    } catch {
      mailFilesLeft.push(file);
    }
  }
  return { reportIds, mailFiles, mailFilesLeft };
}
