import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_SIGNATURE_HEADER } from '../../../contract/decisions.js';
import {
  CancelReportBody,
  CancelReportResponse,
  IdDigits,
  SendCandidateBody,
  SendCandidateResponse,
  TestList,
  text,
  ValidateTokenBody,
  ValidateTokenResponse,
  WebhookAck,
  WebhookEnvelope,
} from '../../../contract/schemas.js';
import { signWebhookBody } from '../../../contract/signature.js';
import {
  ada,
  anonymous,
  BODY_ERRORS,
  CALLBACKS,
  error,
  EXAMPLE_COMPANY_ID,
  EXAMPLE_WEBHOOK_SECRET,
  R1,
  R2,
  R3,
  R4,
  R5,
  reportIdParam,
  TOKEN_ERRORS,
  UNKNOWN_REPORT,
} from '../../api-examples.js';
import type { PlatformApi } from '../platform.js';
import { WEBHOOK_PATH } from './webhooks/receiver.js';


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

/**
 * The hiring platform's part of the partner's OpenAPI document: the callbacks it makes
 * (platform-contract.md §4) and where it delivers webhooks (§6), in the order the examples run.
 */
export function hiringPlatformApi(): PlatformApi {
  return {
    tags: [
      { name: 'Callbacks', description: 'Called by the platform with the customer token (platform-contract.md §4).' },
      { name: 'Webhooks', description: 'Delivered by the platform, signed with the webhook secret (§6).' },
    ],
    securitySchemes: {
      customerToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'The customer token the partner issued to the company (`npm run accounts -- create`).',
      },
    },
    operations: [
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
    ],
  };
}
