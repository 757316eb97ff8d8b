import { flatMetadata } from '../../../lib/flat-metadata.js';
import { scoreNumber } from '../../invitations/score.js';
import type { ProgressStage } from '../../invitations/lifecycle.js';
import type { Invitation } from '../../invitations/store.js';
import type { TestStatusAnswer } from './wire.js';

/** What `test_status` reads of an invitation. */
export type StatusSource = Pick<Invitation, 'status' | 'openedAt' | 'submittedAt' | 'score' | 'subtitle' | 'properties' | 'canceledBy' | 'cancelReason'>;

/**
 * [kit decision] The kit's invitation in Greenhouse's words: exactly the table of
 * docs/greenhouse.md §5.
 *
 * - `sent`, the candidate not started yet: `sent`; opened, started or submitted: `in_progress`;
 * - `completed` and `failed` (a result either way): `complete`, with the recruiter's results page
 *   (`profileUrl`), the score as a number when it reads as one, and the result as metadata;
 * - `canceled`: `canceled`, with who canceled it and why.
 *
 * `progress`: the stages the vendor's product reported (`invitations.progressOf`).
 */
export function testStatus(invitation: StatusSource, progress: readonly ProgressStage[], profileUrl: () => string): TestStatusAnswer {
  switch (invitation.status) {
    case 'sent': {
      const underway = invitation.openedAt !== null || invitation.submittedAt !== null || progress.length > 0;
      return { partner_status: underway ? 'in_progress' : 'sent' };
    }
    case 'completed':
    case 'failed': {
      const score = scoreNumber(invitation.score);
      const metadata = flatMetadata([
        ['Result', invitation.status === 'completed' ? 'passed' : 'failed'],
        ['Score', invitation.score],
        ['Summary', invitation.subtitle],
        ...invitation.properties.map((p): [string, string] => [p.label, p.value]),
      ]);
      return { partner_status: 'complete', partner_profile_url: profileUrl(), ...(score !== undefined && { partner_score: score }), metadata };
    }
    case 'canceled':
      return {
        partner_status: 'canceled',
        metadata: flatMetadata([
          ['Canceled by', invitation.canceledBy],
          ['Reason', invitation.cancelReason],
        ]),
      };
  }
}
