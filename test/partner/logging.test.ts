import { Writable } from 'node:stream';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/partner/app.js';
import { systemClock } from '../../src/lib/clock.js';
import { sqliteSql, type Sql } from '../../src/lib/sql.js';
import { openDb } from '../../src/partner/db/open.js';
import { createLogger } from '../../src/lib/http/logger.js';
import { prettyDestination, prettyLine } from '../../src/lib/http/pretty-log.js';
import { loadConfig } from '../../src/partner/config.js';
import { partnerCore } from '../../src/partner/core.js';
import { appPlatforms, demoOn } from '../support/partner.js';

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

const withPlatforms = (core: ReturnType<typeof partnerCore>, sql: Sql) => ({ core, ...appPlatforms(core, sql) });

/** The partner's app logging to `logger` (and `logDestination`, when given). What is logged does not depend on the database: an in-memory SQLite one, on either project. */
async function appLogging(logger: ReturnType<typeof createLogger>, logDestination?: Writable) {
  const db = openDb(':memory:');
  const sql = sqliteSql(db);
  const app = createApp({
    config: { bodyLimitBytes: 64 * 1024, trustProxy: false },
    sql,
    logger,
    ...(logDestination && { logDestination }),
    clock: systemClock,
    provider: await demoOn(sql),
    ...withPlatforms(partnerCore(sql, systemClock, { kind: 'assessment' }), sql),
  });
  return { app, db };
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
    const { app, db } = await appLogging(logger, stream);
    await request(app).get('/callbacks/tests?company_id=secret-query').set('Authorization', 'Bearer ptk_not_a_real_token').expect(401);
    const access = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    expect(access).toEqual([expect.objectContaining({ level: 'info', method: 'GET', path: '/callbacks/tests', status: 401, ms: expect.any(Number) })]);
    for (const leaked of ['ptk_not_a_real_token', 'secret-query']) expect(lines.join('')).not.toContain(leaked);
    db.close();
  });

  it('when the app is given a logger and no destination, then the access lines go where that logger writes, not to standard output', async () => {
    const { lines, logger } = capture();
    const { app, db } = await appLogging(logger);
    await request(app).get('/healthz').expect(200);
    const access = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    expect(access).toEqual([expect.objectContaining({ method: 'GET', path: '/healthz', status: 200 })]);
    db.close();
  });
});

describe('log format', () => {
  const at = '2026-01-05T10:42:01.000Z';
  const clock = new Date(at).toTimeString().slice(0, 8);

  it('pretty: one human-readable line per entry, the server first, then time, level, message and fields', () => {
    const line = JSON.stringify({ level: 'info', time: at, server: 'partner', port: 3000, publicUrl: 'http://127.0.0.1:3000', msg: 'partner server listening' });
    expect(prettyLine(line)).toBe(`[partner] ${clock} INFO  partner server listening port=3000 publicUrl=http://127.0.0.1:3000\n`);
    const request = JSON.stringify({ level: 'error', time: at, server: 'mock', method: 'GET', path: '/a b', status: 500, ms: 1.5, msg: 'request' });
    expect(prettyLine(request)).toBe(`[mock]    ${clock} ERROR request method=GET path="/a b" status=500 ms=1.5\n`);
  });

  it('pretty: nested fields as JSON, an error with its stack beneath, a line that is not JSON as it is', () => {
    const line = JSON.stringify({ level: 'warn', time: at, server: 'partner', job: { id: 3 }, err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x' }, msg: 'failed' });
    expect(prettyLine(line)).toBe(`[partner] ${clock} WARN  failed job={"id":3} err="boom"\n    Error: boom\n        at x\n`);
    expect(prettyLine('not json\n')).toBe('not json\n');
  });

  it('pretty: credentials are still redacted, since the logger redacts before the line is formatted', () => {
    const lines: string[] = [];
    const out = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger('info', prettyDestination(out), { server: 'partner' });
    logger.info({ token: 'ptk_plain', headers: { authorization: 'Bearer ptk_plain' } }, 'outbound call');
    expect(lines.join('')).toMatch(/^\[partner\] \d\d:\d\d:\d\d INFO {2}outbound call token="\[redacted\]" headers=\{"authorization":"\[redacted\]"\}\n$/);
  });

  it('json: the server named in every line, main log and access log alike', async () => {
    const { lines, stream } = capture();
    const logger = createLogger('info', stream, { server: 'partner' });
    logger.info('hello');
    const { app, db } = await appLogging(logger, stream);
    await request(app).get('/healthz').expect(200);
    db.close();
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.map((l) => [l.server, l.msg])).toEqual([
      ['partner', 'hello'],
      ['partner', 'request'],
    ]);
  });

  it('LOG_FORMAT: json unless set, in development and production alike', () => {
    const production = { NODE_ENV: 'production', CANDIDATE_LINK_SECRET: 'x'.repeat(40), ADMIN_TOKEN: 't'.repeat(30) };
    expect(loadConfig({}).logFormat).toBe('json');
    expect(loadConfig(production).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(/LOG_FORMAT/);
  });
});
