import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_SIGNATURE_HEADER } from '../contract/decisions.js';
import { openApiDocument, type ApiOperation, type OpenApiDocument } from '../contract/openapi/document.js';
import {
  CancelReportBody,
  CancelReportResponse,
  ErrorBody,
  IdDigits,
  ReportId,
  SendCandidateBody,
  SendCandidateResponse,
  TestList,
  text,
  ValidateTokenBody,
  ValidateTokenResponse,
  WebhookAck,
  WebhookEnvelope,
} from '../contract/schemas.js';
import { signWebhookBody } from '../contract/signature.js';
import { ResultBody } from './results/routes.js';
import { VENDOR_SIGNATURE_HEADER, signVendorResult } from '../contract/vendor-signature.js';
import { WEBHOOK_PATH } from './platforms/hiring-platform/webhooks/receiver.js';
import { GREENHOUSE_PATH } from './platforms/greenhouse/routes.js';
import {
  ListTestsAnswer,
  ResponseErrorAnswer,
  ResponseErrorBody,
  SendTestAnswer,
  SendTestBody,
  TestStatusAnswer,
  TestStatusQuery,
} from './platforms/greenhouse/wire.js';

/**
 * The partner's HTTP API as an OpenAPI 3.1 document, served unauthenticated at `GET /openapi.json`:
 * what the platform calls (platform-contract.md §4) and where it delivers webhooks (§6), with the
 * statuses and bodies the kit's server answers. Every operation is listed once, here; its schemas
 * are the ones the routes validate with. test/openapi/ sends every example below to a running
 * partner and checks each answer against its documented schema, so a route that changes its
 * answer fails there until this list is changed with it.
 *
 * Adding a route: add its operation to PARTNER_OPERATIONS (a vendor endpoint such as
 * `POST /vendor/reports/{report_id}/result` gets its own tag, and a security scheme in
 * SECURITY_SCHEMES if it authenticates otherwise), with at least one example answered 2xx.
 *
 * The examples follow one customer account through its first calls: its token binds it to company
 * 3, it has the tests 1 (JavaScript) and 2 (SQL), the first send creates report R1, which is then
 * canceled. Greenhouse calls with the same account's token as its key; its interview GH1 is one
 * Greenhouse sent earlier, which the candidate completed with 80%.
 */

/** Where app.ts mounts the callbacks; the manifest registers `${PUBLIC_URL}/callbacks/…`. */
const CALLBACKS = '/callbacks';

const R1 = '7d0c8f0e-0f6b-4c55-9a53-2b0d5b8f4e21';
const R2 = '5b8f4e21-2b0d-4c55-9a53-7d0c8f0e0f6b';
const R3 = '9a532b0d-5b8f-4e21-8f0e-7d0c0f6b4c55';
const R4 = '4c559a53-0f6b-47d0-8c8f-2b0d5b8f4e21';
const R5 = '2b0d5b8f-4e21-47d0-8c8f-4c559a530f6b';
const UNKNOWN_REPORT = '00000000-0000-4000-8000-000000000000';
/** [documentation only] The Greenhouse interview test_status's example asks about: completed, 80%. */
export const EXAMPLE_GREENHOUSE_INTERVIEW = '3f2a9c4e-8b1d-4e6f-9a7c-5d0e2b4f6a18';

/** [kit decision, documentation only] The secret the webhook example is signed with: WEBHOOK_SECRETS=3:<this>. */
export const EXAMPLE_WEBHOOK_SECRET = 'whsec_example_secret_of_the_openapi_document';
export const EXAMPLE_COMPANY_ID = 3;
/** [kit decision, documentation only] VENDOR_RESULTS_SECRET of the server the examples run against. */
export const EXAMPLE_VENDOR_RESULTS_SECRET = 'vendor_results_secret_of_the_openapi_document';
/** When the vendor examples were signed (2026-01-01T00:00:00Z): the example server's clock reads this. */
export const EXAMPLE_TIME_MS = Date.UTC(2026, 0, 1);
const vendorProgress = { status: 'opened' };

