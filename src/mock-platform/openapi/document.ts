import { z } from 'zod';
import { PARTNER_SECRET_HEADER } from '../../contract/decisions.js';
import { openApiDocument, type ApiOperation, type OpenApiDocument } from '../../contract/openapi/document.js';
import { Codename, ErrorBody, IdDigits, Partner, PartnerPatch, PartnerRequest, Report, ReportId } from '../../contract/schemas.js';
import { AcceptedReportUpdate } from '../reports/rules.js';
import { SEED_API_TOKENS } from '../seed.js';

/**
 * The platform's API for partners as the mock implements it — the partner record (§3.1) and the
 * reports API (§3.2) — as an OpenAPI 3.1 document: served at `GET /openapi.json` and rendered by
 * Redoc at `/api-reference`. Each operation is listed once, here, with the schemas its route
 * validates with; test/openapi/ sends every example to a running mock and checks each answer
 * against its documented schema.
 *
 * The examples are the sandbox's: company 1 (Acme Corp) with its API token, the kit's codename,
 * and its candidate 17 (Ada Lovelace), to whom report R1 was sent.
 */

const CODENAME = 'demo-assessments';
const ACME = SEED_API_TOKENS.find((t) => t.companyId === 1)!;
const R1 = '7d0c8f0e-0f6b-4c55-9a53-2b0d5b8f4e21';
const UNKNOWN_REPORT = '00000000-0000-4000-8000-000000000000';
const SECRET = 'q1Zf8kLr0VYwq3m4bN9cX2s7JtUe6HgA5dPiKoMnRlE';
const AT = '2026-11-01T09:00:00.000Z';

const error = (description: string) => ({ description, schema: ErrorBody });
const BODY_ERRORS = {
  400: error('The body is not well-formed JSON.'),
  413: error('The body is too large.'),
  415: error('The body is not declared as JSON.'),
} as const;

const manifest = {
  kind: 'assessment',
  name: 'Demo Assessments',
  description: 'Skills tests from the partner integration kit.',
  urls: {
    help_article: 'https://partner.example.com/',
    validate_token: 'https://partner.example.com/callbacks/validate_token',
    tests: 'https://partner.example.com/callbacks/tests',
    send_candidate: 'https://partner.example.com/callbacks/send_candidate',
  },
};
const partner = {
  ...manifest,
  inputs: [
    { kind: 'first_name', required: true },
    { kind: 'last_name', required: true },
    { kind: 'email', required: true },
  ],
  codename: CODENAME,
  company_id: ACME.companyId,
  secret: SECRET,
  created_at: AT,
  updated_at: AT,
};

const sentReport = {
  id: R1,
  codename: CODENAME,
  company_id: ACME.companyId,
  candidate_id: 17,
  test_id: '1',
  test_name: 'JavaScript',
  status: 'sent',
  score: null,
  completed_at: null,
  subtitle: null,
  properties: [],
  urls: {},
  created_at: AT,
  updated_at: AT,
};
const completion = {
  status: 'completed',
  score: '80%',
  completed_at: '2026-11-02T10:30:00Z',
  subtitle: '4 of 5 questions right',
  properties: [{ label: 'Time taken', value: '12 minutes' }],
  urls: { show: `https://partner.example.com/results/${R1}` },
};
const completedReport = { ...sentReport, ...completion, updated_at: '2026-11-02T10:30:01.000Z' };

const codenameParam = {
  name: 'codename',
  in: 'path',
  description: 'The partner\'s URL-friendly name, unique on the platform.',
  schema: Codename,
  example: CODENAME,
} as const;
const companyParam = {
  name: 'company_id',
  in: 'path',
  description: 'A company on the platform.',
  schema: IdDigits,
  example: String(ACME.companyId),
} as const;

const noToken = {
  name: 'no_token',
  summary: 'Without an API token',
  anonymous: true,
  status: 401,
  response: { error: 'Missing API token: send Authorization: Bearer <API_TOKEN>' },
};
const noSecret = {
  name: 'no_secret',
  summary: 'Without the partner secret',
  anonymous: true,
  status: 401,
  response: { error: 'Missing RT-PARTNER-SECRET header' },
};
const TOKEN_ERROR = { 401: error('Missing or unknown API token, or a token of another company than `company_id`.') } as const;
const SECRET_ERROR = { 401: error('Missing or wrong partner secret (a Bearer token is not accepted here).') } as const;

const PartnerEnvelope = z.object({ partner: Partner });
const PARTNER_PATH = '/api/p/{codename}/c/{company_id}/partner';

