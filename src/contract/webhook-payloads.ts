import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './decisions.js';
import { WebhookEnvelope } from './schemas.js';

/**
 * Webhook payloads [seed, platform-contract.md §6.3, §6.4] as zod schemas. `WebhookPayloads` is the full shape the interface document
 * lists: the mock builds its payloads to it and its tests check them against it. A receiver should
 * not demand all of it (the platform's samples leave fields out, e.g. a Stage without `category`):
 * the partner's handlers parse only the ids they act on, with schemas of their own.
 */

const id = z.number().int().positive();
const isoUtc = z.iso.datetime({ offset: false });

/** [seed, platform-contract.md §6.3] Stage categories. */
export const STAGE_CATEGORIES = ['none', 'apply', 'phone_screen', 'interview', 'evaluation', 'offer', 'hire'] as const;
/** [seed, platform-contract.md §6.3] How a candidate came in. */
export const CANDIDATE_SOURCES = ['career_site', 'email', 'manual', 'import', 'referral'] as const;

/** SimpleEntity: Company, Tag, Department, DisqualifyReason. */
export const WebhookSimpleEntity = z.object({ id, name: z.string() });

/** The category "may be absent in some samples". */
export const WebhookStage = z.object({ id, name: z.string(), category: z.enum(STAGE_CATEGORIES).optional() });

/** Location (webhook). Codes are null where the platform has none. */
export const WebhookLocation = z.object({
  id,
  country_code: z.string().nullable(),
  state_code: z.string().nullable(),
  full_address: z.string(),
});

export const WebhookCandidate = z.object({
  id,
  name: z.string(),
  emails: z.array(z.string()),
  phones: z.array(z.string()),
  photo_thumb_url: z.string().nullable(),
  source: z.enum(CANDIDATE_SOURCES),
  /** "A referrer field (null in a sample) may also appear." */
  referrer: z.unknown().optional(),
  created_at: isoUtc,
  updated_at: isoUtc,
});

export const WebhookOffer = z.object({
  id,
  title: z.string(),
  kind: z.enum(['job', 'talent_pool']),
  locations: z.array(WebhookLocation),
  slug: z.string(),
  department: WebhookSimpleEntity.nullable(),
  tags: z.array(WebhookSimpleEntity),
  created_at: isoUtc,
  updated_at: isoUtc,
  /** Only in offer_updated. */
  status: z.string().optional(),
});

/** CandidateMovedDetails, by event_subtype. */
export const CandidateMovedDetails = {
  stage_changed: z.object({ from_stage: WebhookStage, to_stage: WebhookStage }),
  disqualified: z.object({ to_stage: WebhookStage, disqualify_reason: WebhookSimpleEntity }),
  requalified: z.object({ to_stage: WebhookStage }),
} as const;

const company = WebhookSimpleEntity;

/** The payload of each event type [seed, platform-contract.md §6.4]. */
export const WebhookPayloads = {
  new_candidate: z.object({ candidate: WebhookCandidate, company, offers: z.array(WebhookOffer) }),
  candidate_assigned: z.object({
    candidate: WebhookCandidate,
    company,
    offer: WebhookOffer,
    placement_locations: z.array(WebhookLocation),
  }),
  candidate_moved: z.object({
    candidate: WebhookCandidate,
    company,
    offer: WebhookOffer,
    details: z.union([
      CandidateMovedDetails.stage_changed,
      CandidateMovedDetails.disqualified,
      CandidateMovedDetails.requalified,
    ]),
    placement_locations: z.array(WebhookLocation),
  }),
  candidate_deleted: z.object({ candidate: WebhookCandidate, company, offers: z.array(WebhookOffer) }),
  offer_published: z.object({ company, offer: WebhookOffer }),
  offer_unpublished: z.object({ company, offer: WebhookOffer }),
  offer_updated: z.object({ company, offer: WebhookOffer.extend({ status: z.string() }) }),
} satisfies Record<WebhookEventType, z.ZodType>;

/**
 * A whole event as the interface document defines it: the envelope, a subtype the event type allows, and the
 * payload of that type (for candidate_moved, the details of that subtype). For checking what a
 * platform sends; receivers validate the envelope and parse payloads leniently.
 */
export function parseWebhookEvent(input: unknown) {
  const envelope = WebhookEnvelope.parse(input);
  const subtypes: readonly string[] = WEBHOOK_EVENT_TYPES[envelope.event_type];
  if (!subtypes.includes(envelope.event_subtype)) {
    throw new Error(`event_subtype ${envelope.event_subtype} is not one of ${subtypes.join(', ')}`);
  }
  const payload = WebhookPayloads[envelope.event_type].parse(envelope.payload);
  if (envelope.event_type === 'candidate_moved') {
    // The union above accepts any subtype's details; these must be the details of this subtype.
    const details = (envelope.payload as { details?: unknown }).details;
    CandidateMovedDetails[envelope.event_subtype as keyof typeof CandidateMovedDetails].strict().parse(details);
  }
  return { ...envelope, payload };
}

/**
 * [seed, platform-contract.md §6.1] The body of the test request a configuration must answer 200 before it is created.
 * A real event never carries the `test` key.
 */
export const WEBHOOK_TEST_BODY = '{"test":true}';
