import { z } from 'zod';
import { emailAddress, text } from '../../../contract/schemas.js';
import { PATCH_URL_MAX_LENGTH } from './allowlist.js';

/**
 * Greenhouse's Assessment Partner API as the kit reads and answers it (docs/greenhouse.md §2): the
 * schemas the routes validate with and the OpenAPI document shows. Unknown fields are ignored
 * (Greenhouse may add properties); strings never hold NUL (no text column can store one).
 */

const name = (max: number) => text().trim().min(1, 'is required').max(max, `must be at most ${max} characters`);
const absoluteUrl = z
  .url({ protocol: /^https?$/, error: (issue) => (issue.input === undefined ? undefined : 'must be an absolute http(s) URL') })
  .max(PATCH_URL_MAX_LENGTH);
/** Greenhouse sends `null` for a property without a value; absent reads the same. */
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? null);

/**
 * `POST send_test`. `url` is checked here to be a URL only: where it may point is the allowlist's
 * decision (`refusedPatchTarget`), which the route applies with the server's settings.
 */
export const SendTestBody = z.object({
  /** A number is read as its decimal string: tests are listed with string ids. */
  partner_test_id: z.union([text().trim().min(1).max(200), z.number()]).transform(String),
  candidate: z.object({
    first_name: name(200),
    last_name: name(200),
    /** Required by Greenhouse, but `null` when the candidate has none; absent is read the same. */
    preferred_name: optional(text().trim().max(200)),
    email: emailAddress(),
    phone_number: optional(text().trim().max(100)),
    /** Expires after 7 days on Greenhouse's side: stored, never fetched. */
    resume_url: optional(absoluteUrl),
    greenhouse_profile_url: absoluteUrl,
  }),
  sent_by: optional(text().trim().max(320)),
  url: text().trim().min(1, 'is required').max(PATCH_URL_MAX_LENGTH),
});
export type SendTestBody = z.infer<typeof SendTestBody>;

export const SendTestAnswer = z.object({ partner_interview_id: z.string() });

export const ListTestsAnswer = z.array(z.object({ partner_test_id: z.string(), partner_test_name: z.string() }));

/** `GET test_status`'s one parameter: the kit's report id of the invitation. */
export const TestStatusQuery = z.object({ partner_interview_id: z.string().trim().min(1, 'is required').max(100) });

export const PARTNER_STATUSES = ['sent', 'in_progress', 'complete', 'canceled'] as const;

export const TestStatusAnswer = z.object({
  partner_status: z.enum(PARTNER_STATUSES),
  partner_profile_url: z.string().optional(),
  partner_score: z.number().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
});
export type TestStatusAnswer = z.infer<typeof TestStatusAnswer>;

/** `POST response_error`: Greenhouse found one of the partner's answers malformed. */
export const ResponseErrorBody = z.object({
  api_call: text().trim().min(1, 'is required').max(100),
  errors: z.array(text().max(1000)).max(50),
  partner_test_id: optional(z.union([text().max(200), z.number()]).transform(String)),
  partner_test_name: optional(text().max(500)),
  partner_interview_id: optional(text().max(100)),
  candidate_email: optional(text().max(320)),
});
export type ResponseErrorBody = z.infer<typeof ResponseErrorBody>;

export const ResponseErrorAnswer = z.object({ status: z.literal(200) });
