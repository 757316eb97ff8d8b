import SwaggerParser from '@apidevtools/swagger-parser';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument, type OpenApiDocument } from '../../src/contract/openapi/document.js';
import { ErrorBody } from '../../src/contract/schemas.js';
import { platformApiDocument } from '../../src/mock-platform/openapi/document.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { partnerApiDocument } from '../../src/partner/openapi.js';
import { partnerHarness } from '../support/partner.js';
import { startKitPartner, type KitPartner } from '../support/kit-partner.js';
import { operationsOf } from './support.js';

/**
 * Both OpenAPI documents are valid OpenAPI 3.1, are served where the README says, and cover every
 * route the partner serves to the platform.
 */

const documents: [string, () => OpenApiDocument][] = [
  ['the partner\'s callbacks', () => partnerApiDocument()],
  ['the platform\'s partners and reports API', () => platformApiDocument('http://127.0.0.1:4000')],
];

describe.each(documents)('%s', (_name, build) => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = build();
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('gives every operation an example answered 2xx, and every example a documented answer', () => {
    for (const { op } of operationsOf(build())) {
      expect(op['x-examples'].some((e) => e.status >= 200 && e.status < 300), `${op.operationId} has no 2xx example`).toBe(true);
      for (const e of op['x-examples']) expect(op.responses[String(e.status)], `${op.operationId}/${e.name}`).toBeDefined();
    }
  });
});

it('the validator refuses a broken document (the validity test above can fail)', async () => {
  const doc = structuredClone(partnerApiDocument()) as Record<string, unknown>;
  (doc.paths as Record<string, Record<string, Record<string, unknown>>>)['/callbacks/tests']!.get!.responses = 'none';
  await expect(SwaggerParser.validate(doc as never)).rejects.toThrow();
});

it('the builder refuses an example whose documented answer does not match its schema', () => {
  expect(() =>
    openApiDocument({
      info: { title: 't', version: '1', description: 'd' },
      operations: [
        {
          operationId: 'x',
          method: 'get',
          path: '/x',
          summary: 's',
          description: 'd',
          tags: [],
          responses: { 404: { description: 'd', schema: ErrorBody } },
          examples: [{ name: 'wrong', summary: 's', status: 404, response: { message: 'Not Found' } }],
        },
      ],
    }),
  ).toThrow(/does not match the 404 schema/);
});

describe('served', () => {
  let partner: KitPartner;
  let mock: RunningMockPlatform;
  beforeAll(async () => {
    [partner, mock] = await Promise.all([startKitPartner(), startMockPlatform({ port: 0, logLevel: 'silent' })]);
  });
  afterAll(async () => {
    await Promise.all([partner?.close(), mock?.close()]);
  });

  it('the partner serves its document at /openapi.json, without credentials', async () => {
    const res = await request(`${partner.url}/openapi.json`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    // The app-wide security headers apply here too.
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(await res.body.json()).toEqual(JSON.parse(JSON.stringify(partnerApiDocument())));
  });

  it('the mock serves its document at /openapi.json, naming itself as the server', async () => {
    const res = await request(`${mock.url}/openapi.json`);
    expect(res.statusCode).toBe(200);
    const doc = (await res.body.json()) as OpenApiDocument;
    expect(doc).toEqual(JSON.parse(JSON.stringify(platformApiDocument(mock.url))));
    expect(doc.servers).toEqual([{ url: mock.url, description: 'This mock platform' }]);
  });
});

it('documents every route the partner app serves to the platforms (callbacks, webhooks, Greenhouse, Ashby, HiBob, vendor endpoints)', async () => {
  const harness = await partnerHarness();
  try {
    interface Layer {
      route?: { path: string; methods: Record<string, boolean> };
      handle?: { stack?: Layer[] };
    }
    // A platform's routes come in a router of their own, mounted at the root (app.ts).
    const routesOf = (stack: Layer[]): Layer[] => stack.flatMap((layer) => (layer.handle?.stack ? routesOf(layer.handle.stack) : [layer]));
    const stack = routesOf((harness.app as unknown as { router: { stack: Layer[] } }).router.stack);
    const normalise = (p: string) => p.replace(/:\w+/g, '{}').replace(/\{\w+\}/g, '{}');
    const served = stack
      .filter((layer) => layer.route && /^\/(callbacks|webhooks|greenhouse|ashby|hibob|vendor)\//.test(layer.route.path))
      .flatMap((layer) => Object.keys(layer.route!.methods).map((m) => `${m.toUpperCase()} ${normalise(layer.route!.path)}`));
    const documented = operationsOf(partnerApiDocument()).map(({ path, method }) => `${method.toUpperCase()} ${normalise(path)}`);
    expect(served.length).toBeGreaterThanOrEqual(10);
    // A route missing here: add its operation to PARTNER_OPERATIONS in src/partner/openapi.ts.
    expect(served.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((r) => !served.includes(r))).toEqual([]);
  } finally {
    await harness.close();
  }
});
