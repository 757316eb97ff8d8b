import { createHash, createHmac } from 'node:crypto';
import { z } from 'zod';

/**
 * Bob's bodies as the mock reads and writes them (docs/hibob.md). Where HiBob's pages were read —
 * the register and delete bodies, the PATCH's fields and its `assessmentRequestId` rule — the mock
 * follows them; where they were not, it follows what the kit decided from the standards they name
 * (the token request: RFC 6749; the event and `Bob-Signature`: the issue's statement), marked
 * [mock decision] where the mock chose for itself.
 */

/** The OAuth scope of the four Assessments API endpoints (HiBob's reference pages). */
export const SCOPE = 'hiring.integrations:write';

/** The header Bob signs its webhooks in. */
export const SIGNATURE_HEADER = 'Bob-Signature';

/** `Bob-Signature`: the standard Base64 of the HMAC-SHA512 of the body's exact bytes under the app's webhook secret. */
export function signBody(secret: string, body: string): string {
  return createHmac('sha512', secret).update(body, 'utf8').digest('base64');
}

/** How codes and tokens are kept: never in clear. */
export const digest = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/**
 * [kit decision, from the issue] An event as Bob sends it: `{companyId, type, triggeredBy,
 * triggeredAt, version, data: {assessmentRequestId}}`; ids only, no personal data.
 */
export function eventBody(e: { companyId: string; type: 'assessment.triggered' | 'assessment.cancelled'; triggeredBy: string; triggeredAt: string; assessmentRequestId: string }): string {
  return JSON.stringify({
    companyId: e.companyId,
    type: e.type,
    triggeredBy: e.triggeredBy,
    triggeredAt: e.triggeredAt,
    version: 'v2',
    data: { assessmentRequestId: e.assessmentRequestId },
  });
}

const nonBlank = (what: string) => z.string().max(500).refine((s) => s.trim() !== '', `${what} must not be blank`);

/**
 * `POST /hiring/assessments/packages` (HiBob's page): `packages`, required, each with `id` and
 * `name` required and non-blank and `description` optional; "Duplicate package IDs in the same
 * request return 400"; "Validation is all-or-nothing". Other keys of a package are ignored.
 */
export const RegisterBody = z
  .object({
    packages: z.array(z.object({ id: nonBlank('id'), name: nonBlank('name'), description: z.string().max(5000).optional() }), 'must be an array of packages'),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.packages.forEach((p, i) => {
      if (seen.has(p.id)) ctx.addIssue({ code: 'custom', path: ['packages', i, 'id'], message: `"${p.id}" is given twice` });
      seen.add(p.id);
    });
  });
export type RegisterBody = z.output<typeof RegisterBody>;

/** `POST /hiring/assessments/packages/delete` (HiBob's page): `packageIds`, non-empty, no blank id. */
export const DeleteBody = z.object({ packageIds: z.array(nonBlank('a package id'), 'must be an array of package ids').min(1, 'must not be empty') });

/** Bob's statuses as far as HiBob's page names them: `completed` (finished, no outcome), `passed` and `failed` (outcomes). */
export const STATUSES = ['completed', 'passed', 'failed'] as const;

/**
 * A results link Bob takes: HTTPS (HiBob's page: "400 … when `resultUrl` is not a valid HTTPS
 * URL"), or [mock decision] plain http on a loopback host, which only a partner on this machine
 * sends (the kit's local-only partner sends its http results page, docs/hibob.md §6).
 */
export const ResultUrl = z
  .string()
  .max(2000)
  .refine((value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  }, 'must be a valid HTTPS URL');

/**
 * `PATCH /hiring/assessments/{assessmentRequestId}` (HiBob's page): `status` required, every other
 * field optional and kept when omitted; "`assessmentRequestId` is not accepted in the body".
 * [mock decision] Only the statuses HiBob's page names are taken (any other is "unsupported": 400),
 * `score` is a number, and a key Bob does not name is refused, so a partner's typo shows here
 * rather than as a field Bob silently drops.
 */
export const UpdateBody = z.strictObject({
  status: z.enum(STATUSES, { error: (issue) => (issue.input === undefined ? 'is required' : `must be one of ${STATUSES.join(', ')}`) }),
  score: z.number('must be a number').optional(),
  resultUrl: ResultUrl.optional(),
  verdict: z.string().max(5000).optional(),
  comments: z.string().max(20_000).optional(),
  providerAssessmentId: z.string().max(500).optional(),
  sectionSummary: z.array(z.unknown()).max(200).optional(),
});
export type UpdateBody = z.output<typeof UpdateBody>;

/** `{ok, value}`, or each problem as a sentence naming its field. */
export function readBody<S extends z.ZodType>(schema: S, body: unknown): { ok: true; value: z.output<S> } | { ok: false; errors: Record<string, string[]> } {
  const result = schema.safeParse(body, { error: (issue) => (issue.input === undefined ? 'is required' : undefined) });
  if (result.success) return { ok: true, value: result.data };
  const errors: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const key = issue.path.length ? issue.path.map(String).join('.') : 'body';
    (errors[key] ??= []).push(issue.message);
  }
  return { ok: false, errors };
}

/** The errors of `readBody` as one sentence. */
export const sentence = (errors: Record<string, string[]>) =>
  Object.entries(errors)
    .map(([field, messages]) => `${field} ${messages[0]}`)
    .join('; ');

/** A host on this machine: `localhost`, 127.0.0.0/8, `::1`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** OAuth fields that are credentials: what the call log never shows. */
const OAUTH_SECRETS = new Set(['code', 'client_secret', 'refresh_token', 'access_token']);

/** A form or a token answer with its credentials masked, for the call log. */
export function maskedOAuth(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, OAUTH_SECRETS.has(key) ? '[redacted]' : value]));
}

/** A URL with its `code` query parameter masked, for the call log. */
export function maskedCode(url: string): string {
  const parsed = new URL(url);
  if (parsed.searchParams.has('code')) parsed.searchParams.set('code', '[redacted]');
  return parsed.toString();
}
