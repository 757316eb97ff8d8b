import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../../src/partner/config.js';
import { bearerToken } from '../../src/lib/http/authorization.js';
import { definePlatform, DeliveryNotYet, platformsOf, type PlatformDefinition } from '../../src/partner/platforms/index.js';
import { flowHarness } from '../invitations/support.js';
import { signVendorResult, VENDOR_SIGNATURE_HEADER } from '../../src/contract/vendor-signature.js';

/**
 * The platform seam as a platform of a fork's own uses it (docs/platforms.md): one definition with
 * a setting, a table, a route that creates invitations, a credential per customer, a delivery that
 * hears progress, and an answer judged by its body. Acme ATS is a made-up platform: what it hears
 * is the kit's neutral update as the seam hands it over.
 */

interface Received {
  authorization: string | undefined;
  body: Record<string, unknown>;
}

/** Acme ATS's API: takes each update, answering from `answers` (then 200 `{ok: true}`). */
function acmeApi() {
  const received: Received[] = [];
  const answers: { status: number; body: unknown }[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ authorization: req.headers.authorization, body: JSON.parse(text) as Record<string, unknown> });
      const answer = answers.shift() ?? { status: 200, body: { ok: true } };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  return {
    received,
    answers,
    listen: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`))),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Its tables, in both dialects, as a fork keeps them beside its platform. */
function migrations(): { dir: string; postgresDir: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'acme-ats-migrations-'));
  const dir = path.join(root, 'sqlite');
  const postgresDir = path.join(root, 'postgres');
  for (const folder of [dir, postgresDir]) {
    mkdirSync(folder);
    writeFileSync(path.join(folder, '001_orders.sql'), 'CREATE TABLE acme_ats_orders (report_id TEXT PRIMARY KEY, order_ref TEXT NOT NULL);\n');
  }
  return { dir, postgresDir };
}

const ACME = 'acme-ats';
const RESULTS_SECRET = 'acme-results-secret-0123456789abcdef0123';

/** What each delivery's answer was judged with: the request it answers included. */
const judged: { status: number; authorization: string | undefined }[] = [];
/** How many deliveries Acme ATS's token service, when it is down, refuses to make now (`DeliveryNotYet`). */
let tokenServiceDown = 0;

function acmeAts(): PlatformDefinition {
  return definePlatform({
    name: ACME,
    label: 'Acme ATS',
    settings: z.object({ ACME_ATS_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }) }).transform((s) => ({ url: s.ACME_ATS_URL })),
    migrations: migrations(),
    credential: { label: 'Acme ATS key', required: true },
    create: ({ settings, connections }) => ({
      name: ACME,
      label: 'Acme ATS',
      emailAfterAcceptance: false,
      hearsProgress: true,
      home: { endpoints: {} },
      mount(router, context) {
        router.post('/acme-ats/orders', express.json(), async (req, res) => {
          const token = bearerToken(req.headers.authorization);
          const account = token === undefined ? undefined : await context.core.accounts.authenticate(token);
          if (!account) return void res.status(401).json({ error: 'Invalid token' });
          const body = req.body as { order: string; test: string; email: string };
          const reportId = (req.body as { id?: string }).id ?? randomUUID();
          const outcome = await context.createInvitation({
            reportId,
            accountId: account.id,
            testId: body.test,
            firstName: 'Ada',
            lastName: 'Lovelace',
            email: body.email,
            phone: null,
            extraInputs: {},
            platform: ACME,
            platformData: { order: body.order },
          });
          await context.sql.run('INSERT INTO acme_ats_orders (report_id, order_ref) VALUES ($1, $2)', [reportId, body.order]);
          res.status(outcome === 'created' ? 201 : 422).json({ id: reportId, outcome });
        });
      },
      async deliveryRequest(target, update) {
        const key = await target.credential();
        if (key === undefined) throw new Error('the customer has no Acme ATS key');
        if (tokenServiceDown > 0 && tokenServiceDown--) throw new DeliveryNotYet('its token service is down');
        return {
          url: `${settings.url}/updates`,
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Key ${key}` },
          body: JSON.stringify({ report: target.reportId, order: target.data.order, ...update }),
        };
      },
      async judgeAnswer({ status, body, request: sent }, target) {
        judged.push({ status, authorization: sent.headers.authorization });
        const said = (status === 200 ? JSON.parse(body) : {}) as { ok?: boolean; error?: string };
        if (said.ok !== false) return {};
        if (said.error === 'key_expired') {
          await connections.setCredential(target.accountId, ACME, 'acme-key-rotated-0001');
          return { outcome: 'retry', reason: 'the key expired: rotated' };
        }
        return { outcome: 'dead', reason: said.error ?? 'refused' };
      },
    }),
  }) as PlatformDefinition;
}

