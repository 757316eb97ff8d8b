import { z } from 'zod';
import { PARTNER_SECRET_HEADER } from '../../contract/decisions.js';
import { openApiDocument, type ApiOperation, type OpenApiDocument } from '../../contract/openapi/document.js';
import { Codename, ErrorBody, IdDigits, Partner, PartnerPatch, PartnerRequest, Report, ReportId } from '../../contract/schemas.js';
import { ApplyQuery, OffersQuery } from '../careers/api.js';
import { ApplicationBody } from '../careers/application.js';
import { ApplicationCandidate } from '../careers/applications.js';
import { MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES } from '../careers/decisions.js';
import { Offer } from '../careers/offer-json.js';
import { mockPlatforms } from '../platforms/index.js';
import type { PlatformPlugin } from '../platforms/plugin.js';
import { AcceptedReportUpdate } from '../reports/rules.js';
import { SEED_API_TOKENS } from '../seed.js';

/**
 * The platform's API for partners as the mock implements it — the partner record (§3.1), the
 * reports API (§3.2) and the careers site API (§7) — as an OpenAPI 3.1 document: served at
 * `GET /openapi.json` and rendered by Redoc at `/api-reference`. Each operation is listed once, here, with the schemas its route
 * validates with; test/openapi/ sends every example to a running mock and checks each answer
 * against its documented schema.
 *
 * The examples are the sandbox's: company 1 (Acme Corp) with its API token, the kit's codename,
 * and its candidate 17 (Ada Lovelace), to whom report R1 was sent; its careers site `acme`, with the
 * seeded offers (careers/seed.ts).
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

// --- §7 Careers site ---------------------------------------------------------------------------

/** Where the examples' offers live: the sandbox's address (`npm run mock`); a mock elsewhere writes its own. */
const SITE = 'http://127.0.0.1:4000/careers/acme';
const careersTranslation = (texts: { title: string; description?: string }) => ({
  title: texts.title,
  description: texts.description ?? '',
  highlight: '',
  requirements: '',
  sharing_image: '',
  sharing_title: '',
  sharing_description: '',
  locations_question: '',
});
const offerUrls = (slug: string) => ({ careers_url: `${SITE}/offers/${slug}`, careers_apply_url: `${SITE}/offers/${slug}/apply` });
const openApplication = {
  id: 105,
  guid: 'w9n3b',
  slug: 'open-application',
  position: 7,
  company_name: 'Acme Corp',
  title: 'Open application',
  department: null,
  status: 'published',
  ...offerUrls('open-application'),
  mailbox_email: null,
  created_at: '2026-09-02 09:00:00 UTC',
  published_at: '2026-09-02 09:00:00 UTC',
  updated_at: '2026-10-31 09:00:00 UTC',
  close_at: null,
  description: null,
  requirements: null,
  location: '',
  city: '',
  country: '',
  country_code: '',
  state_code: '',
  postal_code: '',
  remote: false,
  on_site: false,
  hybrid: false,
  employment_type_code: 'other',
  category_code: 'other',
  experience_code: 'not_applicable',
  education_code: 'unspecified',
  min_hours: null,
  max_hours: null,
  tags: [],
  translations: { en: careersTranslation({ title: 'Open application' }) },
  open_questions: [],
  options_cover_letter: 'optional',
  options_photo: 'off',
  options_cv: 'optional',
  options_phone: 'optional',
};
const productDesigner = {
  ...openApplication,
  id: 103,
  guid: 'p8d4w',
  slug: 'product-designer',
  position: 2,
  title: 'Product Designer',
  department: 'Design',
  ...offerUrls('product-designer'),
  created_at: '2026-10-24 09:00:00 UTC',
  published_at: '2026-10-27 09:00:00 UTC',
  description: '<p>Shape how dispatchers plan a day of deliveries.</p>',
  location: 'Amsterdam, Netherlands',
  city: 'Amsterdam',
  country: 'Netherlands',
  country_code: 'NL',
  state_code: 'NH',
  postal_code: '1015 BS',
  on_site: true,
  employment_type_code: 'parttime_permanent',
  category_code: 'design',
  experience_code: 'mid_level',
  education_code: 'bachelor_degree',
  min_hours: 24,
  max_hours: 32,
  tags: ['Remote-friendly'],
  translations: {
    en: careersTranslation({ title: 'Product Designer', description: '<p>Shape how dispatchers plan a day of deliveries.</p>' }),
    de: careersTranslation({ title: 'Produktdesigner (m/w/d)', description: '<p>Gestalte, wie Disponenten ihren Tag planen.</p>' }),
  },
  open_questions: [
    {
      id: 1031,
      position: 1,
      kind: 'file',
      required: true,
      body: 'Your portfolio (PDF)',
      options: {},
      translations: { en: { body: 'Your portfolio (PDF)' } },
      open_question_options: [],
    },
    {
      id: 1032,
      position: 2,
      kind: 'string',
      required: false,
      body: 'Link to your portfolio site',
      options: {},
      translations: { en: { body: 'Link to your portfolio site' } },
      open_question_options: [],
    },
  ],
  locations: [
    {
      id: 11,
      name: 'Amsterdam HQ',
      street: 'Herengracht 100',
      city: 'Amsterdam',
      postal_code: '1015 BS',
      state: 'North Holland',
      state_code: 'NH',
      country: 'Netherlands',
      country_code: 'NL',
    },
  ],
  min_hours_per_week: '24',
  max_hours_per_week: '32',
};
const brandDesigner = {
  ...openApplication,
  id: 109,
  guid: 'b5r1d',
  slug: 'brand-designer',
  position: 6,
  title: 'Brand Designer',
  department: 'Design',
  ...offerUrls('brand-designer'),
  created_at: '2026-10-06 09:00:00 UTC',
  published_at: '2026-10-07 09:00:00 UTC',
  description: '<p>Give Acme a look that fits a logistics company people like.</p>',
  location: 'Remote',
  remote: true,
  employment_type_code: 'freelance',
  category_code: 'design',
  experience_code: 'senior_level',
  min_hours: 16,
  max_hours: 24,
  tags: ['Remote-friendly'],
  translations: {
    en: careersTranslation({ title: 'Brand Designer', description: '<p>Give Acme a look that fits a logistics company people like.</p>' }),
  },
  options_phone: 'off',
};

