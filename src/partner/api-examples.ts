import { ErrorBody, ReportId } from '../contract/schemas.js';

/**
 * The values the partner's API examples share, whichever part of the document they are in (the
 * kit's own routes, each platform's: `PlatformDefinition.api`). The examples follow one customer
 * account through its first calls: its token binds it to company 3, it has the tests 1
 * (JavaScript) and 2 (SQL), the hiring platform's first send creates report R1, which is then
 * canceled, and R5, whose progress the vendor's example reports. Greenhouse calls with the same
 * account's token as its key; its interview GH1 is one Greenhouse sent earlier, which the candidate
 * completed with 80%. test/openapi/ sends every example to a running partner, in document order.
 */

/** Where app.ts mounts the callbacks; the manifest registers `${PUBLIC_URL}/callbacks/…`. */
export const CALLBACKS = '/callbacks';

export const R1 = '7d0c8f0e-0f6b-4c55-9a53-2b0d5b8f4e21';
export const R2 = '5b8f4e21-2b0d-4c55-9a53-7d0c8f0e0f6b';
export const R3 = '9a532b0d-5b8f-4e21-8f0e-7d0c0f6b4c55';
export const R4 = '4c559a53-0f6b-47d0-8c8f-2b0d5b8f4e21';
export const R5 = '2b0d5b8f-4e21-47d0-8c8f-4c559a530f6b';
export const UNKNOWN_REPORT = '00000000-0000-4000-8000-000000000000';
/** [documentation only] The Greenhouse interview test_status's example asks about: completed, 80%. */
export const EXAMPLE_GREENHOUSE_INTERVIEW = '3f2a9c4e-8b1d-4e6f-9a7c-5d0e2b4f6a18';

/** [kit decision, documentation only] The secret the webhook example is signed with: WEBHOOK_SECRETS=3:<this>. */
export const EXAMPLE_WEBHOOK_SECRET = 'whsec_example_secret_of_the_openapi_document';
export const EXAMPLE_COMPANY_ID = 3;
/** [kit decision, documentation only] VENDOR_RESULTS_SECRET of the server the examples run against. */
export const EXAMPLE_VENDOR_RESULTS_SECRET = 'vendor_results_secret_of_the_openapi_document';
/** When the vendor examples were signed (2026-01-01T00:00:00Z): the example server's clock reads this. */
export const EXAMPLE_TIME_MS = Date.UTC(2026, 0, 1);


const INVALID_TOKEN = { error: 'Invalid token' };
export const anonymous = (body?: unknown) => ({
  name: 'no_token',
  summary: 'No Authorization header: 401, which the platform shows as "invalid token"',
  anonymous: true,
  ...(body !== undefined && { body }),
  status: 401,
  response: INVALID_TOKEN,
});

export const error = (description: string) => ({ description, schema: ErrorBody });
export const TOKEN_ERRORS = {
  401: error('Missing, unknown or revoked customer token. The platform shows "invalid token".'),
} as const;
export const BODY_ERRORS = {
  400: error('The body is not well-formed JSON.'),
  413: error('The body is larger than BODY_LIMIT_BYTES.'),
  415: error('The body is not declared as JSON.'),
} as const;

export const ada = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  candidate_id: 17,
  company_id: EXAMPLE_COMPANY_ID,
  report_id: R1,
  test_id: '1',
  test_name: 'JavaScript',
};


export const reportIdParam = {
  name: 'report_id',
  in: 'path',
  description: 'The report id the platform sent with send_candidate (a UUID).',
  schema: ReportId,
  example: R1,
} as const;