const INVALID_TOKEN = { error: 'Invalid token' };
const anonymous = (body?: unknown) => ({
  name: 'no_token',
  summary: 'No Authorization header: 401, which the platform shows as "invalid token"',
  anonymous: true,
  ...(body !== undefined && { body }),
  status: 401,
  response: INVALID_TOKEN,
});

const error = (description: string) => ({ description, schema: ErrorBody });
const TOKEN_ERRORS = {
  401: error('Missing, unknown or revoked customer token. The platform shows "invalid token".'),
} as const;
const BODY_ERRORS = {
  400: error('The body is not well-formed JSON.'),
  413: error('The body is larger than BODY_LIMIT_BYTES.'),
  415: error('The body is not declared as JSON.'),
} as const;

const ada = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  candidate_id: 17,
  company_id: EXAMPLE_COMPANY_ID,
  report_id: R1,
  test_id: '1',
  test_name: 'JavaScript',
};

const webhookEvent = {
  id: 1001,
  attempt_count: 1,
  created_at: '2026-11-01T09:00:00Z',
  event_type: 'offer_published',
  event_subtype: 'manual',
  payload: {
    company: { id: EXAMPLE_COMPANY_ID, name: 'Acme Corp' },
    offer: {
      id: 7,
      title: 'Backend Engineer',
      kind: 'job',
      locations: [],
      slug: 'backend-engineer',
      department: null,
      tags: [],
      created_at: '2026-10-30T12:00:00Z',
      updated_at: '2026-11-01T09:00:00Z',
    },
  },
};

/**
 * The envelope as the receiver reads it (platforms/hiring-platform/webhooks/receiver.ts): §6.2's,
 * with an event type of any name — one the kit does not know yet is stored, and left to the
 * handlers — and texts of at most 64 or 100 characters. test/openapi/agreement.test.ts holds the
 * two to the same answers.
 */
const ReceivedEnvelope = WebhookEnvelope.extend({
  created_at: text().min(1).max(64),
  event_type: text()
    .min(1)
    .max(100)
    .meta({ description: `The event's type (§6.3): ${Object.keys(WEBHOOK_EVENT_TYPES).join(', ')}; another is stored too.` }),
  event_subtype: text().min(1).max(100),
});

const reportIdParam = {
  name: 'report_id',
  in: 'path',
  description: 'The report id the platform sent with send_candidate (a UUID).',
  schema: ReportId,
  example: R1,
} as const;

