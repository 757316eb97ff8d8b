import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMockPlatform } from '../../src/mock-platform/server.js';
import { startMock, startPartner, type RunningPartner } from '../e2e/support.js';

/**
 * An address nobody serves, on either server: a browser (which asks for text/html) reads a page in
 * the server's own layout with a way back; an API client, `curl` or `fetch` (no Accept, JSON, or a
 * bare wildcard) keeps the JSON 404 it parses.
 */

/** What Chromium sends when it opens an address. */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

let partner: RunningPartner;
let mock: RunningMockPlatform;
beforeAll(async () => {
  [partner, mock] = await Promise.all([startPartner(), startMock()]);
});
afterAll(async () => {
  await Promise.all([partner?.close(), mock?.close()]);
});

describe.each([
  ['the partner', () => partner.url, '/no-such-page', 'What this server is'],
  ['the mock', () => mock.url, '/companies/1/no-such-page', 'Back to the sandbox'],
])('%s', (_name, url, path, wayBack) => {
  it('answers a browser with a 404 page naming the address, in its layout, with a way back', async () => {
    const res = await request(url()).get(path).set('accept', BROWSER);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<h1>\s*Not found\s*<\/h1>/);
    expect(res.text).toContain(`There is no page at ${path}.`);
    expect(res.text).toMatch(new RegExp(`<a href="/">${wayBack}</a>`));
    expect(res.text).toContain('<link rel="stylesheet" href="/assets/');
  });

  it.each([
    ['no Accept', undefined],
    ['JSON', 'application/json'],
    ['a bare wildcard (curl, fetch)', '*/*'],
    ['JSON before HTML', 'application/json, text/html'],
  ])('answers %s with the JSON 404', async (_case, accept) => {
    const req = request(url()).get(path);
    const res = await (accept === undefined ? req : req.set('accept', accept));
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: 'Not Found' });
  });

  it('escapes the address it names', async () => {
    const res = await request(url()).get('/%3Cscript%3Ealert(1)%3C%2Fscript%3E').set('accept', BROWSER);
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('<script>alert(1)');
    expect(res.text).toContain('&lt;script&gt;');
  });
});

it("the mock's known API paths keep their own answers for a browser", async () => {
  // A route that exists is not a 404 page: the partners API refuses a browser without a token as JSON.
  const res = await request(mock.url).get('/api/p/demo-assessments/c/1/partner').set('accept', BROWSER);
  expect(res.status).toBe(401);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
});
