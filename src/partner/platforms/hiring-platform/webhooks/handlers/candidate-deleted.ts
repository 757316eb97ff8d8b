import { eraseCandidatePersonalData } from '../../../../invitations/erase.js';
import { HIRING_PLATFORM } from '../../callbacks.js';
import { CandidateRef, pendingInvitations } from './candidate.js';
import type { WebhookHandler } from './types.js';

/**
 * candidate_deleted: the platform deleted the candidate, so the vendor forgets them. Their pending
 * invitations are canceled first (no test for someone who no longer exists; the queued e-mail is
 * dropped and the report updated), then their personal data is erased from every invitation, and
 * from the kept payloads of earlier events. The log says so, by ids only.
 *
 * Only this platform's invitations are touched (`pendingInvitations`, and the erase by platform).
 *
 * A fork whose product keeps more about candidates (answers, documents, a CRM copy) erases it here.
 */
export const candidateDeleted: WebhookHandler = async (event, ctx) => {
  const { candidate } = CandidateRef.parse(event.payload);
  const target = { companyId: event.companyId, candidateId: candidate.id, accountIds: ctx.accountIds };
  const canceled: string[] = [];
  for (const reportId of await pendingInvitations(ctx.sql, target)) {
    if ((await ctx.cancelInvitation(reportId)) === 'canceled') canceled.push(reportId);
  }
  const erased = await eraseCandidatePersonalData(ctx.sql, ctx.clock, { ...target, platform: HIRING_PLATFORM });
  await ctx.inbox.scrubCandidate(event.companyId, candidate.id);
  ctx.logger.info(
    {
      eventId: event.id,
      companyId: event.companyId,
      candidateId: candidate.id,
      invitations: erased.reportIds.length,
      canceled: canceled.length,
      mails: erased.mails,
    },
    'erased the personal data of a candidate deleted on the platform',
  );
  return `erased the personal data of ${erased.reportIds.length} invitation(s); canceled ${canceled.length} pending`;
};
