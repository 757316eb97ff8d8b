import { BODY_ERRORS, error, EXAMPLE_GREENHOUSE_INTERVIEW, R1, UNKNOWN_REPORT } from '../../api-examples.js';
import type { PlatformApi } from '../platform.js';
import { NOTICE_LIMITS } from '../notices.js';
import { GREENHOUSE_PATH } from './routes.js';
import { ListTestsAnswer, ResponseErrorAnswer, ResponseErrorBody, SendTestAnswer, SendTestBody, TestStatusAnswer, TestStatusQuery } from './wire.js';

/**
 * Greenhouse's part of the partner's OpenAPI document: its Assessment Partner API as the kit
 * serves it (docs/greenhouse.md §2), with the customer's token as the Basic user name.
 */
export function greenhouseApi(): PlatformApi {
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
  return {
    tags: [{ name: 'Greenhouse', description: 'Called by Greenhouse, through its Assessment Partner API, with the customer\'s key (docs/greenhouse.md).' }],
    securitySchemes: {
      greenhouseKey: {
        type: 'http',
        scheme: 'basic',
        description: 'The same customer token, given to Greenhouse as its API key: the Basic user name, with an empty password.',
      },
    },
    operations: [
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
        429: error(
          `More than ${NOTICE_LIMITS.perWindow} reports from this key's account within ${NOTICE_LIMITS.windowMs / 1000} s; ` +
            '`Retry-After` says when another is taken. Each account keeps its newest reports only (docs/greenhouse.md §2).',
        ),
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
    ],
  };
}
