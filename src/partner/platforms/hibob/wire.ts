import { z } from 'zod';
import { emailAddress } from '../../../contract/schemas.js';
import { KitReportId } from '../../invitations/report-id.js';

/**
 * Bob's bodies as the kit reads them (docs/hibob.md). Where HiBob's pages could not be read — the
 * token answer's fields, the event's keys, the details' fields — the kit follows the standards the
 * issue names and reads liberally: unknown keys are ignored, a number where a string is expected
 * (ids) is taken as its digits.
 */

/**
 * [kit decision] A Bob company id: Bob's own (its numbers, as text), up to 100 letters, digits and
 * `.`, `_`, `:`, `-`. It names accounts ("Bob company 123456") and appears in the log, so nothing
 * else is taken.
 */
export const CompanyId = z
  .union([z.string().trim(), z.number().int().nonnegative()])
  .transform(String)
  .pipe(z.string().regex(/^[0-9A-Za-z][0-9A-Za-z._:-]{0,99}$/, 'must be a Bob company id: letters, digits and . _ : -, at most 100'));

/** Bob's `assessmentRequestId` ("string, numeric"), which is the kit's report id of the order (report-id.ts). */
export const AssessmentRequestId = z
  .union([z.string().trim(), z.number().int().nonnegative()])
  .transform(String)
  .pipe(KitReportId);

/** The two events Bob sends a marketplace assessment partner. */
export const EVENT_TYPES = ['assessment.triggered', 'assessment.cancelled'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What is read of any signed body first: its type. Types the kit does not handle are answered 200 and ignored. */
export const EventType = z.looseObject({ type: z.string().max(200) });

/**
 * [kit decision, from the issue] An assessment event: `{companyId, type, triggeredBy, triggeredAt,
 * version, data: {assessmentRequestId}}`. Only `companyId`, `type` and `data.assessmentRequestId`
 * are acted on; the rest is optional (its keys were not confirmed on HiBob's pages).
 */
export const BobEvent = z.looseObject({
  companyId: CompanyId,
  type: z.enum(EVENT_TYPES),
  triggeredBy: z.unknown().optional(),
  triggeredAt: z.union([z.string().max(64), z.number()]).transform(String).optional(),
  version: z.unknown().optional(),
  data: z.looseObject({ assessmentRequestId: AssessmentRequestId }),
});
export type BobEvent = z.output<typeof BobEvent>;

/**
 * [RFC 6749 §5.1] The token endpoint's answer to both grants. `refresh_token` may be absent from a
 * refresh's answer (the old one stays, §6); `expires_in` in seconds, a number or its digits;
 * `companyId` (or `company_id`) names the installing company where Bob says it.
 */
export const TokenAnswer = z.looseObject({
  access_token: z.string().min(1).max(4000),
  refresh_token: z.string().min(1).max(3000).optional(),
  expires_in: z.coerce.number().int().positive().max(10 * 365 * 86_400).optional().catch(undefined),
  companyId: CompanyId.optional().catch(undefined),
  company_id: CompanyId.optional().catch(undefined),
});
export type TokenAnswer = z.output<typeof TokenAnswer>;

/** [RFC 6749 §5.2] A token endpoint's refusal: `error` and what it says. */
export const TokenError = z.looseObject({ error: z.string().regex(/^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,100}$/) });

/**
 * What the kit keeps as the connection's credential (sealed, `connections.credential`): the
 * company's tokens, as JSON. `expires_at` is when the access token stops working (ISO; null when
 * Bob did not say, or `1970-01-01T00:00:00.000Z` once Bob refused it: refreshed before its next use).
 * `kind` comes last, so the four characters the dashboard shows of a credential are never a token's.
 */
export const BobTokens = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).nullable(),
  expires_at: z.iso.datetime().nullable(),
  company_id: z.string().min(1),
  kind: z.literal('bob-oauth'),
});
export type BobTokens = z.output<typeof BobTokens>;

/** The packages Bob's register call takes (`POST /hiring/assessments/packages`). */
export interface BobPackage {
  id: string;
  name: string;
  description?: string;
}

