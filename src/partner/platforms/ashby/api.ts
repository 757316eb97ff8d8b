import { EXAMPLE_TIME_MS, UNKNOWN_REPORT } from '../../api-examples.js';
import type { PlatformApi } from '../platform.js';
import { assessmentId, assessmentTypeId } from './ids.js';
import { ASHBY_PATH } from './routes.js';
import { AshbyError, CancelBody, CancelReply, ListAnswer, ListBody, StartAnswer, StartBody } from './wire.js';

/**
 * [documentation only] The application the start examples assess: its first assessment of the
 * JavaScript test (1) by the examples' account (1) is `EXAMPLE_ASSESSMENT`, which the cancel
 * example cancels.
 */
const EXAMPLE_APPLICATION = 'b8e2c7a4-1f3d-4e5a-9c6b-0d7e8f9a1b2c';
const JAVASCRIPT = assessmentTypeId('1');
const EXAMPLE_ASSESSMENT = assessmentId(1, JAVASCRIPT, EXAMPLE_APPLICATION, 0);

/**
 * Ashby's part of the partner's OpenAPI document: its Assessments Partner API as the kit serves it
 * (docs/ashby.md §2–§4), with the customer's token as the Basic user name. The examples follow the
 * account of the document's other examples, with an Ashby API key set.
 */
