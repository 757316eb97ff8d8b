import { z } from 'zod';
import { CandidateRef, pendingInvitations } from './candidate.js';
import type { WebhookHandler } from './types.js';

const Move = z.object({
  details: z.object({
    from_stage: z.object({ name: z.string() }).optional(),
    to_stage: z.object({ name: z.string() }).optional(),
    disqualify_reason: z.object({ name: z.string() }).optional(),
  }),
});

/**
 * candidate_moved. `disqualified`: the candidate is out, so their pending invitations are
 * canceled and each report is updated to `canceled`. Invitations carry no offer (send_candidate
 * names none), so every pending invitation of the candidate at this company goes [kit decision; a
 * fork that tracks offers can narrow it]. `stage_changed` and `requalified` are recorded.
 */
export const candidateMoved: WebhookHandler = async (event, ctx) => {
  if (event.eventSubtype !== 'disqualified') return describe(event.eventSubtype, event.payload);
  const { candidate } = CandidateRef.parse(event.payload);
  const reportIds = await pendingInvitations(ctx.sql, { companyId: event.companyId, candidateId: candidate.id, accountIds: ctx.accountIds });
  const canceled: string[] = [];
  for (const reportId of reportIds) {
    if ((await ctx.cancelInvitation(reportId)) === 'canceled') canceled.push(reportId);
  }
  if (reportIds.length) {
    ctx.logger.info(
      { eventId: event.id, companyId: event.companyId, candidateId: candidate.id, canceled },
      'canceled the pending invitations of a disqualified candidate',
    );
  }
  return `disqualified: canceled ${canceled.length} pending invitation(s)`;
};

function describe(subtype: string, payload: unknown): string {
  const move = Move.safeParse(payload);
  const d = move.success ? move.data.details : {};
  if (subtype === 'stage_changed' && d.from_stage && d.to_stage) return `moved from ${d.from_stage.name} to ${d.to_stage.name}`;
  if (subtype === 'requalified' && d.to_stage) return `requalified into ${d.to_stage.name}`;
  return `recorded (${subtype})`;
}
