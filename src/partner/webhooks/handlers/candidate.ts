import { z } from 'zod';
import { IntegerId } from '../../../contract/schemas.js';
import type { Db } from '../../../lib/db.js';

/** The one thing the candidate handlers need from a payload: whose event it is. */
export const CandidateRef = z.object({
  candidate: z.object({ id: IntegerId }, { error: 'must be an object with the candidate id' }),
});

/** Report ids of the candidate's invitations that are still `sent` (not finished, not canceled). */
export function pendingInvitations(db: Db, target: { companyId: number; candidateId: number; accountIds: readonly number[] }): string[] {
  if (target.accountIds.length === 0) return [];
  return db
    .prepare<(number | string)[], string>(
      `SELECT report_id FROM invitations
        WHERE company_id = ? AND candidate_id = ? AND status = 'sent' AND account_id IN (${target.accountIds.map(() => '?').join(', ')})
        ORDER BY created_at, report_id`,
    )
    .pluck()
    .all(target.companyId, target.candidateId, ...target.accountIds);
}
