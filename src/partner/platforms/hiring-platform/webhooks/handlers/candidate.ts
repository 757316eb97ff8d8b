import { z } from 'zod';
import { IntegerId } from '../../../../../contract/schemas.js';
import { placeholders, type Sql } from '../../../../../lib/sql.js';
import { HIRING_PLATFORM } from '../../callbacks.js';

/** The one thing the candidate handlers need from a payload: whose event it is. */
export const CandidateRef = z.object({
  candidate: z.object({ id: IntegerId }, { error: 'must be an object with the candidate id' }),
});

/**
 * Report ids of the candidate's invitations that are still `sent` (not finished, not canceled):
 * those this platform sent, for the accounts bound to the company. Another platform's invitations
 * are not the platform's candidate's, whatever numbers they carry.
 */
export async function pendingInvitations(
  sql: Sql,
  target: { companyId: number; candidateId: number; accountIds: readonly number[] },
): Promise<string[]> {
  if (target.accountIds.length === 0) return [];
  const rows = await sql.all<{ report_id: string }>(
    `SELECT report_id FROM invitations
      WHERE company_id = $1 AND candidate_id = $2 AND status = 'sent' AND platform = $3 AND account_id IN (${placeholders(target.accountIds.length, 4)})
      ORDER BY created_at, report_id`,
    [target.companyId, target.candidateId, HIRING_PLATFORM, ...target.accountIds],
  );
  return rows.map((r) => r.report_id);
}
