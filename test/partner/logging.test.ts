import { Writable } from 'node:stream';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/partner/app.js';
import { systemClock } from '../../src/lib/clock.js';
import { openDb } from '../../src/partner/db/open.js';
import { createLogger } from '../../src/lib/http/logger.js';
import { demoProvider } from '../../src/partner/provider/demo/index.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream, logger: createLogger('info', stream) };
}

describe('log redaction', () => {
  it('when an object with credentials is logged, then tokens, secrets and authorization headers print as [redacted]', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        token: 'ptk_plain',
        secret: 's3cr3t-value',
        headers: { authorization: 'Bearer ptk_plain', 'rt-partner-secret': 's3cr3t-value', cookie: 'sid=1' },
        request: { headers: { authorization: 'Bearer ptk_plain' } },
        account: { password: 'hunter2', name: 'Acme' },
      },
      'outbound call',
    );
    const line = lines.join('');
    for (const leaked of ['ptk_plain', 's3cr3t-value', 'hunter2', 'sid=1']) expect(line).not.toContain(leaked);
    expect(JSON.parse(line)).toMatchObject({ token: '[redacted]', account: { name: 'Acme', password: '[redacted]' } });
  });
});

describe('access log', () => {
  it('when a request is answered, then one line (method, path without the query, status, duration) goes where the server log goes, and no credential', async () => {
    const { lines, stream, logger } = capture();
    const db = openDb(':memory:');
    const app = createApp({
      config: { bodyLimitBytes: 64 * 1024, trustProxy: false },
      db,
      logger,
      logDestination: stream,
      clock: systemClock,
      provider: demoProvider(db, { candidateUrl: (id) => `http://partner.test/take/${id}` }),
    });
    await request(app).get('/callbacks/tests?company_id=secret-query').set('Authorization', 'Bearer ptk_not_a_real_token').expect(401);
    const access = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    expect(access).toEqual([expect.objectContaining({ level: 'info', method: 'GET', path: '/callbacks/tests', status: 401, ms: expect.any(Number) })]);
    for (const leaked of ['ptk_not_a_real_token', 'secret-query']) expect(lines.join('')).not.toContain(leaked);
    db.close();
  });
});