/**
 * The assessment's details as the kit reads them from `GET /hiring/assessments/{id}`: only
 * `jobOpening.id` and `jobOpening.title` were confirmed on HiBob's pages, so each field is looked for
 * under the names it most likely has (docs/hibob.md §5) and what is not found is left out.
 */
export interface AssessmentDetails {
  candidate: { firstName: string; lastName: string; email: string };
  packageId: string;
  requester?: { name?: string; email?: string };
  jobOpening?: { id?: string; title?: string };
}

/** Why the details cannot make an invitation (no e-mail, no package): retrying will not change Bob's answer. */
export class UnusableDetails extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnusableDetails';
  }
}

const Email = emailAddress();

/**
 * [kit decision] Reads Bob's details answer defensively: the object itself or under `data` or
 * `assessment`; the candidate under `candidate` (`firstName`/`first_name`, `lastName`/`last_name`,
 * else `fullName`/`name` split at its last space, else the e-mail's local part; `email`,
 * `emailAddress`, `personalEmail` or `workEmail`); the package under `package.id`, `packageId` or
 * `package_id`; the requester under `requester`/`requestedBy`; the job opening under `jobOpening`.
 * An answer without a valid candidate e-mail or a package id is unusable (it throws).
 */
export function readDetails(body: unknown): AssessmentDetails {
  const root = objectOf(body);
  const top = objectOf(root?.data) ?? objectOf(root?.assessment) ?? root;
  if (!top) throw new UnusableDetails('Bob answered the assessment details with no object');
  const candidate = objectOf(top.candidate) ?? {};
  const emailText = firstText(candidate, ['email', 'emailAddress', 'personalEmail', 'workEmail']) ?? firstText(top, ['candidateEmail']);
  const email = emailText === undefined ? undefined : Email.safeParse(emailText);
  if (!email?.success) throw new UnusableDetails("Bob's assessment details carry no valid candidate e-mail");
  const pkg = objectOf(top.package);
  const packageId = firstText(pkg ?? {}, ['id', 'packageId']) ?? firstText(top, ['packageId', 'package_id']);
  if (packageId === undefined) throw new UnusableDetails("Bob's assessment details name no package");

  let firstName = firstText(candidate, ['firstName', 'first_name', 'givenName']);
  let lastName = firstText(candidate, ['lastName', 'last_name', 'surname', 'familyName']);
  if (firstName === undefined && lastName === undefined) {
    const full = firstText(candidate, ['fullName', 'displayName', 'name']) ?? firstText(top, ['candidateName']);
    if (full !== undefined) {
      const at = full.lastIndexOf(' ');
      [firstName, lastName] = at > 0 ? [full.slice(0, at).trim(), full.slice(at + 1).trim()] : [full, ''];
    }
  }
  const local = email.data.slice(0, email.data.indexOf('@'));
  const requesterOf = objectOf(top.requester) ?? objectOf(top.requestedBy);
  const requesterName =
    requesterOf &&
    (firstText(requesterOf, ['displayName', 'fullName', 'name']) ??
      ([firstText(requesterOf, ['firstName']), firstText(requesterOf, ['lastName'])].filter(Boolean).join(' ') || undefined));
  const requesterEmail = requesterOf && firstText(requesterOf, ['email', 'emailAddress']);
  const job = objectOf(top.jobOpening) ?? objectOf(top.job);
  const jobId = job && firstText(job, ['id']);
  const jobTitle = job && firstText(job, ['title', 'name']);
  return {
    candidate: { firstName: clip(firstName ?? local, 100), lastName: clip(lastName ?? '', 100), email: email.data },
    packageId: clip(packageId, 200),
    ...((requesterName || requesterEmail) && {
      requester: { ...(requesterName && { name: clip(requesterName, 200) }), ...(requesterEmail && { email: clip(requesterEmail, 320) }) },
    }),
    ...((jobId || jobTitle) && { jobOpening: { ...(jobId && { id: clip(jobId, 100) }), ...(jobTitle && { title: clip(jobTitle, 300) }) } }),
  };
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The first of `keys` holding a non-blank text or a number, as trimmed text without control characters. */
function firstText(from: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = from[key];
    const text = typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
    // eslint-disable-next-line no-control-regex
    const clean = text?.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
    if (clean) return clean;
  }
  return undefined;
}

const clip = (text: string, max: number) => text.slice(0, max);
