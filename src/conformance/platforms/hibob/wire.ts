import { createHmac, randomInt } from 'node:crypto';
import { z } from 'zod';
import { USER_AGENT, type Answer } from '../../probe.js';
import type { CallbackHttpRequest } from '../../../contract/partner-calls.js';
import type { ReceiverSpec } from '../../receiver.js';
import { resultsUrlBeside } from '../../results-checks.js';

/**
 * How Bob (HiBob's Hiring Assessments API, docs/hibob.md) meets an assessment partner, as the
 * checker plays it: the browser Bob sends to the partner's OAuth callback after an install, the
 * signed events it posts to the partner's one webhook listener, and what Bob's own side — its token
 * URL and its Assessments API, which the checker's receiver plays (bob.ts) — takes from the partner.
 * Written from docs/hibob.md and the standards it names (RFC 6749, RFC 4648), never from the
 * partner's code.
 */

/** The partner's two routes under its HiBob base (a kit partner's: `${PUBLIC_URL}/hibob`). */
export interface HibobTargets {
  /** `<base>/oauth/callback`: the app's redirect URI, where Bob sends the browser with the install's code. */
  callback: string;
  /** `<base>/webhooks`: the one listener for every company's events. */
  webhooks: string;
}

export function hibobTargets(baseUrl: string): HibobTargets {
  const base = baseUrl.replace(/\/+$/, '');
  return { callback: `${base}/oauth/callback`, webhooks: `${base}/webhooks` };
}

/** The results endpoint beside a kit partner's HiBob routes: the base URL without its last `/hibob`, then the kit's path. */
export const resultsUrlFromHibob = (baseUrl: string): string => resultsUrlBeside(baseUrl, 'hibob');

/** Where the checker's Bob issues tokens, on its receiver: the partner's HIBOB_TOKEN_URL. */
export const TOKEN_PATH = '/oauth2/token';
/** Where the checker's Bob serves its API, on its receiver: the partner's HIBOB_API_URL (Bob's own is `https://api.hibob.com/v1`). */
export const API_PATH = '/v1';
export const PACKAGES_PATH = `${API_PATH}/hiring/assessments/packages`;
export const DELETE_PACKAGES_PATH = `${PACKAGES_PATH}/delete`;
/** `GET` (the details) and `PATCH` (the status) of one assessment request. */
export const assessmentPath = (id: string): string => `${API_PATH}/hiring/assessments/${encodeURIComponent(id)}`;

/** The receiver playing Bob's token URL and API, for the usage and the messages. */
export const BOB_RECEIVER: ReceiverSpec = { for: "Bob's token URL and API", namedBy: 'each of HIBOB_API_URL and HIBOB_TOKEN_URL' };

/** What Bob documents of the listener: a 2xx within 10 seconds, else the delivery is retried. */
export const LISTENER_TIMEOUT_MS = 10_000;

/** The header Bob signs its events in. */
export const BOB_SIGNATURE_HEADER = 'bob-signature';

/** `Bob-Signature`: the standard Base64 (RFC 4648 §4, padded) of the HMAC-SHA512 of the body's exact bytes (docs/hibob.md §5). */
export const signBob = (secret: string, raw: string): string => createHmac('sha512', secret).update(raw, 'utf8').digest('base64');

export type EventType = 'assessment.triggered' | 'assessment.cancelled';

/**
 * An event as Bob posts it (docs/hibob.md §5): `{companyId, type, triggeredBy, triggeredAt, version,
 * data: {assessmentRequestId}}` — ids only. `triggeredAt` is when the recruiter acted: a retried
 * delivery carries the first one's.
 */
export function bobEvent(type: EventType, companyId: string, assessmentRequestId: string, triggeredAt = new Date()): Record<string, unknown> {
  return { companyId, type, triggeredBy: 'conformance-recruiter', triggeredAt: triggeredAt.toISOString(), version: 'v2', data: { assessmentRequestId } };
}

/** Bob's delivery of `raw` to the listener, with `signature` as `Bob-Signature` (null: none). */
export function delivery(url: string, raw: string, signature: string | null): CallbackHttpRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  if (signature !== null) headers[BOB_SIGNATURE_HEADER] = signature;
  return { method: 'POST', url, headers, body: raw };
}

/** An assessment request id as Bob gives them ("numeric, as a string"): new on every run, since a partner deduplicates them for good. */
export const newAssessmentRequestId = (): string => String(randomInt(100_000_000_000, 999_999_999_999));
/** A Bob company id, made up for a run when none is given: Bob's are numbers. */
export const newCompanyId = (): string => String(randomInt(10_000_000, 99_999_999));

