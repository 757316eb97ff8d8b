import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { basicAuth } from '../../probe.js';
import type { ReceivedRequest, ReceiverAnswer, ReceiverSpec } from '../../receiver.js';
import { resultsUrlBeside } from '../../results-checks.js';

/**
 * How Ashby calls an assessment partner (docs/ashby.md §2–§4), as the checker reads it: three RPC
 * calls under one base URL, each a `POST` with a JSON body and the customer's key as the Basic user
 * name with an empty password (`jsonRequest` and `basicAuth`, ../../probe.ts); what each answer
 * must hold; and Ashby's own API, where the partner posts `assessment.update` with the customer's
 * Ashby API key (§5, §6), which the checker's receiver plays. Written from Ashby's schemas and the
 * kit's document, never from the partner's code.
 */

/** The partner's three endpoints: `<base>/assessment.list`, `<base>/assessment.start`, `<base>/assessment.cancel`. */
export interface AshbyTargets {
  list: string;
  start: string;
  cancel: string;
}

export const ASHBY_CALLS = ['assessment.list', 'assessment.start', 'assessment.cancel'] as const;
export type AshbyCall = (typeof ASHBY_CALLS)[number];

export function ashbyTargets(baseUrl: string): AshbyTargets {
  const base = baseUrl.replace(/\/+$/, '');
  return { list: `${base}/assessment.list`, start: `${base}/assessment.start`, cancel: `${base}/assessment.cancel` };
}

/** The results endpoint beside a kit partner's Ashby endpoints: the base URL without its last `/ashby`, then the kit's path. */
export const resultsUrlFromAshby = (baseUrl: string): string => resultsUrlBeside(baseUrl, 'ashby');

/** Where the partner posts its updates on Ashby's API: `{ASHBY_API_URL}/assessment.update`. */
export const UPDATE_PATH = '/assessment.update';

/** A candidate of the run: example.com is reserved and takes no mail. */
export interface StartCandidate {
  first_name: string;
  last_name: string;
  email: string;
}

