/**
 * The harness drives every platform the mock plays as it drives the hiring platform: a vendor's
 * test lists the tests as each platform asks your partner, sends one from each, posts the result
 * as its product does, and sees the result on that platform — through the mock's JSON routes, not
 * its pages. And a platform of the vendor's own (partner side and mock side, both written in the
 * test) is driven the same way, its company connected with the credential it gives the customer.
 */
import express from 'express';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlatform, demoProvider, type PlatformDefinition } from '../../src/partner/index.js';
import { definePlatformPlugin, startHarness, type Harness, type PlatformPlugin, type ScriptedReport } from '../../src/testing/index.js';
import { mockPlatforms } from '../../src/mock-platform/platforms/index.js';

/** What the harness names: the hiring platform, then each platform the mock plays (its registry). */
const PLAYED = ['hiring-platform', ...mockPlatforms().map((p) => p.name)];

describe('the harness, on each platform the mock plays', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ provider: demoProvider(), tests: ['SQL basics', 'JavaScript'] });
  });
  afterAll(() => harness?.close());

  it('names the hiring platform, then each platform the mock plays', () => {
    expect(harness.platforms).toEqual(PLAYED);
    expect(PLAYED.slice(0, 4)).toEqual(['hiring-platform', 'greenhouse', 'ashby', 'hibob']);
    expect(() => harness.platform('workday')).toThrow(`The mock plays no platform "workday": it plays ${PLAYED.join(', ')}`);
  });

  it.each([
    ['hiring-platform', '87%'],
    ['greenhouse', 87],
    ['ashby', 87],
    ['hibob', 87],
  ])('%s: lists the account\'s tests, sends one, and shows the result after the product posts it', async (name, shownScore) => {
    const platform = harness.platform(name);
    const tests = await platform.listTests();
    expect(tests.map((t) => t.name)).toEqual(['SQL basics', 'JavaScript']);

    const reportId = await platform.send(tests[1]!.id);
    const sent = await platform.status(reportId);
    expect(sent).toMatchObject({ id: reportId, complete: false, score: null });

    const answer = await harness.postResult(reportId, { status: 'completed', score: '87%', subtitle: '4 of 5 correct' });
    expect(answer).toEqual({ status: 200, body: { id: reportId, status: 'completed' } });
    const shown = await platform.waitForStatus(reportId);
    expect(shown.complete).toBe(true);
    expect(shown.score).toBe(shownScore);
    expect(shown.resultsUrl?.startsWith(`${harness.partner.publicUrl}/`)).toBe(true);
  });

  it('sends through Greenhouse to the candidate named, with the name given', async () => {
    const greenhouse = harness.platform('greenhouse');
    const [test] = await greenhouse.listTests();
    const reportId = await greenhouse.send(test!.id, { testName: test!.name, candidateId: '2' });
    const res = await request(`${harness.platformUrl}/_mock/platforms/greenhouse/reports/${reportId}`);
    expect(((await res.body.json()) as { report: { candidate: { name: string } } }).report.candidate.name).toBe('Margaret Hamilton');
  });

  it('a send the platform refuses rejects with what it said', async () => {
    await expect(harness.platform('greenhouse').send('no-such-test')).rejects.toThrow(
      'The send from greenhouse failed (422): {"error":"The partner lists no test \\"no-such-test\\" to Initech."}',
    );
  });
});

/** The key Quizzly gives its customer for the partner: what authenticates the partner's results. */
const QUIZZLY_KEY = 'qz_sandbox_key_0123456789abcdef';

/**
 * Quizzly, the vendor's own platform, partner side: it lists the customer's tests, takes an order
 * (an invitation), and tells Quizzly of a result at QUIZZLY_API_URL with the customer's Quizzly key.
 */
const quizzlyPartner = definePlatform({
  name: 'quizzly',
  label: 'Quizzly',
  settings: z.object({ QUIZZLY_API_URL: z.url() }).transform((s) => ({ url: s.QUIZZLY_API_URL })),
  credential: { label: 'Quizzly API key', required: true },
  create: ({ settings }) => ({
    name: 'quizzly',
    label: 'Quizzly',
    emailAfterAcceptance: false,
    home: { endpoints: {} },
    mount(router, context) {
      const accountOf = async (authorization: string | undefined) => {
        const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
        return token === undefined ? undefined : context.core.accounts.authenticate(token);
      };
      router.get('/quizzly/tests', async (req, res) => {
        const account = await accountOf(req.headers.authorization);
        if (!account) return void res.status(401).json({ error: 'Unauthorized' });
        res.json((await context.provider.listTests(account)).map((t) => ({ id: String(t.id), name: t.name })));
      });
      router.post('/quizzly/orders', express.json(), async (req, res) => {
        const account = await accountOf(req.headers.authorization);
        if (!account) return void res.status(401).json({ error: 'Unauthorized' });
        const order = z.object({ report_id: z.uuid(), test_id: z.string(), name: z.string(), email: z.email() }).parse(req.body);
        const test = (await context.provider.listTests(account)).find((t) => String(t.id) === order.test_id);
        if (!test) return void res.status(422).json({ error: 'Unknown test' });
        await context.createInvitation({
          reportId: order.report_id,
          accountId: account.id,
          testId: order.test_id,
          testName: test.name,
          firstName: order.name,
          lastName: 'Quizzly',
          email: order.email,
          phone: null,
          extraInputs: {},
          platform: 'quizzly',
          platformData: {},
        });
        context.onInvitationCreated?.(order.report_id);
        res.status(201).json({ report_id: order.report_id });
      });
    },
    async deliveryRequest(target, update) {
      if (update.status !== 'completed' && update.status !== 'failed') return undefined;
      const key = await target.credential();
      if (key === undefined) throw new Error('No Quizzly API key');
      return {
        url: `${settings.url}/results`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ report_id: target.reportId, status: update.status, score: update.score_value, results_url: update.urls?.show ?? null }),
      };
    },
  }),
}) as PlatformDefinition;