/** The API in the order the examples run (a partner is created, read, changed, deleted). */
export const PLATFORM_OPERATIONS: readonly ApiOperation[] = [
  {
    operationId: 'registerPartner',
    method: 'post',
    path: PARTNER_PATH,
    tags: ['Partner record'],
    summary: 'Register a partner, or replace its record (§3.1)',
    description:
      'Creates the partner record (201) and returns its `secret`, which authenticates the partner\'s report ' +
      'updates. The same company posting its own codename again replaces the record (200); the secret stays ' +
      'the same. `npm run register` posts scripts/partner-manifest.json here. See platform-contract.md §3.1.',
    security: ['apiToken'],
    parameters: [codenameParam, companyParam],
    requestBody: { schema: PartnerRequest, description: 'The partner record: kind, name, callback URLs, inputs.' },
    responses: {
      201: { description: 'Created.', schema: PartnerEnvelope },
      200: { description: 'Replaced (the company posted its own codename again).', schema: PartnerEnvelope },
      ...BODY_ERRORS,
      ...TOKEN_ERROR,
      409: error('The codename belongs to another company.'),
      422: error('An invalid field, or a codename that is not 2–64 lowercase letters, digits, "-" or "_".'),
    },
    examples: [
      { name: 'register', summary: 'Registers the kit\'s demo partner', body: manifest, status: 201, response: { partner } },
      {
        name: 'replace',
        summary: 'The same company posts its codename again',
        body: { ...manifest, description: 'Skills tests, now with SQL.' },
        status: 200,
        response: { partner: { ...partner, description: 'Skills tests, now with SQL.' } },
      },
      {
        name: 'invalid',
        summary: 'A kind the platform does not know',
        body: { ...manifest, kind: 'quiz' },
        status: 422,
        response: {
          error: 'kind Invalid option: expected one of "assessment"|"background_check"|"reference_check"',
          errors: { kind: ['Invalid option: expected one of "assessment"|"background_check"|"reference_check"'] },
        },
      },
      { ...noToken, body: manifest },
    ],
  },
  {
    operationId: 'readPartner',
    method: 'get',
    path: PARTNER_PATH,
    tags: ['Partner record'],
    summary: 'Read the partner record (§3.1)',
    description: 'Another company\'s partner answers as an unknown one. See platform-contract.md §3.1.',
    security: ['apiToken'],
    parameters: [codenameParam, companyParam],
    responses: {
      200: { description: 'The record.', schema: PartnerEnvelope },
      ...TOKEN_ERROR,
      404: error('No such partner for this company.'),
    },
    examples: [
      { name: 'read', summary: 'The registered record', status: 200, response: { partner } },
      { name: 'unknown', summary: 'A codename nobody registered', params: { codename: 'no-such-partner' }, status: 404, response: { error: 'Unknown partner' } },
      noToken,
    ],
  },
  {
    operationId: 'updatePartner',
    method: 'patch',
    path: PARTNER_PATH,
    tags: ['Partner record'],
    summary: 'Change fields of the partner record (§3.1)',
    description: 'Absent fields stay as they are; `urls` may name some of the four. See platform-contract.md §3.1.',
    security: ['apiToken'],
    parameters: [codenameParam, companyParam],
    requestBody: { schema: PartnerPatch, description: 'The fields to change.' },
    responses: {
      200: { description: 'The changed record.', schema: PartnerEnvelope },
      ...BODY_ERRORS,
      ...TOKEN_ERROR,
      404: error('No such partner for this company.'),
      422: error('An invalid field.'),
    },
    examples: [
      {
        name: 'rename',
        summary: 'A new display name',
        body: { name: 'Demo Skills Tests' },
        status: 200,
        response: { partner: { ...partner, name: 'Demo Skills Tests' } },
      },
      {
        name: 'invalid_url',
        summary: 'A callback URL that is not one',
        body: { urls: { tests: 'not a url' } },
        status: 422,
        response: { error: 'urls.tests must be an absolute http(s) URL', errors: { 'urls.tests': ['must be an absolute http(s) URL'] } },
      },
      { ...noToken, body: { name: 'Demo Skills Tests' } },
    ],
  },
  {
    operationId: 'deletePartner',
    method: 'delete',
    path: PARTNER_PATH,
    tags: ['Partner record'],
    summary: 'Remove the partner record (§3.1)',
    description: 'See platform-contract.md §3.1.',
    security: ['apiToken'],
    parameters: [codenameParam, companyParam],
    responses: {
      204: { description: 'Removed.' },
      ...TOKEN_ERROR,
      404: error('No such partner for this company.'),
    },
    examples: [noToken, { name: 'delete', summary: 'Removes the record', status: 204 }],
  },
  {
    operationId: 'updateReport',
    method: 'patch',
    path: '/api/p/{codename}/reports/{report_id}',
    tags: ['Reports'],
    summary: 'Update a report: status, score, links (§3.2)',
    description:
      'The partner reports progress on a report the platform sent it (send_candidate). Absent fields stay as they ' +
      'are; `urls` merge key by key (`cancel` is called by the platform, `show` is a results link). A report ' +
      'never moves from `completed`, `failed` or `canceled` back to `sent`; `subtitle` and `properties` are for ' +
      'assessment partners only. A score longer than 5 characters is stored and shown cut. See ' +
      'platform-contract.md §3.2 and §5.',
    security: ['partnerSecret'],
    parameters: [
      codenameParam,
      { name: 'report_id', in: 'path', description: 'The report id from send_candidate.', schema: ReportId, example: R1 },
    ],
    requestBody: { schema: AcceptedReportUpdate, description: 'The fields that changed.' },
    responses: {
      200: { description: 'The report as the platform now shows it.', schema: z.object({ report: Report }) },
      ...BODY_ERRORS,
      ...SECRET_ERROR,
      404: error('No such report, or a report of another partner.'),
      422: error('An invalid field, a field this partner\'s kind may not send, or a move back to `sent`.'),
    },
    examples: [
      { name: 'completed', summary: 'The candidate completed the test', body: completion, status: 200, response: { report: completedReport } },
      {
        name: 'invalid',
        summary: 'A results link that is not a URL',
        body: { urls: { show: 'not a url' } },
        status: 422,
        response: { error: 'urls.show must be an absolute http(s) URL', errors: { 'urls.show': ['must be an absolute http(s) URL'] } },
      },
      {
        name: 'unknown_report',
        summary: 'A report the platform never sent',
        params: { report_id: UNKNOWN_REPORT },
        body: { status: 'canceled' },
        status: 404,
        response: { error: 'Unknown report' },
      },
      { ...noSecret, body: { status: 'canceled' } },
    ],
  },
  {
    operationId: 'listCandidateReports',
    method: 'get',
    path: '/api/p/{codename}/c/{company_id}/candidates/{candidate_id}/reports',
    tags: ['Reports'],
    summary: 'The partner\'s reports on a candidate (§3.2)',
    description:
      'Only companies that integrated the partner can be asked about; any other company or candidate answers 404. ' +
      'See platform-contract.md §3.2.',
    security: ['partnerSecret'],
    parameters: [
      codenameParam,
      companyParam,
      { name: 'candidate_id', in: 'path', description: 'A candidate of the company.', schema: IdDigits, example: '17' },
    ],
    responses: {
      200: { description: 'This partner\'s reports on the candidate.', schema: z.object({ reports: z.array(Report) }) },
      ...SECRET_ERROR,
      404: error('Unknown candidate, or a company that did not integrate this partner.'),
    },
    examples: [
      { name: 'list', summary: 'Ada\'s report', status: 200, response: { reports: [completedReport] } },
      { name: 'unknown_candidate', summary: 'A candidate the company does not have', params: { candidate_id: '999' }, status: 404, response: { error: 'Unknown candidate' } },
      noSecret,
    ],
  },
];

