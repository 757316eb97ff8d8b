import { createHash } from 'node:crypto';

/**
 * [kit decision] The ids the kit gives Ashby (docs/ashby.md §3). Ashby's schema types both
 * `assessment_type_id` and `assessment_id` as UUIDs, and a vendor's test ids are not (the kit's
 * catalog numbers its tests 1, 2, …): each is a name-based UUID (RFC 9562 version 5), so the kit
 * finds it again without storing it.
 */

/** The namespace of the assessment types: a test id names one. */
const TYPES = '6f1d3c2a-8e4b-4b7a-9c0d-2a5e7f913b46';
/** The namespace of the assessments: an account, a type, an application and a count name one. */
const ASSESSMENTS = 'c3a91f52-0d6e-4f18-b7a4-5e29d8c64f01';

/**
 * The `assessment_type_id` of a test, as `assessment.list` lists it and `assessment.start` names
 * it: the same for a test id whoever lists it (a test is the account's to send or not, which the
 * listing says).
 */
export const assessmentTypeId = (testId: string): string => uuidV5(TYPES, testId);

/**
 * The `n`th assessment (from 0) of one account's application for one type: the kit's report id of
 * the invitation. A repeated start computes the id the first one took, and the invitations' unique
 * report id refuses a second row, on one instance or several; once that assessment has ended (a
 * result, a cancel) the next start takes `n + 1`.
 */
export const assessmentId = (accountId: number, typeId: string, applicationId: string, n: number): string =>
  uuidV5(ASSESSMENTS, JSON.stringify([accountId, typeId, applicationId, n]));

/** RFC 9562 §5.5: SHA-1 of the namespace's bytes and the name, as a version 5 UUID, in lowercase. */
export function uuidV5(namespace: string, name: string): string {
  const hash = createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
