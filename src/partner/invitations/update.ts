import { z } from 'zod';
import { REPORT_SCORE_MAX_LENGTH, REPORT_SCORE_TOO_LONG, REPORT_STATUSES } from '../../contract/decisions.js';
// The field rules a vendor's result is held to (results/api.ts reads them from here too).
import { ReportProperty, text } from '../../contract/schemas.js';

/**
 * A change of an invitation that its platform is to hear of, in the kit's words: what the
 * lifecycle queues in the report outbox, in the transaction of the change. Each platform turns the
 * pending updates of a report, merged, into its own request (`Platform.deliveryRequest`).
 *
 * The rules are the kit's own for a result (a score fits a badge of five characters, at most 50
 * properties): checked when the update is queued, so a result no platform would take fails with
 * the change, not later as a dead letter.
 */
export const InvitationUpdate = z
  .object({
    /** The first update of a started invitation: the platform may now be given its own links (a cancel URL). */
    started: z.literal(true),
    status: z.enum(REPORT_STATUSES),
    score: text().max(REPORT_SCORE_MAX_LENGTH, REPORT_SCORE_TOO_LONG).nullable(),
    completed_at: z.iso.datetime({ offset: false }).nullable(),
    subtitle: text().max(500).nullable(),
    properties: z.array(ReportProperty).max(50),
    /** The kit's pages: `show`, the recruiter's results page (a signed link). Older rows may carry others. */
    urls: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a snake_case key'), z.url({ protocol: /^https?$/ })),
  })
  .partial();
export type InvitationUpdate = z.infer<typeof InvitationUpdate>;