/**
 * Quizzly, mock side: its company orders a test of the partner and hears the result at its API,
 * only with the key it gave the customer — the credential `connect` hands the harness to store.
 */
const quizzlyMock: PlatformPlugin = definePlatformPlugin({
  name: 'quizzly',
  label: 'Quizzly',
  dev: { partnerSettings: (mockUrl) => ({ QUIZZLY_API_URL: `${mockUrl}/quizzly-api` }) },
  create(setup) {
    let partner: { url: string; token: string } | undefined;
    const orders = new Map<string, ScriptedReport>();
    const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
      const res = await request(`${partner!.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${partner!.token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
    };
    return {
      mount(router) {
        router.post('/quizzly-api/results', ...setup.endpoint('quizzly.results'), express.json(), (req, res) => {
          if (req.headers.authorization !== `Bearer ${QUIZZLY_KEY}`) return void res.status(401).json({ error: 'Invalid API key' });
          const { report_id, status, score, results_url } = req.body as { report_id: string; status: string; score: number | null; results_url: string | null };
          const order = orders.get(report_id);
          if (!order) return void res.status(404).json({ error: 'Unknown order' });
          orders.set(report_id, { ...order, status, complete: true, score, resultsUrl: results_url });
          res.json({ ok: true });
        });
      },
      home: () => ({ title: 'Quizzly', intro: 'The mock plays Quizzly too', cards: [] }),
      script: {
        company: () => ({ id: '1', name: 'Quizzly Co', page: '/' }),
        candidates: () => [{ id: '1', name: 'Quinn', email: 'quinn@example.com' }],
        async connect(p) {
          partner = { url: p.url, token: p.token };
          return { ok: true, value: { connection: { partner: p.name }, credential: QUIZZLY_KEY } };
        },
        async listTests() {
          const res = await call('GET', '/quizzly/tests');
          return res.status === 200 ? { ok: true, value: res.body as unknown as { id: string; name: string }[] } : { ok: false, refused: true, message: String(res.body.error) };
        },
        async send({ testId, testName }) {
          const reportId = crypto.randomUUID();
          const res = await call('POST', '/quizzly/orders', { report_id: reportId, test_id: testId, name: 'Quinn', email: 'quinn@example.com' });
          if (res.status !== 201) return { ok: false, refused: res.status < 500, message: String(res.body.error) };
          const order: ScriptedReport = {
            id: reportId,
            test: { id: testId, name: testName ?? testId },
            candidate: { id: '1', name: 'Quinn', email: 'quinn@example.com' },
            status: 'ordered',
            complete: false,
            score: null,
            resultsUrl: null,
            details: {},
            problem: null,
            page: '/',
            updatedAt: new Date().toISOString(),
          };
          orders.set(reportId, order);
          return { ok: true, value: order };
        },
        report: (reportId) => orders.get(reportId),
      },
    };
  },
});

describe("the harness, on a platform of the vendor's own", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ provider: demoProvider(), tests: ['SQL basics'], platforms: [quizzlyPartner], mockPlatforms: [quizzlyMock] });
  });
  afterAll(() => harness?.close());

  it('connects its company with the credential it gives the customer, sends through it, and sees the result it was told with that key', async () => {
    expect(harness.platforms).toEqual([...PLAYED, 'quizzly']);
    const quizzly = harness.platform('quizzly');
    const [test] = await quizzly.listTests();
    expect(test!.name).toBe('SQL basics');
    const reportId = await quizzly.send(test!.id);
    expect((await quizzly.status(reportId)).status).toBe('ordered');

    await harness.postResult(reportId, { status: 'completed', score: '92%' });
    const shown = await quizzly.waitForStatus(reportId);
    expect(shown).toMatchObject({ status: 'completed', complete: true, score: 92 });
    // The partner's request carried the key the platform gave: only that one is taken.
    const calls = await request(`${harness.platformUrl}/_mock/calls?endpoint=quizzly.results`);
    const logged = ((await calls.body.json()) as { calls: { response_status: number }[] }).calls;
    expect(logged.map((c) => c.response_status)).toEqual([200]);
  });
});
