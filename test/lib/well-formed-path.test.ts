import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowHarness } from '../invitations/support.js';
import { mockPlatform } from '../mock-platform/support.js';

const MALFORMED = { error: 'Malformed percent-encoding in the URL path' };

describe('a URL path whose percent-encoding does not decode', () => {
  let partner: Awaited<ReturnType<typeof flowHarness>>;
  const mock = mockPlatform();
  beforeAll(async () => {
    partner = await flowHarness();
  });
  afterAll(() => partner.close());

  it.each([
    ['/%c0'],
    ['/callbacks/%c0'],
    ['/admin/%c0'],
    ['/admin/reports/%c0/decide'],
    ['/take%zz'],
    ['/assets/%c0%ae%c0%ae/x'],
    ['/assets/partner.css%'],
    ['/assets/%E0%A4%A'],
  ])('when the partner is asked for %s, then it answers 400 in the contract shape', async (path) => {
    for (const method of ['get', 'post'] as const) {
      const res = await partner.http()[method](path);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body).toEqual(MALFORMED);
    }
  });

  it.each([
    ['/companies/%c0'],
    ['/companies/1/candidates/%c0'],
    ['/%zz'],
    ['/api/p/%c0/c/1/partner'],
    ['/careers/%c0'],
    ['/assets/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd'],
    ['/assets/sandbox.css%'],
    ['/assets/%E0%A4%A'],
  ])('when the mock platform is asked for %s, then it answers 400 in the contract shape, not 500', async (path) => {
    for (const method of ['get', 'post'] as const) {
      const res = await request(mock.app)[method](path);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body).toEqual(MALFORMED);
    }
  });

  it('when the percent-encoding decodes, then both servers answer as they always did', async () => {
    expect((await request(mock.app).get('/companies/%31')).status).toBe(200);
    expect((await request(mock.app).get('/assets/sandbox%2Ecss')).status).toBe(200);
    expect((await partner.http().get('/assets/partner%2Ecss')).status).toBe(200);
  });
});
