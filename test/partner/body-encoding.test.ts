import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signVendorResult, VENDOR_SIGNATURE_HEADER } from '../../src/contract/vendor-signature.js';
import { ADMIN, flowHarness, sendBody, type FlowHarness } from '../invitations/support.js';

/**
 * A request body whose `Content-Encoding` is wrong — gzip over bytes that are not gzip, an encoding
 * nobody knows — is the client's mistake on the partner as on the mock: a 4xx on every kind of
 * route (the candidate's and the operator's forms, the callbacks, Greenhouse's endpoints, the
 * results endpoint), never a 500, and nothing stored.
 */

const SECRET = 'body-encoding-results-secret-0123456789abc';
const NOT_GZIP = Buffer.from('these bytes are neither gzip nor JSON');
const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
/** Sends the body's bytes as they are (supertest would serialise a Buffer by its content type). */
const asIs = (body: unknown) => body as string;

describe('a body with a wrong Content-Encoding, on the partner', () => {
  let h: FlowHarness;
  let token: string;
  let testId: number;
  beforeEach(async () => {
    h = await flowHarness({ env: { VENDOR_RESULTS_SECRET: SECRET } });
    const c = await h.customer('Acme', ['JavaScript fundamentals'], 3);
    token = c.token;
    testId = c.tests[0]!.id;
  });
  afterEach(() => h.close());

  const post = (path: string, type: string, encoding: string, headers: Record<string, string> = {}, body: Buffer = NOT_GZIP) =>
    h.http().post(path).set(headers).set('content-type', type).set('content-encoding', encoding).serialize(asIs).send(body);
  const invitations = async () => (await h.row('SELECT count(*) AS n FROM invitations'))!.n;

  it.each([
    ['gzip', 400],
    ['br', 400],
    ['x-unheard-of', 415],
  ])('a form with %s: the candidate page and the dashboard answer %i, as a page', async (encoding, status) => {
    const forms: [string, Record<string, string>][] = [
      ['/take', {}],
      [`/admin/reports/${sendBody(testId).report_id}/cancel`, { Authorization: basic(ADMIN.username, ADMIN.password), Origin: h.publicUrl }],
    ];
    for (const [path, headers] of forms) {
      const res = await post(path, 'application/x-www-form-urlencoded', encoding, headers);
      expect([path, res.status]).toEqual([path, status]);
      expect(res.headers['content-type']).toMatch(/html/);
      expect(res.text).toContain('The request could not be read.');
    }
  });

  it.each(['gzip', 'x-unheard-of'])('JSON declared %s: the callbacks and Greenhouse answer 4xx {"error"} and store nothing', async (encoding) => {
    const calls: [string, Record<string, string>][] = [
      ['/callbacks/validate_token', { Authorization: `Bearer ${token}` }],
      ['/callbacks/send_candidate', { Authorization: `Bearer ${token}` }],
      ['/greenhouse/send_test', { Authorization: basic(token) }],
      ['/greenhouse/response_error', { Authorization: basic(token) }],
    ];
    for (const [path, headers] of calls) {
      const res = await post(path, 'application/json', encoding, headers);
      // The partner's JSON reader takes the bytes as sent: these are not JSON.
      expect([path, res.status, res.body]).toEqual([path, 400, { error: 'Malformed JSON body' }]);
    }
    expect(await invitations()).toBe(0);
  });

  it('a signed result sent compressed: the results endpoint answers 415, and the report is unchanged', async () => {
    const body = sendBody(testId);
    await h.send(token, body).expect(201);
    const result = JSON.stringify({ status: 'completed', score: '87%' });
    for (const encoding of ['gzip', 'x-unheard-of']) {
      const res = await post(`/vendor/reports/${body.report_id}/result`, 'application/json', encoding, {
        [VENDOR_SIGNATURE_HEADER]: signVendorResult(SECRET, body.report_id, result),
      });
      expect([encoding, res.status, res.body]).toEqual([encoding, 415, { error: 'Content-Encoding is not supported: send the body uncompressed' }]);
    }
    expect(await h.row('SELECT status, score FROM invitations WHERE report_id = ?', body.report_id)).toEqual({ status: 'sent', score: null });
  });
});