describe('a platform of its own, through the seam', () => {
  const api = acmeApi();
  let url: string;
  let h: Awaited<ReturnType<typeof flowHarness>>;
  let customer: Awaited<ReturnType<typeof h.customer>>;

  beforeAll(async () => {
    url = await api.listen();
  });
  afterAll(() => api.close());
  beforeEach(async (context) => {
    h = await flowHarness({ platforms: [acmeAts()], env: { ACME_ATS_URL: url, VENDOR_RESULTS_SECRET: RESULTS_SECRET } });
    customer = await h.customer('Acme', ['JavaScript fundamentals'], null);
    api.received.length = 0;
    api.answers.length = 0;
    judged.length = 0;
    tokenServiceDown = 0;
    context.onTestFinished(() => h.close());
  });

  const order = async (ref = 'ORD-1') => {
    const res = await request(h.app)
      .post('/acme-ats/orders')
      .set('Authorization', `Bearer ${customer.token}`)
      .send({ order: ref, test: String(customer.tests[0]!.id), email: 'ada@example.com' });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  it('has its table, its route, and hears the start, the progress and the result with the customer\'s key, each stamped with when it happened', async () => {
    expect(await h.row('SELECT name FROM schema_migrations WHERE name = ?', 'acme-ats/001_orders.sql')).toEqual({ name: 'acme-ats/001_orders.sql' });
    await h.connections.setCredential(customer.accountId, ACME, 'acme-key-0123456789');
    const reportId = await order();
    expect(await h.row('SELECT order_ref FROM acme_ats_orders WHERE report_id = ?', reportId)).toEqual({ order_ref: 'ORD-1' });
    expect(await h.row('SELECT platform FROM invitations WHERE report_id = ?', reportId)).toEqual({ platform: ACME });

    await h.starter.runOnce();
    const startedAt = new Date(h.clock.now()).toISOString();
    // The e-mail goes at the start: Acme ATS knew the report from its own order.
    await h.sender.runOnce();
    expect((await h.mails()).map((m) => m.to)).toEqual([[{ address: 'ada@example.com', name: 'Ada Lovelace' }]]);
    await h.deliverUntilIdle();
    h.clock.advance(60_000);
    expect(await h.lifecycle.progress(reportId, 'started')).toBe('recorded');
    const progressAt = new Date(h.clock.now()).toISOString();
    await h.deliverUntilIdle();
    h.clock.advance(60_000);
    expect(await h.lifecycle.finish(reportId, { status: 'completed', score: '87%', subtitle: 'Senior', properties: [{ label: 'Time', value: '42 min' }] })).toBe(true);
    const doneAt = new Date(h.clock.now()).toISOString();
    await h.deliverUntilIdle();

    expect(api.received.map((r) => r.authorization)).toEqual(Array(3).fill('Key acme-key-0123456789'));
    expect(api.received.map((r) => r.body)).toEqual([
      { report: reportId, order: 'ORD-1', started: true, urls: { show: expect.stringMatching(/^http:\/\/partner\.test\/results\?token=/) }, at: startedAt },
      { report: reportId, order: 'ORD-1', stage: 'started', at: progressAt },
      {
        report: reportId,
        order: 'ORD-1',
        status: 'completed',
        score: '87%',
        score_value: 87,
        completed_at: doneAt,
        subtitle: 'Senior',
        properties: [{ label: 'Time', value: '42 min' }],
        urls: { show: expect.stringMatching(/^http:\/\/partner\.test\/results\?token=/) },
        at: doneAt,
      },
    ]);
  });

  it('is told who canceled and why', async () => {
    await h.connections.setCredential(customer.accountId, ACME, 'acme-key-0123456789');
    const reportId = await order();
    await h.starter.runOnce();
    await h.deliverUntilIdle();
    expect(await h.lifecycle.cancel(reportId, 'vendor', 'The candidate withdrew')).toBe('canceled');
    await h.deliverUntilIdle();
    expect(api.received.at(-1)!.body).toEqual({
      report: reportId,
      order: 'ORD-1',
      status: 'canceled',
      canceled_by: 'vendor',
      cancel_reason: 'The candidate withdrew',
      at: new Date(h.clock.now()).toISOString(),
    });
    expect(await h.row('SELECT cancel_reason FROM invitations WHERE report_id = ?', reportId)).toEqual({ cancel_reason: 'The candidate withdrew' });
  });

  it('judges a 200 by its body: a refusal is a dead letter with the platform\'s reason', async () => {
    await h.connections.setCredential(customer.accountId, ACME, 'acme-key-0123456789');
    const reportId = await order();
    api.answers.push({ status: 200, body: { ok: false, error: 'unknown_order' } });
    await h.starter.runOnce();
    await h.deliverUntilIdle();
    expect(await h.row('SELECT status, last_error FROM report_updates WHERE invitation_id = (SELECT id FROM invitations WHERE report_id = ?)', reportId)).toEqual({
      status: 'dead',
      last_error: 'HTTP 200: unknown_order',
    });
    expect(api.received).toHaveLength(1);
  });

  it('may act on what an answer says of the credential before the retry: the next attempt carries the rotated key', async () => {
    await h.connections.setCredential(customer.accountId, ACME, 'acme-key-0123456789');
    await order();
    api.answers.push({ status: 200, body: { ok: false, error: 'key_expired' } });
    await h.starter.runOnce();
    await h.deliverUntilIdle();
    expect(api.received.map((r) => r.authorization)).toEqual(['Key acme-key-0123456789', 'Key acme-key-rotated-0001']);
    expect(await h.row("SELECT count(*) AS n FROM report_updates WHERE status = 'delivered'")).toEqual({ n: 1 });
  });

  it('a request that cannot be made now (DeliveryNotYet) is retried, not a dead letter; each answer is judged knowing what it answers', async () => {
    await h.connections.setCredential(customer.accountId, ACME, 'acme-key-0123456789');
    await order();
    tokenServiceDown = 2;
    await h.starter.runOnce();
    const rounds = await h.deliverUntilIdle();
    expect(rounds.length).toBeGreaterThanOrEqual(3);
    expect(await h.rows('SELECT outcome, error FROM report_update_attempts ORDER BY id')).toEqual([
      { outcome: 'retry', error: 'The request could not be made now: its token service is down' },
      { outcome: 'retry', error: 'The request could not be made now: its token service is down' },
      { outcome: 'delivered', error: null },
    ]);
    expect(judged).toEqual([{ status: 200, authorization: 'Key acme-key-0123456789' }]);
  });

  it('without the customer\'s credential, the update is a dead letter saying so; nothing is sent', async () => {
    const reportId = await order();
    await h.starter.runOnce();
    await h.deliverUntilIdle();
    expect(api.received).toEqual([]);
    expect(await h.row('SELECT status, last_error FROM report_updates WHERE invitation_id = (SELECT id FROM invitations WHERE report_id = ?)', reportId)).toEqual({
      status: 'dead',
      last_error: 'The request could not be made: the customer has no Acme ATS key',
    });
  });

  it('names its reports by its own ids where it names the order: the results endpoint and the links take them', async () => {
    await h.connections.setCredential(customer.accountId, ACME, 'acme-key-0123456789');
    const res = await request(h.app)
      .post('/acme-ats/orders')
      .set('Authorization', `Bearer ${customer.token}`)
      .send({ id: 'acme:ORD-77', order: 'ORD-77', test: String(customer.tests[0]!.id), email: 'ada@example.com' });
    expect(res.status).toBe(201);
    await h.starter.runOnce();
    const raw = JSON.stringify({ status: 'completed', score: '91' });
    const posted = await request(h.app)
      .post('/vendor/reports/acme:ORD-77/result')
      .set('content-type', 'application/json')
      .set(VENDOR_SIGNATURE_HEADER, signVendorResult(RESULTS_SECRET, 'acme:ORD-77', raw, Math.floor(h.clock.now() / 1000)))
      .send(raw);
    expect(posted.status).toBe(200);
    expect(await h.row('SELECT status, score FROM invitations WHERE report_id = ?', 'acme:ORD-77')).toEqual({ status: 'completed', score: '91' });
    expect(h.links.verify('results', new URL(h.links.resultsUrl('acme:ORD-77')).searchParams.get('token'))).toEqual({ ok: true, reportId: 'acme:ORD-77' });
    // Still no path, space or other character a URL or a log would read otherwise.
    for (const id of ['a%20b', '..%2Fx', '-x']) {
      const refused = await request(h.app)
        .post(`/vendor/reports/${id}/result`)
        .set('content-type', 'application/json')
        .set(VENDOR_SIGNATURE_HEADER, signVendorResult(RESULTS_SECRET, decodeURIComponent(id), raw, Math.floor(h.clock.now() / 1000)))
        .send(raw);
      expect(refused.status, id).toBe(404);
    }
  });

  it('progress is queued only for a platform that hears it: the hiring platform\'s invitation gets none', async () => {
    const hiring = await h.customer('Globex', ['SQL'], 3);
    const body = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', candidate_id: 17, company_id: 3, report_id: randomUUID(), test_id: String(hiring.tests[0]!.id), test_name: 'SQL' };
    expect((await h.send(hiring.token, body)).status).toBe(201);
    await h.starter.runOnce();
    const before = await h.row('SELECT count(*) AS n FROM report_updates');
    expect(await h.lifecycle.progress(body.report_id, 'started')).toBe('recorded');
    expect(await h.row('SELECT count(*) AS n FROM report_updates')).toEqual(before);
  });
});

describe('a platform\'s settings', () => {
  it('are read in the one configuration load: a bad one is reported with the kit\'s', () => {
    let error: unknown;
    try {
      loadConfig({ ACME_ATS_URL: 'ftp://acme.example', PORT: 'nope' }, platformsOf({ platforms: [acmeAts()] }));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([expect.stringMatching(/^PORT: /), 'ACME_ATS_URL: must be an http(s) URL']);
  });

  it('belong to one owner: a platform reading a variable the kit or another platform reads is refused', () => {
    const greedy = definePlatform({ ...acmeAts(), name: 'greedy', settings: z.object({ PORT: z.string() }) }) as PlatformDefinition;
    expect(() => loadConfig({ ACME_ATS_URL: 'https://acme.example' }, platformsOf({ platforms: [greedy] }))).toThrow(/reads the setting PORT, which the kit reads too/);
  });
});