/** The partner's routes, in the order the examples run. */
export const PARTNER_OPERATIONS: readonly ApiOperation[] = [
  {
    operationId: 'validateToken',
    method: 'post',
    path: `${CALLBACKS}/validate_token`,
    tags: ['Callbacks'],
    summary: 'Validate a customer token and bind its account to a company (§4.1)',
    description:
      'Called when a company user clicks Integrate in the marketplace and pastes a token the partner issued. ' +
      'A 2xx completes the integration; the partner binds the token\'s customer account to `company_id`. ' +
      'Calling it again for the same company answers the same. See platform-contract.md §4.1.',
    security: ['customerToken'],
    requestBody: { schema: ValidateTokenBody, description: 'The company that integrates the partner.' },
    responses: {
      200: { description: 'The token is valid; its account is bound to the company.', schema: ValidateTokenResponse },
      ...BODY_ERRORS,
      ...TOKEN_ERRORS,
      403: error('The token is already bound to another company. The platform shows "invalid token".'),
      422: error('`company_id` is missing (`{}`, `42`, `null`, no body) or not a positive integer; nothing is bound.'),
    },
    examples: [
      { name: 'bind', summary: 'Binds the account to company 3', body: { company_id: EXAMPLE_COMPANY_ID }, status: 200, response: { ok: true } },
      {
        name: 'another_company',
        summary: 'The same token for another company',
        body: { company_id: 4 },
        status: 403,
        response: { error: 'This token is already connected to another company' },
      },
      {
        name: 'invalid_company',
        summary: 'A company id that is not an integer',
        body: { company_id: 'acme' },
        status: 422,
        response: { error: 'company_id must be a positive integer', errors: { company_id: ['must be a positive integer'] } },
      },
      anonymous({ company_id: EXAMPLE_COMPANY_ID }),
    ],
  },
  {
    operationId: 'checkToken',
    method: 'get',
    path: `${CALLBACKS}/validate_token`,
    tags: ['Callbacks'],
    summary: 'Validate a customer token without a body (§4.1)',
    description:
      'The platform may also call validate_token with GET and no body. It checks the token; with `company_id` in ' +
      'the query string it binds as the POST does.',
    security: ['customerToken'],
    parameters: [
      {
        name: 'company_id',
        in: 'query',
        description: 'Optional: the company to bind the account to.',
        schema: ValidateTokenBody.shape.company_id,
        example: EXAMPLE_COMPANY_ID,
      },
    ],
    responses: {
      200: { description: 'The token is valid.', schema: ValidateTokenResponse },
      ...TOKEN_ERRORS,
      403: error('`company_id` names another company than the one the token is bound to.'),
      422: error('`company_id` is not a positive integer.'),
    },
    examples: [{ name: 'check', summary: 'A valid token', status: 200, response: { ok: true } }, anonymous()],
  },
  {
    operationId: 'listTests',
    method: 'get',
    path: `${CALLBACKS}/tests`,
    tags: ['Callbacks'],
    summary: 'List the tests the customer can send (§4.2)',
    description:
      'Called when a user chooses to send a candidate. A bare JSON array of `{id, name}` (extra fields are ignored ' +
      'by the platform); `[]` for an account without tests. See platform-contract.md §4.2.',
    security: ['customerToken'],
    responses: {
      200: { description: 'The account\'s tests.', schema: TestList },
      ...TOKEN_ERRORS,
    },
    examples: [
      {
        name: 'list',
        summary: 'An account with two tests',
        status: 200,
        response: [
          { id: 1, name: 'JavaScript' },
          { id: 2, name: 'SQL' },
        ],
      },
      anonymous(),
    ],
  },
  {
    operationId: 'sendCandidate',
    method: 'post',
    path: `${CALLBACKS}/send_candidate`,
    tags: ['Callbacks'],
    summary: 'Invite a candidate to a test (§4.3)',
    description:
      'Called when the user sends the selected test. Idempotent on `report_id`: the same request again gets the ' +
      'same answer and creates nothing; the same `report_id` with another candidate or test answers 409. ' +
      '`test_id` arrives as a string. The partner invites the candidate itself, after answering, and reports ' +
      'progress with report updates (platform-contract.md §3.2). See §4.3.',
    security: ['customerToken'],
    requestBody: { schema: SendCandidateBody, description: 'The candidate, the company, the report and the test.' },
    responses: {
      201: { description: 'The invitation exists (created now, or by an earlier identical call).', schema: SendCandidateResponse },
      ...BODY_ERRORS,
      ...TOKEN_ERRORS,
      403: error('`company_id` is not the company the token is bound to.'),
      409: error('`report_id` was already used for another candidate or test.'),
      422: error('A field is missing or invalid, or the test is unknown; the platform shows `error` to its user.'),
    },
    examples: [
      { name: 'send', summary: 'Ada is invited to the JavaScript test', body: ada, status: 201, response: { id: R1, status: 'sent' } },
      {
        name: 'replay',
        summary: 'The same request again (a double click): the same answer, nothing new',
        body: ada,
        status: 201,
        response: { id: R1, status: 'sent' },
      },
      {
        name: 'second_candidate',
        summary: 'Another candidate, another report',
        body: { ...ada, first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com', candidate_id: 18, report_id: R5 },
        status: 201,
        response: { id: R5, status: 'sent' },
      },
      {
        name: 'conflict',
        summary: 'The same report id for another candidate',
        body: { ...ada, first_name: 'Alan', last_name: 'Turing', email: 'alan@example.com', candidate_id: 18 },
        status: 409,
        response: { error: 'report_id was already used for another candidate or test' },
      },
      {
        name: 'another_company',
        summary: 'A company the token is not bound to',
        body: { ...ada, company_id: 4, report_id: R2 },
        status: 403,
        response: { error: 'This token is not connected to this company' },
      },
      {
        name: 'unknown_test',
        summary: 'A test the account does not have',
        body: { ...ada, report_id: R3, test_id: '999', test_name: 'Cobol' },
        status: 422,
        response: { error: 'Unknown test', errors: { test_id: ['is not a test of this account'] } },
      },
      {
        name: 'invalid_email',
        summary: 'An e-mail address that is not one',
        body: { ...ada, report_id: R4, email: 'ada at example.com' },
        status: 422,
        response: { error: 'email must be a valid e-mail address', errors: { email: ['must be a valid e-mail address'] } },
      },
      anonymous(ada),
    ],
  },
  {
    operationId: 'cancelReport',
    method: 'post',
    path: `${CALLBACKS}/reports/{report_id}/cancel`,
    tags: ['Callbacks'],
    summary: 'Cancel an invitation: the report\'s urls.cancel (§4.4)',
    description:
      'The kit gives each report this address as `urls.cancel`; the platform POSTs there when its user cancels. ' +
      'The invitation\'s link stops working and the report is updated to `canceled`. Canceling again answers the ' +
      'same. Another account\'s report answers as an unknown one. See platform-contract.md §4.4.',
    security: ['customerToken'],
    parameters: [reportIdParam],
    requestBody: { schema: CancelReportBody, required: false, description: 'What the platform sends; the URL already names the report.' },
    responses: {
      200: { description: 'The invitation is canceled.', schema: CancelReportResponse },
      ...BODY_ERRORS,
      ...TOKEN_ERRORS,
      404: error('No such report for this account.'),
      409: error('The candidate already completed (or failed) the test.'),
    },
    examples: [
      {
        name: 'cancel',
        summary: 'Cancels the invitation of report R1',
        body: { report_id: R1, company_id: EXAMPLE_COMPANY_ID },
        status: 200,
        response: { id: R1, status: 'canceled' },
      },
      {
        name: 'unknown',
        summary: 'A report this account never received',
        params: { report_id: UNKNOWN_REPORT },
        body: { report_id: UNKNOWN_REPORT, company_id: EXAMPLE_COMPANY_ID },
        status: 404,
        response: { error: 'Unknown report' },
      },
      anonymous({ report_id: R1, company_id: EXAMPLE_COMPANY_ID }),
    ],
  },
  {
    operationId: 'receiveWebhook',
    method: 'post',
    path: `${WEBHOOK_PATH}/{company_id}`,
    tags: ['Webhooks'],
    summary: 'Receive the platform\'s webhooks (§6)',
    description:
      'Each company\'s webhook configuration points at this URL with its id. The signature is checked over the raw ' +
      'bytes; the test request `{"test": true}` is answered 200 unsigned; events are stored (deduplicated on `id`) ' +
      'and handled after the answer. Only a 200 is a delivery; anything else is retried. See platform-contract.md ' +
      `§6 and docs/webhooks.md. The example event is signed with the secret \`${EXAMPLE_WEBHOOK_SECRET}\`.`,
    parameters: [
      {
        name: 'company_id',
        in: 'path',
        description: 'The company whose configuration sends here.',
        schema: IdDigits,
        example: String(EXAMPLE_COMPANY_ID),
      },
      {
        name: WEBHOOK_SIGNATURE_HEADER,
        in: 'header',
        description: 'Lowercase hex HMAC-SHA256 of the raw body, keyed with the configuration\'s webhook secret (§6.1).',
        schema: z.string().regex(/^[0-9a-f]{64}$/),
        example: '0'.repeat(64),
      },
    ],
    requestBody: {
      schema: z.union([z.object({ test: z.literal(true) }), ReceivedEnvelope]),
      description: 'The test request, or an event envelope (§6.2).',
    },
    responses: {
      200: { description: 'Received (or a duplicate of an event already received).', schema: WebhookAck },
      400: error('Signed, but not JSON.'),
      401: error('The signature is missing or wrong, or the company has no webhook secret configured.'),
      404: error('The company id in the path is not an integer.'),
      413: error('The body is larger than WEBHOOK_BODY_LIMIT_BYTES.'),
      422: error('Signed JSON that is not an event envelope, or names another company than the path.'),
    },
    examples: [
      { name: 'test_request', summary: 'The test request a configuration must pass', body: { test: true }, status: 200, response: { ok: true } },
      {
        name: 'event',
        summary: 'An offer_published event, signed',
        params: { [WEBHOOK_SIGNATURE_HEADER]: signWebhookBody(EXAMPLE_WEBHOOK_SECRET, JSON.stringify(webhookEvent)) },
        body: webhookEvent,
        status: 200,
        response: { ok: true },
      },
      {
        name: 'bad_signature',
        summary: 'The same event with a wrong signature',
        params: { [WEBHOOK_SIGNATURE_HEADER]: '0'.repeat(64) },
        body: webhookEvent,
        status: 401,
        response: { error: 'Invalid signature' },
      },
    ],
  },
  {
    operationId: 'pushVendorResult',
    method: 'post',
    path: '/vendor/reports/{report_id}/result',
    tags: ['Vendor'],
    summary: 'A result or progress pushed by the vendor\'s product',
    description:
      'Called by the vendor\'s own product (not the platform) when a test taken there ends or progresses. Signed: ' +
      '`X-Vendor-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<report_id>.<raw body>" keyed with VENDOR_RESULTS_SECRET>`, ' +
      'within 5 minutes of the server\'s time; checked before the report id is looked up, and valid for the report it names only. The same result again ' +
      'answers the same and changes nothing. See docs/results-endpoint.md for how to sign, with curl.',
    parameters: [
      reportIdParam,
      {
        name: VENDOR_SIGNATURE_HEADER,
        in: 'header',
        description: '`t=<unix seconds>,v1=<hex HMAC-SHA256>`; several `v1=` during a secret rotation.',
        schema: z.string().max(1024),
        example: `t=1767225600,v1=${'0'.repeat(64)}`,
      },
    ],
    requestBody: { schema: ResultBody, description: '`completed`/`failed` with `score` (and for assessments `subtitle`, `properties`), `canceled`, or a progress stage.' },
    responses: {
      200: { description: 'Recorded, or the same as already recorded.', schema: z.object({ id: ReportId, status: z.string() }) },
      400: error('Signed, but not JSON.'),
      401: error('No VENDOR_RESULTS_SECRET configured, or the signature is missing, malformed, stale or wrong (signed for another report included).'),
      404: error('No such report.'),
      409: error('The report is canceled, or already finished with another result.'),
      413: error('The body is larger than BODY_LIMIT_BYTES.'),
      415: error('A body not declared as JSON, or a compressed one.'),
      422: error('Invalid fields, with `errors` per field.'),
    },
    examples: [
      {
        name: 'progress',
        summary: 'The candidate opened the test in the product (recorded; the platform\'s report does not change)',
        params: { report_id: R5, [VENDOR_SIGNATURE_HEADER]: signVendorResult(EXAMPLE_VENDOR_RESULTS_SECRET, R5, JSON.stringify(vendorProgress), EXAMPLE_TIME_MS / 1000) },
        body: vendorProgress,
        status: 200,
        response: { id: R5, status: 'opened' },
      },
      {
        name: 'unsigned',
        summary: 'No signature: 401, whatever the report',
        params: { [VENDOR_SIGNATURE_HEADER]: '' },
        body: { status: 'completed', score: '76%' },
        status: 401,
        response: { error: 'Missing X-Vendor-Signature header' },
      },
      {
        name: 'stale',
        summary: 'A signature made more than 5 minutes ago',
        params: { [VENDOR_SIGNATURE_HEADER]: `t=1767225600,v1=${'0'.repeat(64)}` },
        body: { status: 'completed', score: '76%' },
        status: 401,
        response: { error: 'Signature timestamp is more than 5 minutes away from the server time' },
      },
    ],
  },
  ...greenhouseOperations(),
];

/**
 * Greenhouse's Assessment Partner API as the kit serves it (docs/greenhouse.md §2), with the
 * customer's token as the Basic user name.
 */
function greenhouseOperations(): ApiOperation[] {
  const AUTH_ERRORS = {
    401: error('No Basic header, an unknown or revoked key, or a password that is not empty.'),
  } as const;
  const INVALID_KEY = { error: 'Invalid API key: send it as the Basic user name, with an empty password' };
  const unauthenticated = (body?: unknown) => ({
    name: 'no_key',
    summary: 'No Authorization header',
    anonymous: true,
    ...(body !== undefined && { body }),
    status: 401,
    response: INVALID_KEY,
  });
  const harry = {
    partner_test_id: '1',
    candidate: {
      first_name: 'Harry',
      last_name: 'Potter',
      preferred_name: null,
      email: 'hpotter@hogwarts.edu',
      phone_number: '123-456-7890',
      resume_url: 'https://hogwarts.com/resume',
      greenhouse_profile_url: 'https://app.greenhouse.io/people/17681532?application_id=26234709',
    },
    sent_by: 'test_sender@example.org',
    url: 'https://app.greenhouse.io/integrations/testing_partners/take_home_tests/12345',
  };
  const interviewParam = (example: string) => ({
    name: 'partner_interview_id',
    in: 'query' as const,
    description: 'The id send_test answered: the kit\'s report id of the invitation.',
    schema: TestStatusQuery.shape.partner_interview_id,
    required: true,
    example,
  });
  return [
    {
      operationId: 'greenhouseListTests',
      method: 'get',
      path: `${GREENHOUSE_PATH}/list_tests`,
      tags: ['Greenhouse'],
      summary: 'List the tests of the customer whose key Greenhouse calls with',
      description: 'Ids are strings. `[]` for an account without tests. See docs/greenhouse.md §2.',
      security: ['greenhouseKey'],
      responses: { 200: { description: 'The account\'s tests.', schema: ListTestsAnswer }, ...AUTH_ERRORS },
      examples: [
        {
          name: 'list',
          summary: 'An account with two tests',
          status: 200,
          response: [
            { partner_test_id: '1', partner_test_name: 'JavaScript' },
            { partner_test_id: '2', partner_test_name: 'SQL' },
          ],
        },
        unauthenticated(),
      ],
    },
    {
      operationId: 'greenhouseSendTest',
      method: 'post',
      path: `${GREENHOUSE_PATH}/send_test`,
      tags: ['Greenhouse'],
      summary: 'Invite a candidate to a test; answers the interview\'s id',
      description:
        'Each call is a new test instance (Greenhouse sends no idempotency key); the invitation e-mail goes at once. ' +
        '`url` is where the partner sends a body-less PATCH when the test is complete: `https` on greenhouse.io or a ' +
        'host of GREENHOUSE_PATCH_HOSTS, default port, no user name (loopback only while the partner itself is). ' +
        'See docs/greenhouse.md §2–§4.',
      security: ['greenhouseKey'],
      requestBody: { schema: SendTestBody, description: 'The test, the candidate, who sent it, and the url to PATCH.' },
      responses: {
        200: { description: 'The invitation exists; its id is `partner_interview_id`.', schema: SendTestAnswer },
        ...BODY_ERRORS,
        ...AUTH_ERRORS,
        422: error('A field is missing or invalid, the test is unknown, or `url` names a host the PATCH may not go to.'),
      },
      examples: [
        { name: 'send', summary: 'Harry is invited to the JavaScript test', body: harry, status: 200, response: { partner_interview_id: R1 } },
        {
          name: 'unknown_test',
          summary: 'A test the account does not have',
          body: { ...harry, partner_test_id: '999' },
          status: 422,
          response: { error: 'Unknown test', errors: { partner_test_id: ['is not a test of this account'] } },
        },
        {
          name: 'refused_url',
          summary: 'A url on a host the PATCH may not go to',
          body: { ...harry, url: 'https://169.254.169.254/latest/meta-data' },
          status: 422,
          response: {
            error: 'url must be on greenhouse.io or a host of GREENHOUSE_PATCH_HOSTS',
            errors: { url: ['must be on greenhouse.io or a host of GREENHOUSE_PATCH_HOSTS'] },
          },
        },
        unauthenticated(harry),
      ],
    },
    {
      operationId: 'greenhouseTestStatus',
      method: 'get',
      path: `${GREENHOUSE_PATH}/test_status`,
      tags: ['Greenhouse'],
      summary: 'The status of an interview, and its result once complete',
      description:
        '`sent`, `in_progress`, `complete` (a result: passed or failed) or `canceled`. When complete: the recruiter\'s ' +
        'results page, the score as a number when it is one, and the result as flat metadata of strings. ' +
        'See docs/greenhouse.md §5.',
      security: ['greenhouseKey'],
      parameters: [interviewParam(EXAMPLE_GREENHOUSE_INTERVIEW)],
      responses: {
        200: { description: 'The interview\'s status.', schema: TestStatusAnswer },
        ...AUTH_ERRORS,
        404: error('No such interview for this key (another customer\'s answers the same).'),
        422: error('`partner_interview_id` is missing or empty.'),
      },
      examples: [
        {
          name: 'complete',
          summary: 'A completed test',
          status: 200,
          response: {
            partner_status: 'complete',
            partner_profile_url: 'https://partner.example/results?token=…',
            partner_score: 80,
            metadata: { Result: 'passed', Score: '80%' },
          },
        },
        {
          name: 'unknown',
          summary: 'An interview this key never sent',
          params: { partner_interview_id: UNKNOWN_REPORT },
          status: 404,
          response: { error: 'Unknown partner_interview_id' },
        },
        {
          name: 'missing',
          summary: 'No interview named',
          params: { partner_interview_id: '' },
          status: 422,
          response: { error: 'partner_interview_id is required', errors: { partner_interview_id: ['is required'] } },
        },
        unauthenticated(),
      ],
    },
    {
      operationId: 'greenhouseResponseError',
      method: 'post',
      path: `${GREENHOUSE_PATH}/response_error`,
      tags: ['Greenhouse'],
      summary: 'Greenhouse reports an answer of the partner it found malformed',
      description: 'Stored and shown on the dashboard\'s "Reports from platforms". See docs/greenhouse.md §2.',
      security: ['greenhouseKey'],
      requestBody: { schema: ResponseErrorBody, description: 'The call whose answer was malformed, and what was wrong.' },
      responses: {
        200: { description: 'Stored.', schema: ResponseErrorAnswer },
        ...BODY_ERRORS,
        ...AUTH_ERRORS,
        422: error('`api_call` or `errors` is missing or invalid.'),
      },
      examples: [
        {
          name: 'report',
          summary: 'test_status answered complete without a profile URL',
          body: {
            api_call: 'test_status',
            errors: ["partner_status is 'complete' but partner_profile url is missing"],
            partner_test_id: '1',
            partner_test_name: 'JavaScript',
            partner_interview_id: EXAMPLE_GREENHOUSE_INTERVIEW,
            candidate_email: 'hpotter@hogwarts.edu',
          },
          status: 200,
          response: { status: 200 },
        },
        {
          name: 'invalid',
          summary: 'No api_call',
          body: { errors: ['something'] },
          status: 422,
          response: { error: 'api_call is required', errors: { api_call: ['is required'] } },
        },
        unauthenticated({ api_call: 'test_status', errors: [] }),
      ],
    },
  ];
}

let document: OpenApiDocument | undefined;

/** The document `GET /openapi.json` serves (built once). */
export function partnerApiDocument(): OpenApiDocument {
  return (document ??= openApiDocument({
    info: {
      title: 'Partner server',
      version: '1',
      description:
        'What a partner serves to the recruiting platform: the callbacks the platform makes (platform-contract.md ' +
        '§4) and the webhook receiver (§6), as the partner integration kit implements them, and Greenhouse\'s ' +
        'Assessment Partner API (docs/greenhouse.md). A vendor who replaces the kit must answer the callbacks with ' +
        'these statuses; `npm run conformance` checks a running server.',
    },
    tags: [
      { name: 'Callbacks', description: 'Called by the platform with the customer token (platform-contract.md §4).' },
      { name: 'Webhooks', description: 'Delivered by the platform, signed with the webhook secret (§6).' },
      { name: 'Vendor', description: 'Called by the vendor\'s own product, signed with VENDOR_RESULTS_SECRET (docs/results-endpoint.md).' },
      { name: 'Greenhouse', description: 'Called by Greenhouse, through its Assessment Partner API, with the customer\'s key (docs/greenhouse.md).' },
    ],
    securitySchemes: {
      customerToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'The customer token the partner issued to the company (`npm run accounts -- create`).',
      },
      greenhouseKey: {
        type: 'http',
        scheme: 'basic',
        description: 'The same customer token, given to Greenhouse as its API key: the Basic user name, with an empty password.',
      },
    },
    operations: PARTNER_OPERATIONS,
  }));
}
