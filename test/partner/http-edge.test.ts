import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, candidateBody, partnerHarness, type PartnerHarness } from '../support/partner.js';
import { ON_POSTGRES } from '../support/database.js';

describe('HTTP edge: every client mistake is a 4xx in the contract shape', () => {
  let h: PartnerHarness;
  let c: Awaited<ReturnType<PartnerHarness['customer']>>;
  beforeEach(async () => {
    h = await partnerHarness({ bodyLimitBytes: 2048 });
    c = await h.customer('Acme', ['JS'], 3);
  });
  afterEach(() => h.close());

  const post = (path: string) => request(h.app).post(path).set(bearer(c.token));
  const count = async () => (await h.row('SELECT count(*) AS n FROM invitations'))!.n;

  it('when a known path is asked with a method it does not take, then it answers 405 with Allow; an unknown path stays 404', async () => {
    const wrong = await request(h.app).delete('/callbacks/send_candidate').set(bearer(c.token));
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('POST');
    expect(wrong.body).toEqual({ error: 'DELETE is not allowed here: use POST' });
    const health = await request(h.app).post('/healthz');
    expect(health.status).toBe(405);
    expect(health.headers.allow).toBe('GET, HEAD');
    await request(h.app).put('/callbacks/reports/5e1f0c2a-0000-4000-8000-000000000001/cancel').set(bearer(c.token)).expect(405).expect('allow', 'POST');
    await request(h.app).delete('/callbacks/tests').set(bearer(c.token)).expect(405).expect('allow', 'GET, HEAD');
    expect((await request(h.app).post('/no-such-path')).body).toEqual({ error: 'Not Found' });
    expect(await count()).toBe(0);
  });

  it('when the JSON is malformed, then it answers 400 {"error"} without a stack trace', async () => {
    const res = await post('/callbacks/send_candidate').set('content-type', 'application/json').send('{"first_name": "Ada",');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Malformed JSON body' });
    expect(res.text).not.toMatch(/at .*\.(js|ts):\d+/);
  });

  it('when the body is over the limit, then it answers 413 and stores nothing', async () => {
    const res = await post('/callbacks/send_candidate').send(candidateBody({ first_name: 'x'.repeat(5000) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'Request body too large' });
    expect(await count()).toBe(0);
  });

  it('when a chunked body (no Content-Length) grows over the limit, then it answers 413', async () => {
    const server = h.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { port } = server.address() as AddressInfo;
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          { port, method: 'POST', path: '/callbacks/send_candidate', headers: { ...bearer(c.token), 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.write('{"first_name": "');
        for (let i = 0; i < 10; i++) req.write('x'.repeat(500));
        req.end('"}');
      });
      expect(status).toBe(413);
      expect(await count()).toBe(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['application/json; charset=latin1']])(
    'when the body is declared as %s, then it answers 415',
    async (type) => {
      const res = await post('/callbacks/send_candidate').set('content-type', type).send('{"a":1}');
      expect(res.status).toBe(415);
      expect(res.body.error).toMatch(/application\/json/);
      expect(await count()).toBe(0);
    },
  );

  it('when the route does not exist, then it answers 404 JSON', async () => {
    const res = await request(h.app).get('/callbacks/nope');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: 'Not Found' });
  });

  it('when the database answers, then /readyz answers 200; when it does not, 503 in the error shape, while /healthz stays 200', async () => {
    expect((await request(h.app).get('/readyz')).body).toEqual({ ok: true });
    if (ON_POSTGRES) return; // the failing half closes SQLite's connection under the app
    h.db.close();
    const res = await request(h.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'The database does not answer' });
    expect((await request(h.app).get('/healthz')).status).toBe(200);
  });

  it('when any response is sent, then helmet headers are set and Express is not advertised', async () => {
    const res = await request(h.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['strict-transport-security']).toBeDefined();
  });

  it('when a callback answers, success or error, then it carries the same helmet headers as every other route', async () => {
    const reference = (await request(h.app).get('/healthz')).headers;
    const securityHeaders = Object.keys(reference).filter((k) =>
      /^(content-security-policy|strict-transport-security|x-|cross-origin|referrer-policy|origin-agent-cluster)/.test(k),
    );
    expect(securityHeaders.length).toBeGreaterThan(8);
    for (const res of [
      await request(h.app).get('/callbacks/tests').set(bearer(c.token)),
      await request(h.app).get('/callbacks/tests'),
      await post('/callbacks/send_candidate').send({}),
    ]) {
      for (const name of securityHeaders) expect(res.headers[name], `${name} on ${res.status}`).toBe(reference[name]);
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('when JSON is sent with a +json media type, then it is accepted', async () => {
    const res = await post('/callbacks/send_candidate')
      .set('content-type', 'application/vnd.api+json')
      .send(JSON.stringify(candidateBody({ test_id: String(c.testIds[0]) })));
    expect(res.status).toBe(201);
  });
});
