import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { careersHarness, type CareersHarness } from '../careers/harness.js';
import { ACME, integrate, mockPlatform, register, send, stubPartner, type StubPartner } from './support.js';

/**
 * A request body whose `Content-Encoding` is wrong — gzip over a body that is not gzip, an encoding
 * nobody knows, a JSON body sent compressed — is the client's mistake: a 4xx on every path, a page
 * on the sandbox's pages and `{"error"}` on its APIs, never a 500.
 */

let partner: StubPartner;
let platform: ReturnType<typeof mockPlatform>;
let secret: string;
beforeEach(async () => {
  partner = await stubPartner();
  platform = mockPlatform();
  secret = await register(platform.app, 'skill-check', partner.urls);
});
afterEach(() => partner.close());

const NOT_GZIP = Buffer.from('name=Grace+Hopper&email=grace%40example.com');

/** Sends the body's bytes as they are (supertest would serialise a Buffer by its content type). */
const asIs = (body: unknown) => body as string;

/** A POST with `body` as it is, declared as `type` and `encoding`. */
const post = (path: string, type: string, encoding: string, body: Buffer | string) =>
  request(platform.app).post(path).set('content-type', type).set('content-encoding', encoding).serialize(asIs).send(Buffer.from(body));

describe('a form (the sandbox pages)', () => {
  const PAGES = [`/companies/${ACME.id}/candidates`, '/admin/calls/clear', '/greenhouse/companies/1/partner', '/no-such-page'];

  it.each(PAGES)('%s: gzip over a body that is not gzip answers 400, as a page that says so', async (path) => {
    const res = await post(path, 'application/x-www-form-urlencoded', 'gzip', NOT_GZIP);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/html/);
    expect(res.text).toContain('The body does not decode as its Content-Encoding (gzip) says');
  });

  it.each(PAGES)('%s: an encoding nobody knows answers 415, naming it', async (path) => {
    const res = await post(path, 'application/x-www-form-urlencoded', 'x-unheard-of', NOT_GZIP);
    expect(res.status).toBe(415);
    expect(res.text).toContain('Content-Encoding &quot;x-unheard-of&quot; is not supported');
  });

  it('deflate and br over a body that is neither answer 400 too', async () => {
    for (const encoding of ['deflate', 'br']) {
      expect((await post('/admin/calls/clear', 'application/x-www-form-urlencoded', encoding, NOT_GZIP)).status).toBe(400);
    }
  });

  it('a form that is gzip indeed is read: the candidate is added', async () => {
    const res = await post(`/companies/${ACME.id}/candidates`, 'application/x-www-form-urlencoded', 'gzip', gzipSync(NOT_GZIP));
    expect(res.status).toBe(303);
    const page = await request(platform.app).get(`/companies/${ACME.id}`).expect(200);
    expect(page.text).toContain('Grace Hopper');
  });

  it('a form too large, or in another charset, is a 413 or a 415 page, not a 500', async () => {
    const big = await request(platform.app).post('/admin/calls/clear').type('form').send(`x=${'a'.repeat(40 * 1024)}`);
    expect(big.status).toBe(413);
    expect(big.text).toContain('The form is too large');
    const latin1 = await request(platform.app).post('/admin/calls/clear').set('content-type', 'application/x-www-form-urlencoded; charset=latin1').send('x=1');
    expect(latin1.status).toBe(415);
  });

  it('on an API path, the same body is a 400 in the JSON error shape', async () => {
    const res = await post('/api/p/no-such-route', 'application/x-www-form-urlencoded', 'gzip', NOT_GZIP);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'The body does not decode as its Content-Encoding (gzip) says' });
  });
});

describe('a JSON body (the APIs): the mock reads bodies uncompressed, and says so', () => {
  const JSON_BODY = JSON.stringify({ endpoint: 'reports.update', status: 503 });

  it.each([
    ['gzip over a body that is not gzip', 'gzip', Buffer.from(JSON_BODY)],
    ['gzip indeed', 'gzip', gzipSync(JSON_BODY)],
    ['an encoding nobody knows', 'x-unheard-of', Buffer.from(JSON_BODY)],
  ])('%s: 415 {"error"} on every JSON endpoint, and nothing is done', async (_what, encoding, body) => {
    const coding = JSON.stringify(encoding);
    const expected = { error: `Content-Encoding ${coding} is not supported: send the body uncompressed` };
    await integrate(platform.app, ACME.id, 'skill-check');
    const report = await send(platform.app, 'skill-check');
    const validations = partner.received.length;
    const calls: [string, string, Record<string, string>][] = [
      ['POST', '/_mock/faults', {}],
      ['POST', `/api/marketplace/c/${ACME.id}/partners/skill-check/integration`, {}],
      ['POST', `/api/p/skill-check/c/${ACME.id}/partner`, { authorization: `Bearer ${ACME.token}` }],
      ['PATCH', `/api/p/skill-check/reports/${report.id}`, { 'rt-partner-secret': secret }],
      ['POST', `/api/pipeline/c/${ACME.id}/candidates`, {}],
    ];
    for (const [method, path, headers] of calls) {
      const agent = request(platform.app);
      const res = await (method === 'PATCH' ? agent.patch(path) : agent.post(path))
        .set(headers)
        .set('content-type', 'application/json')
        .set('content-encoding', encoding)
        .serialize(asIs)
        .send(body);
      expect([path, res.status, res.body]).toEqual([path, 415, expected]);
    }
    // Nothing was armed, integrated or changed.
    expect((await request(platform.app).get('/_mock/faults').expect(200)).body.faults).toEqual([]);
    expect(partner.received).toHaveLength(validations);
    // The partner's refused call is in the call history, as every call it makes is.
    const logged = await request(platform.app).get('/_mock/calls').query({ endpoint: 'reports.update' }).expect(200);
    expect(logged.body.calls.map((c: { response_status: number }) => c.response_status)).toEqual([415]);
  });

  it('a body declared identity is read as before', async () => {
    const res = await request(platform.app).post('/_mock/faults').set('content-type', 'application/json').set('content-encoding', 'identity').send(JSON_BODY);
    expect(res.status).toBe(201);
  });
});

describe('the careers site (JSON and multipart)', () => {
  let careers: CareersHarness;
  afterEach(() => careers?.close());

  it('a compressed application answers 415 {"error"}, whichever its type, and adds no one', async () => {
    careers = careersHarness();
    const path = '/careers/acme/api/offers/senior-backend-engineer/candidates';
    const before = careers.count('candidates');
    for (const type of ['application/json', 'multipart/form-data; boundary=x']) {
      const res = await request(careers.app).post(path).set('content-type', type).set('content-encoding', 'gzip').serialize(asIs).send(Buffer.from('{"candidate": {}}'));
      expect([type, res.status, res.body]).toEqual([type, 415, { error: 'Content-Encoding "gzip" is not supported: send the body uncompressed' }]);
    }
    expect(careers.count('candidates')).toBe(before);
  });
});