const SERVER_DESCRIPTION = 'This mock platform';
let built: OpenApiDocument | undefined;

/**
 * The document the mock serves; `publicUrl` is where it is reached (its one server). Built once
 * (the operations' JSON Schemas are most of a mock's start-up time) and shared by every mock in the
 * process, each with its own server: change a copy, not the document.
 */
export function platformApiDocument(publicUrl: string): OpenApiDocument {
  built ??= buildDocument();
  return { ...built, servers: [{ url: publicUrl, description: SERVER_DESCRIPTION }] };
}

function buildDocument(): OpenApiDocument {
  return openApiDocument({
    info: {
      // Redoc shows the version after the title, in parentheses: "Mock platform: API for partners (1.0)".
      title: 'Mock platform: API for partners',
      version: '1.0',
      description:
        'What the recruiting platform exposes to partners, as the kit\'s bundled mock implements it: the partner ' +
        'record (platform-contract.md §3.1) and the reports API (§3.2). Errors are JSON objects with an `error` ' +
        'string, plus `errors` (field → messages) on validation failures. In the sandbox, company 1 (Acme Corp) has ' +
        `the API token \`${ACME.token}\`.`,
    },
    // Replaced by each mock's own: the key keeps its place in the document.
    servers: [{ url: 'http://127.0.0.1', description: SERVER_DESCRIPTION }],
    tags: [
      { name: 'Partner record', description: 'Registering and maintaining the partner (§3.1), with a personal API token.' },
      { name: 'Reports', description: 'Report updates from the partner (§3.2), with the partner secret.' },
    ],
    securitySchemes: {
      apiToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'A personal API token of a member of `company_id`, from the company settings.',
      },
      partnerSecret: {
        type: 'apiKey',
        in: 'header',
        name: PARTNER_SECRET_HEADER.toUpperCase(),
        description: 'The secret returned when the partner was registered.',
      },
    },
    operations: PLATFORM_OPERATIONS,
  });
}