export const ADA: StartCandidate = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };
export const GRACE: StartCandidate = { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' };
export const EDSGER: StartCandidate = { first_name: 'Edsger', last_name: 'Dijkstra', email: 'edsger@example.com' };

/**
 * Ashby's `assessment.start` body (§3), every field its schema requires, for one application (a
 * new one unless named: a start is one application's assessment with one type).
 */
export function startBody(assessmentTypeId: string, candidate: StartCandidate, applicationId: string = randomUUID()): Record<string, unknown> {
  const candidateId = randomUUID();
  const jobId = randomUUID();
  return {
    assessment_type_id: assessmentTypeId,
    candidate: { ashby_id: candidateId, ...candidate, ashby_profile_url: `https://app.ashbyhq.com/candidates/${candidateId}` },
    application: { ashby_id: applicationId, status: 'Active' },
    job: { ashby_id: jobId, name: 'Conformance check (not a real job)', ashby_job_url: `https://app.ashbyhq.com/jobs/${jobId}`, req_id: 'CONF-1', hiringTeam: [] },
  };
}

/** One assessment of `assessment.list`: the three fields Ashby's schema lists, strings. */
export const AshbyAssessmentType = z.object({ assessment_type_id: z.string().min(1), name: z.string(), description: z.string() });
export type AshbyAssessmentType = z.infer<typeof AshbyAssessmentType>;

export const ListAnswer = z.object({ success: z.literal(true), results: z.array(z.unknown()) });

/** The types of Ashby's typed values, each with the JSON type of its `value` (docs/ashby.md §6). */
const blob = <T extends string, V extends z.ZodType>(type: T, value: V) =>
  z.object({ identifier: z.string().min(1), label: z.string(), description: z.string().optional(), type: z.literal(type), value });

/** Ashby's typed value ("AssessmentData"): `numeric_score` and `numeric_duration_minutes` numbers, `url` and `string` text, `boolean_success` a boolean. */
export const AssessmentData = z.discriminatedUnion('type', [
  blob('numeric_score', z.number()),
  blob('numeric_duration_minutes', z.number()),
  blob('url', z.string()),
  blob('string', z.string()),
  blob('boolean_success', z.boolean()),
]);
export type AssessmentData = z.infer<typeof AssessmentData>;

/**
 * The body of `assessment.update` (§6), as Ashby's schema has it: the assessment, an integer
 * timestamp in milliseconds, typed values (or null); `assessment_status` unless `cancelled_reason`
 * is there; `assessment_profile_url` with `assessment_result`; unique identifiers in `metadata`.
 */
export const AssessmentUpdate = z
  .object({
    assessment_id: z.string().min(1),
    timestamp: z.number().int().nonnegative(),
    assessment_status: AssessmentData.nullish(),
    assessment_result: AssessmentData.nullish(),
    assessment_profile_url: AssessmentData.nullish(),
    metadata: z.array(AssessmentData).nullish(),
    cancelled_reason: AssessmentData.nullish(),
  })
  .superRefine((u, ctx) => {
    if (u.assessment_status == null && u.cancelled_reason == null) {
      ctx.addIssue({ code: 'custom', path: ['assessment_status'], message: 'is required unless cancelled_reason is set' });
    }
    if (u.assessment_result != null && u.assessment_profile_url == null) {
      ctx.addIssue({ code: 'custom', path: ['assessment_profile_url'], message: 'is required with assessment_result' });
    }
    const identifiers = (u.metadata ?? []).map((m) => m.identifier);
    const twice = identifiers.find((id, i) => identifiers.indexOf(id) !== i);
    if (twice !== undefined) ctx.addIssue({ code: 'custom', path: ['metadata'], message: `holds the identifier ${JSON.stringify(twice)} twice` });
  });
export type AssessmentUpdate = z.infer<typeof AssessmentUpdate>;

/** The answer of a start, and of a cancel done (§3, §4): `success` and the assessment's id; a start's `update_request` is checked apart. */
export const StartAnswer = z.object({ success: z.literal(true), results: z.object({ assessment_id: z.string().min(1), update_request: z.unknown().optional() }) });

/** A 422 of `assessment.start`: `{message}`, the text Ashby shows its user (§3). */
export const MessageAnswer = z.object({ message: z.string().trim().min(1) });

/** The first problem of a zod parse, in a few words: `results.0.name: expected string`. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'is invalid'}`;
}

/**
 * Ashby's side of `assessment.update` (§5, §6), played by the checker's receiver at the partner's
 * `ASHBY_API_URL`: `POST /assessment.update` with one of the customers' Ashby API keys as the Basic
 * user name and an empty password answers `{"success": true, "results": {}}`; without credentials,
 * 401, with others, 403 — Ashby's documented answers — in its error envelope. Anything else is
 * 404, which a partner never calls. Every request is kept for the checks, whatever it was answered.
 */
export const UPDATE_RECEIVER: ReceiverSpec = { for: 'assessment.update', namedBy: 'ASHBY_API_URL' };

const digest = (s: string) => createHash('sha256').update(s).digest();
/** Whether `header` is exactly `Basic base64(key + ":")`, the scheme in any case, compared in constant time. */
export function isAshbyAuth(header: string | undefined, key: string): boolean {
  const [scheme, credentials, ...rest] = (header ?? '').trim().split(/\s+/);
  if (scheme?.toLowerCase() !== 'basic' || credentials === undefined || rest.length > 0) return false;
  return timingSafeEqual(digest(credentials), digest(basicAuth(key).slice('Basic '.length)));
}

const ashbyError = (code: string, message: string) => ({ success: false, errors: [code], errorInfo: { code, message } });

/** How the receiver answers, knowing the customers' Ashby API keys. */
export function ashbyApiAnswer(apiKeys: readonly string[]): (request: ReceivedRequest) => ReceiverAnswer {
  return (request) => {
    if (request.method !== 'POST' || request.path.split('?')[0] !== UPDATE_PATH) {
      return { status: 404, body: ashbyError('not_found', `The checker plays Ashby's ${UPDATE_PATH} only, not ${request.method} ${request.path}`) };
    }
    const auth = request.headers.authorization;
    if (auth === undefined) return { status: 401, body: ashbyError('unauthorized', 'Missing API key: send the customer\'s Ashby API key as the Basic user name') };
    if (!apiKeys.some((key) => isAshbyAuth(auth, key))) return { status: 403, body: ashbyError('forbidden', 'Invalid API key: it is none of the customers\' Ashby API keys') };
    return { status: 200, body: { success: true, results: {} } };
  };
}

/** What an Authorization header is, in words that never show a key: whose Ashby key, or what is wrong with it. */
export function describeUpdateAuth(header: string | undefined, keys: { own: string; others: readonly { what: string; key: string }[] }): string {
  if (header === undefined) return 'no Authorization header';
  if (isAshbyAuth(header, keys.own)) return "Basic with the customer's Ashby API key and an empty password";
  const [scheme = '', credentials = ''] = header.trim().split(/\s+/, 2);
  if (scheme.toLowerCase() !== 'basic') return `Authorization ${scheme === '' ? 'without a scheme' : `${scheme.slice(0, 20)}`}, not Basic`;
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return 'Basic without a "user:password" pair';
  const user = decoded.slice(0, colon);
  if (user === keys.own) return "Basic with the customer's Ashby API key and a password that is not empty";
  const other = keys.others.find((o) => o.key === user);
  return other ? `Basic with ${other.what}` : "Basic with a user name that is not the customer's Ashby API key";
}