const subdomainParam = {
  name: 'subdomain',
  in: 'path',
  description: 'The company\'s careers site.',
  schema: z.string(),
  example: 'acme',
} as const;
const slugParam = {
  name: 'slug',
  in: 'path',
  description: 'A published offer of the company.',
  schema: z.string(),
  example: 'open-application',
} as const;
const NOT_FOUND = { error: 'Not Found' };
const careersNotFound = (what: string) => ({ description: `${what}, declared as \`text/plain\` (§8.2).`, schema: ErrorBody, contentType: 'text/plain' });
const unknownCompany = { name: 'unknown_company', summary: 'A careers site nobody has', params: { subdomain: 'no-such-company' }, status: 404, response: NOT_FOUND };

const adaApplies = {
  candidate: {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    cv: { name: 'cv.txt', content_type: 'text/plain', data: Buffer.from('Ada Lovelace: analyst, programmer.').toString('base64') },
  },
};
const adaApplied = {
  id: 31,
  name: 'Ada Lovelace',
  emails: ['ada@example.com'],
  phones: [],
  source: 'career_site',
  created_at: '2026-11-01 09:00:00 UTC',
  updated_at: '2026-11-01 09:00:00 UTC',
  placements: [{ id: 4, offer_id: 105, offer_slug: 'open-application', location_ids: [] }],
  open_question_answers: [],
  cv: { id: 1, name: 'cv.txt', content_type: 'text/plain', size: 34, status: 'stored' },
};

