import { flatMetadata } from '../../../lib/flat-metadata.js';
import type { InvitationUpdate } from '../../invitations/update.js';
import { scoreNumber } from '../../invitations/score.js';
import type { ProgressStage } from '../../invitations/progress.js';
import type { AssessmentData, AssessmentUpdate } from './wire.js';

/**
 * [kit decision] The kit's update of an invitation in Ashby's words: exactly the table of
 * docs/ashby.md §6. undefined when Ashby has nothing to hear of it.
 *
 * - the invitation started (sent to the candidate): nothing — Ashby was told `Invited` in the
 *   answer to its start (`invitedUpdate`);
 * - the candidate's progress: `assessment_status` `Opened`, `Started` (Ashby records the start
 *   time) or `In review`;
 * - a result, `completed` or `failed`: `assessment_status` `Completed` or `Failed`, the score as
 *   `assessment_result` (`numeric_score` where it reads as a number, else `string`; `boolean_success`
 *   without a score), the recruiter's results page as `assessment_profile_url`, the subtitle and
 *   properties as `metadata`;
 * - a cancel by the vendor or its product: `cancelled_reason`; Ashby's own cancel is not echoed.
 *
 * Several updates merged into one (after an outage) are told as the newest state: a result or a
 * cancel over a stage, the newest stage over an older one. `timestamp` is when the newest happened.
 */
export function assessmentUpdate(assessmentId: string, update: InvitationUpdate, now: number): AssessmentUpdate | undefined {
  const timestamp = update.at === undefined ? now : Date.parse(update.at);
  const head = { assessment_id: assessmentId, timestamp };
  switch (update.status) {
    case 'canceled':
      if (update.canceled_by === 'platform') return undefined;
      return { ...head, cancelled_reason: { ...CANCELLED_REASON, value: update.cancel_reason || CANCELED_BY[update.canceled_by ?? 'vendor'] } };
    case 'completed':
    case 'failed': {
      const show = update.urls?.show;
      // Ashby requires the profile URL with a result; the kit always queues the page with it.
      if (show === undefined) throw new Error('the result has no results page to link (urls.show): Ashby requires one with a result');
      const metadata = metadataOf(update);
      return {
        ...head,
        assessment_status: { ...STATUS, value: update.status === 'completed' ? 'Completed' : 'Failed' },
        assessment_result: resultOf(update, update.status),
        assessment_profile_url: { identifier: 'profile', label: 'Results', type: 'url', value: show },
        ...(metadata.length > 0 && { metadata }),
      };
    }
    default:
      return update.stage === undefined ? undefined : { ...head, assessment_status: { ...STATUS, value: STAGES[update.stage] } };
  }
}

/** The first status, sent in the answer to `assessment.start`: the candidate is being invited. */
export const invitedUpdate = (assessmentId: string, now: number): AssessmentUpdate => ({
  assessment_id: assessmentId,
  timestamp: now,
  assessment_status: { ...STATUS, value: 'Invited' },
});

const STATUS = { identifier: 'status', label: 'Status', type: 'string' } as const;
const CANCELLED_REASON = { identifier: 'cancelled_reason', label: 'Cancelled', type: 'string' } as const;

/** The words of the candidate's progress; `Started` is the one Ashby records the start time of. */
const STAGES: Record<ProgressStage, string> = { opened: 'Opened', started: 'Started', in_review: 'In review' };

/** A cancel's reason when the vendor gave none. */
const CANCELED_BY: Record<'vendor' | 'product', string> = {
  vendor: 'Canceled by the assessment provider',
  product: 'Canceled in the assessment provider\'s product',
};

/** The score as a number where it reads as one ("87%" → 87), else its text; without one, passed or failed. */
function resultOf(update: InvitationUpdate, status: 'completed' | 'failed'): AssessmentData {
  // `score_value` is null for a score that is no number; an update queued before it existed has none.
  const number = update.score_value === undefined ? scoreNumber(update.score) : (update.score_value ?? undefined);
  if (number !== undefined) return { identifier: 'score', label: 'Score', type: 'numeric_score', value: number };
  if (update.score) return { identifier: 'score', label: 'Score', type: 'string', value: update.score };
  return { identifier: 'result', label: 'Result', type: 'boolean_success', value: status === 'completed' };
}

/**
 * The subtitle (`Summary`) and each property, as `string` values labelled as given; a label used
 * twice is suffixed ` (2)` (flatMetadata), and the identifier is `metadata:` and that label: unique,
 * and never one of the fixed fields' (`status`, `score`…).
 */
function metadataOf(update: InvitationUpdate): AssessmentData[] {
  const flat = flatMetadata([['Summary', update.subtitle], ...(update.properties ?? []).map((p): [string, string] => [p.label, p.value])]);
  return Object.entries(flat).map(([label, value]) => ({ identifier: `metadata:${label}`, label, type: 'string', value }));
}
