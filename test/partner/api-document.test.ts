import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerApiDocument } from '../../src/partner/openapi.js';
import { kitPlatforms } from '../../src/partner/platforms/index.js';
import { partnerHarness, type PartnerHarness } from '../support/partner.js';

/**
 * The API document (`GET /openapi.json`) depends only on the platforms the partner speaks, fixed at
 * start: it is built on its first request and kept, where building it again would allocate
 * megabytes on every request (docs/performance.md, "What the platforms cost").
 */
describe('the API document', () => {
  let h: PartnerHarness;
  beforeAll(async () => {
    h = await partnerHarness();
  });
  afterAll(() => h.close());

  it('when asked for twice, then it answers the same document both times', async () => {
    const first = await request(h.app).get('/openapi.json');
    const second = await request(h.app).get('/openapi.json');
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect((first.body as { openapi: string }).openapi).toMatch(/^3\./);
  });

  it('when built again for the same platforms, then the one already built is given', () => {
    expect(partnerApiDocument(kitPlatforms())).toBe(partnerApiDocument(kitPlatforms()));
  });
});
