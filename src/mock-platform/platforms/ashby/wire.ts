import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/**
 * Ashby's Assessments Partner API as Ashby reads it (docs/ashby.md, from Ashby's OpenAPI): the
 * partner's answers to `assessment.list`, `assessment.start` and `assessment.cancel`, and the body
 * of the partner's `assessment.update`. Written from Ashby's contract, not from the partner's code:
 * the mock judges the partner, it does not share its mistakes. Unknown fields are ignored. Where
 * Ashby's pages leave a rule open the mock takes the natural reading and says so (docs/sandbox.md).
 */

/** A field's message: "is required" when it is missing, else what it must be. */
const expected = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : what);

const Text = (max: number) => z.string({ error: expected('must be a string') }).trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** `assessment.list`: `{success, results: [{assessment_type_id, name, description}]}`. */
export const ListAnswer = z.object({
  success: z.literal(true, { error: expected('must be true') }),
  results: z
    .array(
      z.object(
        {
          assessment_type_id: Text(500),
          name: Text(500),
          description: z.string({ error: 'must be a string' }).max(5000).nullish(),
        },
        { error: expected('must be an object') },
      ),
      { error: expected('must be an array of assessments') },
    )
    .max(1000),
});

/**
 * `assessment.start`: `{success, results: {assessment_id, update_request?}}`. `update_request` is
 * an `assessment.update` body, read on its own (`AssessmentUpdate`): a faulty one is the partner's
 * problem to show, not a start that failed.
 */
export const StartAnswer = z.object({
  success: z.literal(true, { error: expected('must be true') }),
  results: z.object({ assessment_id: Text(500), update_request: z.unknown().optional() }, { error: expected('must be an object') }),
});

/** `assessment.cancel`: the start's success body (`results.assessment_id`), or Ashby's error envelope. */
export const CancelAnswer = z.object({
  success: z.literal(true, { error: expected('must be true') }),
  results: z.object({ assessment_id: Text(500) }, { error: expected('must be an object') }),
});

/** The types of Ashby's assessment data. */
export const DATA_TYPES = ['numeric_score', 'numeric_duration_minutes', 'url', 'string', 'boolean_success'] as const;

/**
 * What each type's `value` is. Ashby's schema says "one of string, number, or boolean" and leaves
 * the pairing to the names: the mock holds a partner to the natural one.
 */
