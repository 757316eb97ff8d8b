import { z } from 'zod';
import {
  CODENAME_PATTERN,
  PARTNER_KINDS,
  REPORT_SCORE_MAX_LENGTH,
  REPORT_SCORE_TOO_LONG,
  REPORT_STATUSES,
  WEBHOOK_EVENT_TYPES,
} from './decisions.js';

/**
 * Wire schemas of platform-contract.md. Inbound schemas are strict about what matters (ids, auth,
 * required fields) and tolerant of everything else: unknown keys pass through untouched (zod's
 * default `strip` keeps them out of the parsed value without failing).
 */

/** `{"error": "..."}`, plus `errors` (field → messages) on validation failures [kit decision]. */
export const ErrorBody = z.object({
  error: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

const positiveInt = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/**
 * The decimal digits of an integer from 1 to `max`, no leading zero, as one anchored pattern: the
 * string form of an id is bounded as its number form is (`maximum`), and a JSON Schema `pattern`
 * cannot compare numbers, so the bound is spelled digit by digit — for 907: `[1-9]\d{0,1}`,
 * `[1-8]\d{2}`, `90[0-6]`, `907`.
 */
export function digitsUpTo(max: number): RegExp {
  if (!Number.isSafeInteger(max) || max < 1) throw new Error(`digitsUpTo: ${max} is not a positive safe integer`);
  const digits = String(max);
  const anyDigits = (n: number) => (n === 0 ? '' : n === 1 ? '\\d' : `\\d{${n}}`);
  const range = (low: number, high: number) => (low === high ? String(low) : `[${low}-${high}]`);
  // Fewer digits than max, then max's own length: its first i digits, a smaller one, any others.
  const shorter = digits.length === 1 ? [] : digits.length === 2 ? ['[1-9]'] : [`[1-9]\\d{0,${digits.length - 2}}`];
  const below = [...digits].flatMap((d, i) => {
    const low = i === 0 ? 1 : 0;
    const high = Number(d) - 1;
    return high < low ? [] : [`${digits.slice(0, i)}${range(low, high)}${anyDigits(digits.length - i - 1)}`];
  });
  return new RegExp(`^(?:${[...shorter, ...below, digits].join('|')})$`);
}

/** A positive safe integer (up to 2^53 − 1) in decimal digits: ids in paths, and the string form of `IntegerId`. */
export const SAFE_INTEGER_DIGITS = digitsUpTo(Number.MAX_SAFE_INTEGER);

/** An id in a URL path: decimal digits up to 2^53 − 1 (an id above it cannot be told from its neighbours once a number). */
export const IdDigits = z.string().regex(SAFE_INTEGER_DIGITS, 'must be a positive integer');

/**
 * An integer id the platform may send as a number or as a string of digits. Anything else reads
 * "must be a positive integer" (a partner's 422 message is shown to the platform's user); a
 * missing one is left to the caller's wording ("is required").
 */
export const IntegerId = z.union(
  [
    positiveInt,
    z
      .string()
      .regex(SAFE_INTEGER_DIGITS, 'must be a positive integer')
      .transform(Number)
      .pipe(positiveInt),
  ],
  { error: (issue) => (issue.input === undefined ? undefined : 'must be a positive integer') },
);

/** UUIDs in any version; the platform's report ids are v4 but nothing depends on that. */
export const ReportId = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a UUID')
  .transform((s) => s.toLowerCase());

// --- §4 Callbacks -----------------------------------------------------------------------------------

/** §4.1 validate_token: POST `{company_id}`; GET carries no body. */
export const ValidateTokenBody = z.object({ company_id: IntegerId });

/** [kit decision] What validate_token answers; the platform looks at the status only. */
export const ValidateTokenResponse = z.object({ ok: z.literal(true) });

/** §4.2 tests: a bare array; extra fields per item are allowed. */
export const TestItem = z.looseObject({
  id: z.union([z.number(), z.string()]),
  name: z.string(),
});
export const TestList = z.array(TestItem);
export type TestItem = z.infer<typeof TestItem>;

/**
 * A string without NUL characters. No name, score or event type holds one, and PostgreSQL cannot
 * store one in a text column: refused here, with a 4xx, rather than failing the write.
 */
export const text = () => z.string().refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');

/**
 * An e-mail address, trimmed first, checked with the pattern `z.email()` checks with. A check of
 * the string, not a pipe into `z.email()`: a document shows a pipe's input side, which would read
 * as any string, "" included.
 */
export const emailAddress = (max = 320) => z.string().trim().max(max).regex(z.regexes.email, 'must be a valid e-mail address');

const trimmed = (max: number) => text().trim().min(1, 'is required').max(max, `must be at most ${max} characters`);

/** §4.3 send_candidate. `test_id` arrives as a string although `tests` listed a number. */
export const SendCandidateBody = z.object({
  first_name: trimmed(200),
  last_name: trimmed(200),
  email: emailAddress(),
  candidate_id: IntegerId,
  company_id: IntegerId,
  report_id: ReportId,
  test_id: z.union([text().trim().min(1).max(200), z.number().finite()]).transform(String),
  test_name: text().max(500).optional(),
  /** Present when the partner configured a `phone` input. */
  phone: text().max(100).nullish(),
  /** Present when the partner configured an `admin` input [kit decision for the shape]. */
  admin: z
    .object({ id: IntegerId.optional(), name: text().max(200).optional(), email: text().max(320).optional() })
    .nullish(),
});
export type SendCandidateBody = z.infer<typeof SendCandidateBody>;

/** [kit decision] What send_candidate answers; the platform ignores it. */
export const SendCandidateResponse = z.object({ id: z.string(), status: z.literal('sent') });

/**
 * §4.4 [kit decision] What the platform POSTs to a report's `urls.cancel`. The URL already names
 * the report; the body repeats it, with the company, for partners whose cancel URL does not.
 */
export const CancelReportBody = z.object({ report_id: ReportId, company_id: IntegerId });

/** [kit decision] What the cancel URL answers; the platform looks at the status only. */
export const CancelReportResponse = z.object({ id: z.string(), status: z.literal('canceled') });

// --- §3.1 Partner record ----------------------------------------------------------------------------

export const Codename = z.string().regex(CODENAME_PATTERN, 'must be 2–64 lowercase letters, digits, "-" or "_"');

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' });

export const PartnerInput = z.object({
  kind: z.enum(['first_name', 'last_name', 'email', 'phone', 'admin']),
  name: z.string().min(1).max(100).optional(),
  required: z.boolean().default(false),
});

/**
 * platform-contract.md §3.1 lists four urls without marking any optional: `help_article` (a link the marketplace
 * shows, never called) is required like the three callbacks. A PATCH may leave any of them out but
 * never clear one (null or "" is not a URL).
 */
export const PartnerUrls = z.object({
  help_article: httpUrl,
  validate_token: httpUrl,
  tests: httpUrl,
  send_candidate: httpUrl,
});

export const PartnerRequest = z.object({
  kind: z.enum(PARTNER_KINDS),
  name: z.string().trim().min(1, 'is required').max(100),
  description: z.string().max(2000).optional(),
  urls: PartnerUrls,
  inputs: z
    .array(PartnerInput)
    .max(20)
    .refine((inputs) => new Set(inputs.map((i) => i.name ?? i.kind)).size === inputs.length, 'must not name an input twice')
    .optional(),
});
export type PartnerRequest = z.infer<typeof PartnerRequest>;

export const PartnerPatch = PartnerRequest.partial().extend({ urls: PartnerUrls.partial().optional() });

/**
 * The stored record as the platform answers it. Read tolerantly: a record registered before
 * `help_article` was required may lack it.
 */
export const Partner = PartnerRequest.extend({
  urls: PartnerUrls.extend({ help_article: httpUrl.optional() }),
  codename: z.string(),
  company_id: z.number().int(),
  secret: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Partner = z.infer<typeof Partner>;

// --- §3.2 Report ------------------------------------------------------------------------------------

export const ReportProperty = z.object({ label: text().min(1).max(100), value: text().max(1000) });

export const ReportUpdate = z
  .object({
    status: z.enum(REPORT_STATUSES),
    score: text().max(REPORT_SCORE_MAX_LENGTH, REPORT_SCORE_TOO_LONG).nullable(),
    completed_at: z.iso.datetime({ offset: false }).nullable(),
    subtitle: text().max(500).nullable(),
    properties: z.array(ReportProperty).max(50),
    // Known keys: `cancel` [public docs] and `show` [kit decision]; others are allowed but must be
    // short snake_case names of absolute URLs, so a stored report's urls stay a map of strings.
    urls: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a snake_case key'), httpUrl),
  })
  .partial();
export type ReportUpdate = z.infer<typeof ReportUpdate>;

export const Report = z.object({
  id: z.string(),
  codename: z.string(),
  company_id: z.number().int(),
  candidate_id: z.number().int(),
  test_id: z.string().nullable(),
  test_name: z.string().nullable(),
  status: z.enum(REPORT_STATUSES),
  score: z.string().nullable(),
  completed_at: z.string().nullable(),
  subtitle: z.string().nullable(),
  properties: z.array(ReportProperty),
  urls: z.record(z.string(), z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Report = z.infer<typeof Report>;

// --- §6 Webhooks ------------------------------------------------------------------------------------

export const WebhookEventType = z.enum(Object.keys(WEBHOOK_EVENT_TYPES) as [keyof typeof WEBHOOK_EVENT_TYPES]);

/** platform-contract.md §6.2 envelope. The payload is validated per event type by the receiver's handlers. */
export const WebhookEnvelope = z.object({
  id: z.number().int().positive(),
  attempt_count: z.number().int().min(1),
  created_at: z.string().min(1),
  event_type: WebhookEventType,
  event_subtype: z.string().min(1),
  payload: z.record(z.string(), z.unknown()),
});
export type WebhookEnvelope = z.infer<typeof WebhookEnvelope>;

/** [kit decision] What a receiver answers with its 200 (only the status counts, §6.4); `duplicate` on a retry. */
export const WebhookAck = z.object({ ok: z.literal(true), duplicate: z.literal(true).optional() });
