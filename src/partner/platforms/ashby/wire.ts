import { z } from 'zod';
import { emailAddress, text } from '../../../contract/schemas.js';

/**
 * Ashby's Assessments Partner API as the kit reads and answers it (docs/ashby.md §2–§5): the
 * schemas the routes validate with, the OpenAPI document shows, and the delivery writes. Unknown
 * fields are ignored (`hiringTeam`, `additional_fields`…); strings never hold NUL (no text column
 * can store one).
 */

const required = (max: number) => text().trim().min(1, 'is required').max(max, `must be at most ${max} characters`);
/** An id of Ashby's (a UUID in its examples; read as any short text). */
const ashbyId = required(200);
const absoluteUrl = z
  .url({ protocol: /^https?$/, error: (issue) => (issue.input === undefined ? undefined : 'must be an absolute http(s) URL') })
  .max(2000);

/** `POST assessment.list`: an object without properties; whatever it holds is ignored. */
export const ListBody = z.object({});

/** `POST assessment.start`: every field Ashby's schema requires is required here. */
export const StartBody = z.object({
  /** One of `assessment.list`'s ids; matched in any case. */
  assessment_type_id: required(100).transform((s) => s.toLowerCase()),
  candidate: z.object({
    ashby_id: ashbyId,
    first_name: required(200),
    /** Present, but may be empty: Ashby keeps one name, a candidate known by one word has none. */
    last_name: text().trim().max(200, 'must be at most 200 characters'),
    email: emailAddress(),
    ashby_profile_url: absoluteUrl,
  }),
  application: z.object({
    ashby_id: ashbyId,
    /** `Active`, `Hired`, `Archived`, `Lead` in Ashby's schema; other words seen in the wild: any text. */
    status: text().trim().max(100, 'must be at most 100 characters'),
  }),
  job: z.object({
    ashby_id: ashbyId,
    name: required(500),
    ashby_job_url: absoluteUrl,
    req_id: text().trim().max(200, 'must be at most 200 characters').nullish().transform((v) => v || null),
  }),
});
export type StartBody = z.infer<typeof StartBody>;

/** `POST assessment.cancel`. */
export const CancelBody = z.object({ assessment_id: required(100) });

/** The types of Ashby's assessment data, each with the JSON type of its `value`. */
export const BLOB_TYPES = ['numeric_score', 'numeric_duration_minutes', 'url', 'string', 'boolean_success'] as const;

/**
 * Ashby's typed value (its "AssessmentData"): what `assessment.update` carries in each field. The
 * kit writes `numeric_score` as a number, `url` and `string` as text, `boolean_success` as a boolean.
 */
export const AssessmentData = z.discriminatedUnion('type', [
  z.object({ identifier: z.string(), label: z.string(), description: z.string().optional(), type: z.literal('numeric_score'), value: z.number() }),
  z.object({ identifier: z.string(), label: z.string(), description: z.string().optional(), type: z.literal('numeric_duration_minutes'), value: z.number() }),
  z.object({ identifier: z.string(), label: z.string(), description: z.string().optional(), type: z.literal('url'), value: z.string() }),
  z.object({ identifier: z.string(), label: z.string(), description: z.string().optional(), type: z.literal('string'), value: z.string() }),
  z.object({ identifier: z.string(), label: z.string(), description: z.string().optional(), type: z.literal('boolean_success'), value: z.boolean() }),
]);
export type AssessmentData = z.infer<typeof AssessmentData>;

/** The body of `POST {ASHBY_API_URL}/assessment.update`, as the kit sends it (docs/ashby.md §6). */
export const AssessmentUpdate = z.object({
  assessment_id: z.string(),
  /** When the change happened, in milliseconds since the epoch. */
  timestamp: z.number().int(),
  assessment_status: AssessmentData.optional(),
  assessment_result: AssessmentData.optional(),
  assessment_profile_url: AssessmentData.optional(),
  metadata: z.array(AssessmentData).optional(),
  cancelled_reason: AssessmentData.optional(),
});
export type AssessmentUpdate = z.infer<typeof AssessmentUpdate>;

export const ListAnswer = z.object({
  success: z.literal(true),
  results: z.array(z.object({ assessment_type_id: z.string(), name: z.string(), description: z.string() })),
});

/** The answer of a start and of a cancel: the assessment's id, and for a start its first status. */
export const StartAnswer = z.object({
  success: z.literal(true),
  results: z.object({ assessment_id: z.string(), update_request: AssessmentUpdate.optional() }),
});

export const CancelAnswer = z.object({ success: z.literal(true), results: z.object({ assessment_id: z.string() }) });

/**
 * Every refusal of the Ashby routes: Ashby's error envelope (`success`, the deprecated `errors`,
 * `errorInfo`) with `message` beside it, which Ashby shows its user for a 422 of `assessment.start`.
 * `errorInfo.meta.fields` names each field a 422 refused.
 */
export const AshbyError = z.object({
  success: z.literal(false),
  message: z.string(),
  errors: z.array(z.string()),
  errorInfo: z.object({
    code: z.string(),
    message: z.string(),
    meta: z.object({ fields: z.record(z.string(), z.array(z.string())) }).optional(),
  }),
});
export type AshbyError = z.infer<typeof AshbyError>;

/** A cancel's answers: done, or Ashby's error envelope (200, as Ashby's schema of the call has it). */
export const CancelReply = z.union([CancelAnswer, AshbyError]);

/** What the kit reads of Ashby's answer to `assessment.update`: whether it says `success`, and its error. */
export const UpdateReply = z.looseObject({
  success: z.boolean().optional(),
  errors: z.array(z.unknown()).optional(),
  errorInfo: z.looseObject({ code: z.string().optional(), message: z.string().optional() }).optional(),
});
