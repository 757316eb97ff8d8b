import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/contract/signature.js';
import type { RunningMockPlatform } from '../../src/mock-platform/server.js';
import { eventually } from '../support/eventually.js';
import { ACME, ADA, startForkedPartner, startMock, type ForkedPartner } from '../e2e/support.js';
import { myProduct, type MyProduct } from './my-product.js';
import { routes } from './my-routes.js';

/**
 * A fork as a vendor makes one: a module of its own (my-product.ts, outside the kit's folders,
 * importing only src/partner/index.ts) passed to startPartner with its own webhook handler and a
 * route of its own (my-routes.ts, the one docs/adapting.md shows) — and the whole flow against the
 * bundled mock platform over HTTP, without the demo provider anywhere.
 */
const WEBHOOK_SECRET = 'fork-webhook-secret-0123456789abcdef';
/** The token the fork's product sends its route (my-routes.ts reads it from process.env as the partner starts). */
const PRODUCT_TOKEN = 'product-callback-token-0123456789';

let mock: RunningMockPlatform;
let product: MyProduct;
let world: ForkedPartner;
beforeAll(async () => {
  mock = await startMock();
  product = myProduct();
  // As .env would have it, read by the routes as the partner starts; taken out again below.
  process.env.PRODUCT_CALLBACK_TOKEN = PRODUCT_TOKEN;
  try {
    world = await startForkedPartner(mock, {
      codename: 'my-product',
      provider: product.provider,
      webhookHandlers: product.webhookHandlers,
      routes,
      env: { WEBHOOK_SECRETS: `${ACME.id}:${WEBHOOK_SECRET}` },
    });
  } finally {
    delete process.env.PRODUCT_CALLBACK_TOKEN;
  }
});
afterAll(async () => {
  await world?.close();
  await mock?.close();
});

/** A webhook as the platform signs and delivers it. */
async function deliverWebhook(id: number, eventType: string, eventSubtype: string, payload: Record<string, unknown>) {
  const raw = JSON.stringify({ id, attempt_count: 1, created_at: new Date().toISOString(), event_type: eventType, event_subtype: eventSubtype, payload });
  const res = await fetch(`${world.partner.publicUrl}/webhooks/platform/${ACME.id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signWebhookBody(WEBHOOK_SECRET, raw) },
    body: raw,
  });
  expect(res.status).toBe(200);
}

const reportOnceIt = (reportId: string, status: string) =>
  eventually(
    async () => {
      const r = await world.report(reportId);
      expect(r.status).toBe(status);
      return r;
    },
    { what: `report ${reportId} to be ${status}` },
  );

describe('a fork: its own provider and webhook handler, passed to startPartner', () => {
  it('imports nothing of the kit but its public entry point', () => {
    const importsOf = (file: string) => [...readFileSync(path.join(import.meta.dirname, file), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    expect(importsOf('my-product.ts')).toEqual(['../../src/partner/index.js']);
    expect(importsOf('my-routes.ts')).toEqual(['node:crypto', 'express', 'zod', '../../src/partner/index.js']);
  });

  it('its own route, typed PartnerRoutes: its product says a candidate started, with the token they share', async () => {
    const reportId = await world.send('typing', 'Typing speed');
    const started = (body: unknown, token = PRODUCT_TOKEN) =>
      fetch(`${world.partner.publicUrl}/my-product/started`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const answer = async (res: Response) => ({ status: res.status, body: await res.json() });

    expect(await answer(await started({ report_id: reportId }, 'not-the-token-0123456789abcdefghi'))).toEqual({ status: 401, body: { error: 'Unauthorized' } });
    expect(await answer(await started({ report: reportId }))).toEqual({ status: 422, body: { error: 'report_id is required' } });
    // A body the JSON parser refuses reaches the kit's error handler: its shape, not a 500.
    expect(await answer(await started('{"report_id":'))).toEqual({ status: 400, body: { error: 'Malformed JSON body' } });
    expect(await answer(await started({ report_id: reportId }))).toEqual({ status: 200, body: { outcome: 'recorded' } });
    expect(await answer(await started({ report_id: reportId }))).toEqual({ status: 200, body: { outcome: 'unchanged' } });
    expect(await answer(await started({ report_id: 'no-such-report' }))).toEqual({ status: 404, body: { outcome: 'unknown' } });
    // Progress is the dashboard's; the platform's report still says sent.
    expect((await world.report(reportId)).status).toBe('sent');
  });

  it('integrate → list tests → send → the product pushes the result → the platform shows it completed', async () => {
    const tests = await fetch(`${mock.url}/api/marketplace/c/${ACME.id}/partners/my-product/tests`);
    expect(((await tests.json()) as { tests: unknown }).tests).toEqual([
      { id: 'typing', name: 'Typing speed' },
      { id: 'excel', name: 'Spreadsheets' },
    ]);
    const reportId = await world.send('typing', 'Typing speed');
    await eventually(async () =>
      expect((await world.sql.get<{ candidate_url: string }>('SELECT candidate_url FROM invitations WHERE report_id = $1', [reportId]))?.candidate_url).toBe(
        `https://my-product.example/take/${reportId}`,
      ),
    );
    // Progress from the product, in process: recorded, the platform's report untouched.
    expect(await world.partner.reports.progress(reportId, 'started')).toBe('recorded');
    expect((await world.report(reportId)).status).toBe('sent');

    expect(await product.finish(reportId, 72)).toBe('recorded');
    expect(await product.finish(reportId, 72)).toBe('unchanged');
    expect(await product.finish(reportId, 10)).toBe('conflict');
    const report = await reportOnceIt(reportId, 'completed');
    expect(report).toMatchObject({ score: '72%', subtitle: 'Typing speed: 72 of 100', properties: [{ label: 'Words per minute', value: '72' }] });
  });

  it('the vendor cancels from its side: the platform shows canceled', async () => {
    const reportId = await world.send('excel', 'Spreadsheets');
    expect(await world.partner.reports.cancel(reportId)).toBe('recorded');
    await reportOnceIt(reportId, 'canceled');
    expect(await world.partner.reports.complete(reportId, { score: '90%' })).toBe('conflict');
  });

  it('its webhook handler runs for its event, and the kit\'s handlers it spread still run for theirs', async () => {
    await deliverWebhook(9001, 'new_candidate', 'manual', { company: { id: ACME.id, name: 'Acme Corp' }, candidate: { id: 4242 } });
    await eventually(() => expect(product.seenCandidates).toEqual([4242]), { what: 'the fork\'s new_candidate handler' });

    const reportId = await world.send('typing', 'Typing speed');
    await deliverWebhook(9002, 'candidate_deleted', 'manual', { company: { id: ACME.id, name: 'Acme Corp' }, candidate: { id: ADA } });
    await reportOnceIt(reportId, 'canceled');
    expect((await world.sql.get<{ canceled_by: string }>('SELECT canceled_by FROM invitations WHERE report_id = $1', [reportId]))?.canceled_by).toBe('platform');
  });

  it('runs without the demo provider: none of its tables exist', () => {
    const tables = world.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'demo%'").pluck().all();
    expect(tables).toEqual([]);
  });
});