const CAREERS_OPERATIONS: readonly ApiOperation[] = [
  {
    operationId: 'listOffers',
    method: 'get',
    path: '/careers/{subdomain}/api/offers',
    tags: ['Careers site'],
    summary: 'The published offers of a careers site (§7.1, §7.5)',
    description:
      'Public: no credentials, and open to pages on other origins (`Access-Control-Allow-Origin: *`). Newest published ' +
      'first; drafts and archived offers are not listed. `department` and `tag` match names case-insensitively and ' +
      'combine; an empty one (or spaces) is no filter. An offer lacking a location, salary, cover image, sharing texts, location ' +
      'question or weekly hours leaves those keys out (src/mock-platform/careers/README.md, "Offer keys").',
    parameters: [
      subdomainParam,
      { name: 'department', in: 'query', description: 'Only offers of this department (its name).', schema: OffersQuery.shape.department, example: 'Design' },
      { name: 'tag', in: 'query', description: 'Only offers with this tag (its name).', schema: OffersQuery.shape.tag, example: 'Remote-friendly' },
    ],
    responses: {
      200: { description: 'The offers.', schema: z.object({ offers: z.array(Offer) }) },
      404: careersNotFound('No such careers site'),
      422: error('A filter longer than 200 characters, or sent twice.'),
    },
    examples: [
      {
        name: 'design',
        summary: 'The Design department\'s offers',
        params: { department: 'Design' },
        status: 200,
        response: { offers: [productDesigner, brandDesigner] },
      },
      {
        name: 'too_long',
        summary: 'A filter longer than 200 characters',
        params: { tag: 'x'.repeat(201) },
        status: 422,
        response: { error: 'tag Too big: expected string to have <=200 characters', errors: { tag: ['Too big: expected string to have <=200 characters'] } },
      },
      unknownCompany,
    ],
  },
  {
    operationId: 'readOffer',
    method: 'get',
    path: '/careers/{subdomain}/api/offers/{slug}',
    tags: ['Careers site'],
    summary: 'One published offer, with its questions (§7.1, §7.3)',
    description: 'A draft or archived offer answers as an unknown one. Public, like the list.',
    parameters: [subdomainParam, slugParam],
    responses: {
      200: { description: 'The offer.', schema: z.object({ offer: Offer }) },
      404: careersNotFound('No such careers site, or no published offer of this slug'),
    },
    examples: [
      { name: 'offer', summary: 'The open application', status: 200, response: { offer: openApplication } },
      { name: 'draft', summary: 'A draft offer', params: { slug: 'marketing-intern' }, status: 404, response: NOT_FOUND },
      unknownCompany,
    ],
  },
  {
    operationId: 'applyForOffer',
    method: 'post',
    path: '/careers/{subdomain}/api/offers/{slug}/candidates',
    tags: ['Careers site'],
    summary: 'Apply for an offer, with the answers to its questions (§7.4, §7.6)',
    description:
      'Creates the candidate, assigned to the offer, with its answers and files; the platform e-mails the ' +
      'candidate and sends the `new_candidate` and `candidate_assigned` webhooks. The body is JSON, files ' +
      'base64-encoded in `{name, content_type, data}`, or multipart/form-data with the same fields as bracketed ' +
      'names (`candidate[name]`, `candidate[open_question_answers_attributes][0][content]`) and files as parts. ' +
      'The offer\'s `options_*` settings make `phone`, `cover_letter`, `cv` and `photo` required, optional or ' +
      'ignored (`off`); its questions say which answers are required and what each takes. A blank value (`null`, ' +
      '`""`, spaces, an empty list) counts as not sent. Every problem is reported at once (`errors` names ' +
      '`candidate.<field>` and `open_questions.<id>`), and a refused application leaves nothing behind. With ' +
      '`async=true` every file is stored before the answer (`"status": "stored"`); without it the files are ' +
      '`"processing"` and stored right after. See src/mock-platform/careers/README.md.',
    parameters: [
      subdomainParam,
      slugParam,
      {
        name: 'async',
        in: 'query',
        description: '`true` (or `1`): store the files before answering.',
        schema: ApplyQuery.shape.async,
        example: 'true',
      },
    ],
    requestBody: {
      schema: ApplicationBody,
      contentTypes: ['application/json', 'multipart/form-data'],
      description: 'The candidate and the answers.',
    },
    responses: {
      201: { description: 'The candidate as recorded.', schema: z.object({ candidate: ApplicationCandidate }) },
      400: error('A body that is not well-formed JSON, or not an object.'),
      404: careersNotFound('No such careers site, or no published offer of this slug'),
      413: error(`A file larger than ${MAX_UPLOAD_BYTES / (1024 * 1024)} MB, more than ${MAX_UPLOAD_FILES} files, or a body too large.`),
      415: error('A body that is neither JSON nor multipart/form-data.'),
      422: error('An invalid or missing field or answer, each named in `errors`.'),
    },
    examples: [
      { name: 'apply', summary: 'Ada applies with her CV', params: { async: 'true' }, body: adaApplies, status: 201, response: { candidate: adaApplied } },
      {
        name: 'invalid',
        summary: 'A blank name and an e-mail address that is not one',
        body: { candidate: { name: '  ', email: 'ada at example.com' } },
        status: 422,
        response: {
          error: 'name is required; email must be a valid e-mail address',
          errors: { 'candidate.name': ['is required'], 'candidate.email': ['must be a valid e-mail address'] },
        },
      },
      { name: 'unknown_offer', summary: 'An archived offer', params: { slug: 'frontend-engineer' }, body: adaApplies, status: 404, response: NOT_FOUND },
    ],
  },
];