const VALUE_OF: Record<(typeof DATA_TYPES)[number], { check: (v: unknown) => boolean; what: string }> = {
  numeric_score: { check: (v) => typeof v === 'number' && Number.isFinite(v), what: 'a number for type numeric_score' },
  numeric_duration_minutes: { check: (v) => typeof v === 'number' && Number.isFinite(v), what: 'a number (minutes) for type numeric_duration_minutes' },
  url: { check: (v) => typeof v === 'string' && /^https?:\/\//i.test(v) && URL.canParse(v), what: 'an absolute http(s) URL for type url' },
  string: { check: (v) => typeof v === 'string', what: 'a string for type string' },
  boolean_success: { check: (v) => typeof v === 'boolean', what: 'a boolean for type boolean_success' },
};

/** Ashby's typed value: `{identifier, label, description?, type, value}`. */
export const AssessmentData = z
  .object(
    {
      identifier: Text(200),
      label: Text(200),
      description: z.string({ error: 'must be a string' }).max(2000).nullish(),
      type: z.enum(DATA_TYPES, { error: expected(`must be one of ${DATA_TYPES.join(', ')}`) }),
      value: z.union([z.string().max(10_000), z.number(), z.boolean()], { error: expected('must be a string, a number or a boolean') }),
    },
    { error: expected('must be an object') },
  )
  .superRefine((d, ctx) => {
    const rule = VALUE_OF[d.type];
    if (!rule.check(d.value)) ctx.addIssue({ code: 'custom', path: ['value'], message: `must be ${rule.what}` });
  });
export type AssessmentData = z.infer<typeof AssessmentData>;

/** Before 2001-09-09 in milliseconds: a timestamp this small was written in seconds. */
export const SMALLEST_MS_TIMESTAMP = 1_000_000_000_000;

/**
 * The body of `POST assessment.update` (Ashby's "Update Ashby about the status of a started
 * assessment"): `assessment_id` and `timestamp` (integer milliseconds since the epoch, when the
 * change happened) required; `assessment_status` required unless `cancelled_reason` is given;
 * `assessment_profile_url` required with `assessment_result`, and "always of type url"; every
 * value's identifier unique. `null` stands for absent, as Ashby's newer pages type the fields.
 */
export const AssessmentUpdate = z
  .object(
    {
      assessment_id: Text(500),
      timestamp: z.number({ error: expected('must be an integer: milliseconds since the epoch') }).int('must be an integer: milliseconds since the epoch').nonnegative('must not be negative'),
      assessment_status: AssessmentData.nullish(),
      assessment_result: AssessmentData.nullish(),
      assessment_profile_url: AssessmentData.nullish(),
      cancelled_reason: AssessmentData.nullish(),
      metadata: z.array(AssessmentData, { error: expected('must be an array') }).max(100).nullish(),
    },
    { error: expected('must be an object') },
  )
  .superRefine((u, ctx) => {
    if (!u.assessment_status && !u.cancelled_reason) {
      ctx.addIssue({ code: 'custom', path: ['assessment_status'], message: 'is required unless cancelled_reason is set' });
    }
    if (u.assessment_result && !u.assessment_profile_url) {
      ctx.addIssue({ code: 'custom', path: ['assessment_profile_url'], message: 'is required with assessment_result' });
    }
    if (u.assessment_profile_url && u.assessment_profile_url.type !== 'url') {
      ctx.addIssue({ code: 'custom', path: ['assessment_profile_url', 'type'], message: 'must be url' });
    }
    const identifiers = [u.assessment_status, u.assessment_result, u.assessment_profile_url, u.cancelled_reason, ...(u.metadata ?? [])]
      .filter((d): d is AssessmentData => Boolean(d))
      .map((d) => d.identifier);
    const twice = identifiers.filter((id, i) => identifiers.indexOf(id) !== i);
    if (twice.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['metadata'], message: `identifiers must be unique: ${[...new Set(twice)].map((id) => JSON.stringify(id)).join(', ')} used twice` });
    }
  });
export type AssessmentUpdate = z.infer<typeof AssessmentUpdate>;

/**
 * The body when it follows `schema`, else one sentence per problem naming the field
 * ("timestamp must be an integer: milliseconds since the epoch").
 */
export function readBody<S extends z.ZodType>(schema: S, body: unknown): { ok: true; value: z.output<S> } | { ok: false; errors: string[] } {
  const result = schema.safeParse(body, { error: (issue) => (issue.input === undefined ? 'is required' : undefined) });
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    errors: result.error.issues.map((issue) => {
      const field = issue.path.map(String).join('.');
      return field ? `${field} ${issue.message}` : `the body ${issue.message}`;
    }),
  };
}

/** Ashby's error envelope: `success: false`, the deprecated `errors`, and `errorInfo` with an opaque `requestId`. */
export function ashbyError(code: string, message: string) {
  return { success: false as const, errors: [code], errorInfo: { code, message, requestId: randomUUID() } };
}

/** What an error answer of the partner's says, for the recruiter: Ashby's `message` (a 422's), `errorInfo.message`, or `error`. */
export function saidIn(body: unknown): string | undefined {
  const b = body as { message?: unknown; errorInfo?: { message?: unknown; code?: unknown }; error?: unknown } | undefined;
  for (const said of [b?.message, b?.errorInfo?.message, b?.errorInfo?.code, b?.error]) {
    if (typeof said === 'string' && said.trim() !== '') return said.trim().slice(0, 500);
  }
  return undefined;
}