export function ashbyApi(): PlatformApi {
  const refusal = (description: string) => ({ description, schema: AshbyError });
  const AUTH_ERRORS = { 401: refusal('No Basic header, another scheme, an unknown or revoked key, or a password that is not empty.') } as const;
  const BODY_ERRORS = {
    400: refusal('The body is not well-formed JSON (`invalid_input`).'),
    413: refusal('The body is larger than BODY_LIMIT_BYTES.'),
    415: refusal('The body is not declared as JSON.'),
  } as const;
  const refused = (code: string, message: string, fields?: Record<string, string[]>) => ({
    success: false,
    message,
    errors: [code],
    errorInfo: { code, message, ...(fields && { meta: { fields } }) },
  });
  const INVALID_KEY = 'Invalid API key: send it as the Basic user name, with an empty password';
  const unauthenticated = (body: unknown) => ({
    name: 'no_key',
    summary: 'No Authorization header',
    anonymous: true,
    body,
    status: 401,
    response: refused('unauthorized', INVALID_KEY),
  });
  const ada = {
    assessment_type_id: JAVASCRIPT,
    candidate: {
      ashby_id: 'f6a1e0c2-3b4d-4c5e-8f70-1a2b3c4d5e6f',
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      ashby_profile_url: 'https://app.ashbyhq.com/candidates/f6a1e0c2-3b4d-4c5e-8f70-1a2b3c4d5e6f',
    },
    application: { ashby_id: EXAMPLE_APPLICATION, status: 'Active' },
    job: {
      ashby_id: '2c9d4e7f-5a6b-4c8d-9e0f-3a4b5c6d7e8f',
      name: 'Backend Engineer',
      ashby_job_url: 'https://app.ashbyhq.com/jobs/2c9d4e7f-5a6b-4c8d-9e0f-3a4b5c6d7e8f',
      req_id: 'ENG-42',
    },
  };
  const { email: _email, ...withoutEmail } = ada.candidate;
  const status = (value: string) => ({ identifier: 'status', label: 'Status', type: 'string', value });
  return {
    tags: [{ name: 'Ashby', description: 'Called by Ashby, through its Assessments Partner API, with the customer\'s key (docs/ashby.md).' }],
    securitySchemes: {
      ashbyKey: {
        type: 'http',
        scheme: 'basic',
        description: 'The customer token, given to Ashby as the partner\'s API key: the Basic user name, with an empty password.',
      },
    },
    operations: [
      {
        operationId: 'ashbyListAssessments',
        method: 'post',
        path: `${ASHBY_PATH}/assessment.list`,
        tags: ['Ashby'],
        summary: 'List the assessments of the customer whose key Ashby calls with',
        description:
          'Each test of the account, its `assessment_type_id` a UUID the kit derives from the test\'s id. `results` is `[]` for ' +
          'an account without tests; the body is ignored. See docs/ashby.md §3.',
        security: ['ashbyKey'],
        requestBody: { schema: ListBody, description: 'Ashby sends an empty object.', required: false },
        responses: { 200: { description: 'The account\'s assessments.', schema: ListAnswer }, ...BODY_ERRORS, ...AUTH_ERRORS },
        examples: [
          {
            name: 'list',
            summary: 'An account with two tests',
            body: {},
            status: 200,
            response: {
              success: true,
              results: [
                { assessment_type_id: JAVASCRIPT, name: 'JavaScript', description: 'JavaScript, by Demo Assessments' },
                { assessment_type_id: assessmentTypeId('2'), name: 'SQL', description: 'SQL, by Demo Assessments' },
              ],
            },
          },
          unauthenticated({}),
        ],
      },
      {
        operationId: 'ashbyStartAssessment',
        method: 'post',
        path: `${ASHBY_PATH}/assessment.start`,
        tags: ['Ashby'],
        summary: 'Start an assessment of a candidate; answers its id',
        description:
          '`assessment_id` is the kit\'s report id of the invitation; the invitation e-mail goes at once, and the answer tells ' +
          'Ashby the first status, `Invited` (`update_request`). The same application started again with the same type ' +
          'while its assessment is under way answers 409, never a second assessment. An account without an Ashby API key ' +
          'is refused (422): no update could reach Ashby. See docs/ashby.md §3.',
        security: ['ashbyKey'],
        requestBody: { schema: StartBody, description: 'The assessment type, the candidate, the application and the job.' },
        responses: {
          200: { description: 'The assessment exists; its id is `results.assessment_id`.', schema: StartAnswer },
          ...BODY_ERRORS,
          ...AUTH_ERRORS,
          409: refusal('The application is already being assessed with this type (`already_assessed`); `message` names its assessment_id.'),
          422: refusal(
            'A field is missing or invalid (`invalid_input`, each field in `errorInfo.meta.fields`), the type is none of this ' +
              'account\'s (`unknown_assessment_type`), or the account has no Ashby API key (`missing_api_key`). Ashby shows `message` to its user.',
          ),
        },
        examples: [
          {
            name: 'start',
            summary: 'Ada is assessed with the JavaScript test',
            body: ada,
            status: 200,
            response: { success: true, results: { assessment_id: EXAMPLE_ASSESSMENT, update_request: { assessment_id: EXAMPLE_ASSESSMENT, timestamp: EXAMPLE_TIME_MS, assessment_status: status('Invited') } } },
          },
          {
            name: 'again',
            summary: 'The same start again, while the first is under way',
            body: ada,
            status: 409,
            response: refused(
              'already_assessed',
              `The candidate is already being assessed with this assessment (assessment_id ${EXAMPLE_ASSESSMENT}): cancel it before starting it again`,
            ),
          },
          {
            name: 'unknown_type',
            summary: 'A type the account does not list (another customer\'s answers the same)',
            body: { ...ada, assessment_type_id: UNKNOWN_REPORT },
            status: 422,
            response: refused('unknown_assessment_type', 'Unknown assessment_type_id: it is none of the assessments assessment.list lists for this key'),
          },
          {
            name: 'invalid',
            summary: 'No e-mail address',
            body: { ...ada, candidate: withoutEmail },
            status: 422,
            response: refused('invalid_input', 'candidate.email is required', { 'candidate.email': ['is required'] }),
          },
          unauthenticated(ada),
        ],
      },
      {
        operationId: 'ashbyCancelAssessment',
        method: 'post',
        path: `${ASHBY_PATH}/assessment.cancel`,
        tags: ['Ashby'],
        summary: 'Cancel an assessment',
        description:
          'Canceled as the kit cancels any invitation: the candidate\'s link stops working, the product is told. A repeated ' +
          'cancel answers the same. An unknown id — another customer\'s, another platform\'s — and a complete assessment are ' +
          'refused as Ashby\'s schema of the call says, a 200 with `success: false`. See docs/ashby.md §4.',
        security: ['ashbyKey'],
        requestBody: { schema: CancelBody, description: 'The id `assessment.start` answered.' },
        responses: {
          200: { description: 'Canceled (`success: true`), or refused: `assessment_not_found`, `assessment_complete`.', schema: CancelReply },
          ...BODY_ERRORS,
          ...AUTH_ERRORS,
          422: refusal('`assessment_id` is missing or empty (`invalid_input`).'),
        },
        examples: [
          {
            name: 'cancel',
            summary: 'Ada\'s assessment is canceled',
            body: { assessment_id: EXAMPLE_ASSESSMENT },
            status: 200,
            response: { success: true, results: { assessment_id: EXAMPLE_ASSESSMENT } },
          },
          {
            name: 'unknown',
            summary: 'An assessment this key never started',
            body: { assessment_id: UNKNOWN_REPORT },
            status: 200,
            response: refused('assessment_not_found', 'Unknown assessment_id: no assessment of this key has this id'),
          },
          {
            name: 'missing',
            summary: 'No assessment named',
            body: {},
            status: 422,
            response: refused('invalid_input', 'assessment_id is required', { assessment_id: ['is required'] }),
          },
          unauthenticated({ assessment_id: EXAMPLE_ASSESSMENT }),
        ],
      },
    ],
  };
}