/** The API in the order the examples run (a partner is created, read, changed, deleted; then the careers site). */
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
  ...CAREERS_OPERATIONS,
];

const SERVER_DESCRIPTION = 'This mock platform';
/** The document, by the plugins whose operations it lists (most processes build one). */
const built = new Map<string, OpenApiDocument>();

/**
 * The document the mock serves; `publicUrl` is where it is reached (its one server), `platforms`
 * the plugins whose operations it adds (the registry's by default). Built once per list of plugins
 * (the operations' JSON Schemas are most of a mock's start-up time) and shared by every mock in the
 * process, each with its own server: change a copy, not the document.
 */
export function platformApiDocument(publicUrl: string, platforms: readonly PlatformPlugin[] = mockPlatforms()): OpenApiDocument {
  const key = platforms.map((p) => p.name).join(',');
  let document = built.get(key);
  if (!document) built.set(key, (document = buildDocument(platforms)));
  return { ...document, servers: [{ url: publicUrl, description: SERVER_DESCRIPTION }] };
}

function buildDocument(platforms: readonly PlatformPlugin[]): OpenApiDocument {
  return openApiDocument({
    info: {
      // Redoc shows the version after the title, in parentheses: "Mock platform: API for partners (1.0)".
      title: 'Mock platform: API for partners',
      version: '1.0',
      description:
        'What the recruiting platform exposes to partners, as the kit\'s bundled mock implements it: the partner ' +
        'record (platform-contract.md §3.1), the reports API (§3.2) and each company\'s careers site API (§7). Errors are JSON objects with an `error` ' +
        'string, plus `errors` (field → messages) on validation failures. In the sandbox, company 1 (Acme Corp) has ' +
        `the API token \`${ACME.token}\`.`,
    },
    // Replaced by each mock's own: the key keeps its place in the document.
    servers: [{ url: 'http://127.0.0.1', description: SERVER_DESCRIPTION }],
    tags: [
      { name: 'Partner record', description: 'Registering and maintaining the partner (§3.1), with a personal API token.' },
      { name: 'Reports', description: 'Report updates from the partner (§3.2), with the partner secret.' },
      { name: 'Careers site', description: 'Each company\'s public careers site: its offers and applications (§7), without credentials.' },
      ...platforms.flatMap((p) => p.api?.tags ?? []),
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
      ...Object.assign({}, ...platforms.map((p) => p.api?.securitySchemes ?? {})),
    },
    operations: [...PLATFORM_OPERATIONS, ...platforms.flatMap((p) => p.api?.operations ?? [])],
  });
}
