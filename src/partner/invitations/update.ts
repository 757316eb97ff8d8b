import { z } from 'zod';
import { REPORT_SCORE_MAX_LENGTH, REPORT_SCORE_TOO_LONG, REPORT_STATUSES } from '../../contract/decisions.js';
// The field rules a vendor's result is held to (results/api.ts reads them from here too).
import { ReportProperty, text } from '../../contract/schemas.js';
import { PROGRESS_STAGES } from './progress.js';

/**
 * A change of an invitation that its platform is to hear of, as a neutral fact in the kit's words:
 * what the lifecycle queues in the report outbox, in the transaction of the change. Each platform
 * turns the pending updates of a report, merged (later fields win), into its own request
 * (`Platform.deliveryRequest`), and ignores what it has no word for: the hiring platform takes a
 * five-character score badge, Greenhouse hears only of a completion, Ashby takes the number and
 * the time it happened.
 *
 *   started          the invitation was started: the platform may now be given its own links (a cancel URL)
 *   stage            how far the candidate got (opened, started, in_review): queued only for a
 *                    platform that hears of progress (`Platform.hearsProgress`)
 *   status           sent (never queued), completed, failed, canceled
 *   score            the vendor's score as it gave it: badge text of at most REPORT_SCORE_MAX_LENGTH
 *                    characters, the kit's one rule for a result whatever platform shows it
 *                    (checked when queued, so a result fails with the change, not later as a dead
 *                    letter); and `score_value`, the number it reads as where it is one
 *                    (invitations/score.ts): "87%" → 87
 *   subtitle, properties   the vendor's details of the result
 *   completed_at     when the result was reached, as the vendor says
 *   urls.show        the recruiter's results page (a signed link)
 *   canceled_by, cancel_reason   for a cancel: the platform, the vendor's operator, or the vendor's product; and why
 *   at               when the change happened (ISO 8601, milliseconds): every update carries its own
 */
export const InvitationUpdate = z
  .object({
    started: z.literal(true),
    stage: z.enum(PROGRESS_STAGES),
    status: z.enum(REPORT_STATUSES),
    score: text().max(REPORT_SCORE_MAX_LENGTH, REPORT_SCORE_TOO_LONG).nullable(),
    score_value: z.number().finite().nullable(),
    completed_at: z.iso.datetime({ offset: false }).nullable(),
    subtitle: text().max(500).nullable(),
    properties: z.array(ReportProperty).max(50),
    /** The kit's pages: `show`, the recruiter's results page (a signed link). Older rows may carry others. */
    urls: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a snake_case key'), z.url({ protocol: /^https?$/ })),
    canceled_by: z.enum(['platform', 'vendor', 'product']),
    cancel_reason: text().max(500).nullable(),
    at: z.iso.datetime({ offset: false }),
  })
  .partial();
export type InvitationUpdate = z.infer<typeof InvitationUpdate>;