/** A Bob company id as a kit partner takes it (docs/hibob.md §2): letters, digits and `. _ : -`, at most 100. */
export const COMPANY_ID = /^[0-9A-Za-z][0-9A-Za-z._:-]{0,99}$/;

/** A candidate of the run: example.com is reserved and takes no mail. */
export interface Candidate {
  firstName: string;
  lastName: string;
  email: string;
}

const person = (firstName: string, lastName: string): Candidate => ({ firstName, lastName, email: `${firstName.toLowerCase()}@example.com` });
/** The order read, duplicated and completed. */
export const ADA = person('Ada', 'Lovelace');
/** The order delivered as Bob's last retry of a delivery that failed hours ago. */
export const ALAN = person('Alan', 'Turing');
/** The order the recruiter cancels. */
export const GRACE = person('Grace', 'Hopper');
/** Company A's order that company B's cancel names. */
export const BARBARA = person('Barbara', 'Liskov');
/** Company A's order that company B's trigger names: a partner never reads it with A's token. */
export const EDSGER = person('Edsger', 'Dijkstra');
/** The order read after Bob refused the access token. */
export const KATHERINE = person('Katherine', 'Johnson');
/** The order read after the access token expired. */
export const MARGARET = person('Margaret', 'Hamilton');

/** A package of a company's catalog, as the partner registered it. */
export interface BobPackage {
  id: string;
  name: string;
  description?: string;
}

/**
 * The details Bob answers for an order (`GET /hiring/assessments/{id}`): candidate, requester, job
 * opening, package and when it was requested, in the names docs/hibob.md §5 reads first (only
 * `jobOpening.id` and `jobOpening.title` are confirmed on HiBob's page).
 */
export function orderDetails(id: string, candidate: Candidate, pkg: BobPackage, requestedAt = new Date()): Record<string, unknown> {
  return {
    id,
    candidate: { ...candidate },
    requester: { firstName: 'Rita', lastName: 'Recruiter', displayName: 'Rita Recruiter', email: 'rita.recruiter@example.com' },
    jobOpening: { id: 'CONF-1', title: 'Conformance check (not a real job)' },
    package: { id: pkg.id, name: pkg.name },
    requestedAt: requestedAt.toISOString(),
  };
}

const nonBlank = z.string().refine((s) => s.trim() !== '', 'must not be blank');

/**
 * The register call's body, as Bob's page validates it (docs/hibob.md §4, all or nothing):
 * `packages` an array of `{id, name, description?}`, ids and names non-blank, no id twice.
 */
export const PackagesBody = z
  .object({ packages: z.array(z.object({ id: nonBlank, name: nonBlank, description: z.string().optional() })) })
  .superRefine((body, ctx) => {
    const ids = body.packages.map((p) => p.id);
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined) ctx.addIssue({ code: 'custom', path: ['packages'], message: `holds the id ${JSON.stringify(twice)} twice` });
  });

/** The delete call's body: `packageIds`, at least one, none blank. */
export const DeletePackagesBody = z.object({ packageIds: z.array(nonBlank).min(1) });

/** The statuses Bob's update-status page confirms: `completed` (finished, no pass/fail), `passed` and `failed` (outcomes). */
export const BOB_STATUSES = ['completed', 'passed', 'failed'] as const;

/**
 * What Bob's update-status page refuses with 400 (docs/hibob.md §6): no `status`, or one it does not
 * support; `assessmentRequestId` in the body (it is the path's); a `resultUrl` that is not a valid
 * HTTPS URL. A `score`, when given, is a number. Undefined when the body is one Bob takes.
 */
export function patchProblem(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body is no JSON object';
  const fields = body as Record<string, unknown>;
  if (typeof fields.status !== 'string') return 'status is required on every PATCH';
  if (!(BOB_STATUSES as readonly string[]).includes(fields.status)) return `status ${JSON.stringify(fields.status).slice(0, 60)} is none of ${BOB_STATUSES.join(', ')}`;
  if ('assessmentRequestId' in fields) return 'assessmentRequestId is not accepted in the body: it is the path\'s';
  if (fields.resultUrl !== undefined && !isHttpsUrl(fields.resultUrl)) return `resultUrl ${JSON.stringify(fields.resultUrl).slice(0, 80)} is not a valid HTTPS URL`;
  if (fields.score !== undefined && (typeof fields.score !== 'number' || !Number.isFinite(fields.score))) return `score ${JSON.stringify(fields.score).slice(0, 40)} is not a number`;
  return undefined;
}

/** An absolute `https:` URL with a host. */
export function isHttpsUrl(value: unknown): value is string {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === 'https:' && url.hostname !== '';
}

/** An answer's status in a few words: `200`, `no answer: …`. */
export const statusOf = (answer: Answer): string => (answer.ok ? String(answer.status) : `no answer: ${answer.error}`);
