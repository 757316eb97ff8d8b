import { z } from 'zod';
import { ReportId } from '../contract/schemas.js';
import { openApiDocument, type ApiOperation, type OpenApiDocument } from '../contract/openapi/document.js';
import { error, EXAMPLE_TIME_MS, EXAMPLE_VENDOR_RESULTS_SECRET, R5, reportIdParam } from './api-examples.js';
import { ResultBody } from './results/routes.js';
import { VENDOR_SIGNATURE_HEADER, signVendorResult } from '../contract/vendor-signature.js';
import { kitPlatforms } from './platforms/index.js';
import type { PlatformApi, PlatformDefinition } from './platforms/platform.js';

export { EXAMPLE_COMPANY_ID, EXAMPLE_GREENHOUSE_INTERVIEW, EXAMPLE_TIME_MS, EXAMPLE_VENDOR_RESULTS_SECRET, EXAMPLE_WEBHOOK_SECRET } from './api-examples.js';

/**
 * The partner's HTTP API as an OpenAPI 3.1 document, served unauthenticated at `GET /openapi.json`:
 * what each platform calls (its `PlatformDefinition.api`: the hiring platform's callbacks and
 * webhooks, Greenhouse's Assessment Partner API…) and the kit's own routes (the vendor's results
 * endpoint), with the statuses and bodies the server answers. Every operation is listed once, next
 * to the routes it documents; its schemas are the ones the routes validate with. test/openapi/
 * sends every example to a running partner and checks each answer against its documented schema,
 * so a route that changes its answer fails there until its operation is changed with it.
 *
 * Adding a route of the kit's: add its operation to KIT_OPERATIONS (its own tag, and a security
 * scheme if it authenticates otherwise), with at least one example answered 2xx. A platform's
 * routes go in its own `api` (docs/platforms.md).
 */

const vendorProgress = { status: 'opened' };

/** The kit's own routes, after the platforms' (their examples report on reports the platforms' created). */
export const KIT_OPERATIONS: readonly ApiOperation[] = [
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
];

const KIT_TAGS = [
  { name: 'Vendor', description: 'Called by the vendor\'s own product, signed with VENDOR_RESULTS_SECRET (docs/results-endpoint.md).' },
];

/** Every operation of the document, in the order the examples run: each platform's, then the kit's. */
export function partnerOperations(apis: readonly PlatformApi[]): ApiOperation[] {
  return [...apis.flatMap((api) => api.operations), ...KIT_OPERATIONS];
}

const built = new Map<string, OpenApiDocument>();

/**
 * The document `GET /openapi.json` serves for the platforms the partner speaks (the kit's when not
 * given), built once per set.
 */
export function partnerApiDocument(platforms: readonly PlatformDefinition[] = kitPlatforms()): OpenApiDocument {
  const key = platforms.map((p) => p.name).join(',');
  const known = built.get(key);
  if (known) return known;
  const apis = platforms.flatMap((p) => (p.api ? [p.api] : []));
  const labels = platforms.map((p) => p.label).join(', ');
  const document = openApiDocument({
    info: {
      title: 'Partner server',
      version: '1',
      description:
        `What a partner serves to the recruiting platforms it speaks (${labels}): the calls each makes, as the partner ` +
        'integration kit implements them (docs/platforms.md), and the endpoint the vendor\'s own product posts results to. ' +
        'A vendor who replaces the kit must answer with these statuses; `npm run conformance` checks a running server.',
    },
    tags: [...apis.flatMap((api) => api.tags), ...KIT_TAGS],
    securitySchemes: Object.assign({}, ...apis.map((api) => api.securitySchemes ?? {})),
    operations: partnerOperations(apis),
  });
  built.set(key, document);
  return document;
}
