import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/contract/signature.js';
import type { RunningMockPlatform } from '../../src/mock-platform/server.js';
import { eventually } from '../support/eventually.js';
import { ACME, ADA, startForkedPartner, startMock, type ForkedPartner } from '../e2e/support.js';
import { myProduct, type MyProduct } from './my-product.js';

/**
 * A fork as a vendor makes one: a module of its own (my-product.ts, outside the kit's folders,
 * importing only src/partner/index.ts) passed to startPartner with its own webhook handler — and
 * the whole flow against the bundled mock platform over HTTP, without the demo provider anywhere.
 */
const WEBHOOK_SECRET = 'fork-webhook-secret-0123456789abcdef';

let mock: RunningMockPlatform;
let product: MyProduct;
let world: ForkedPartner;
beforeAll(async () => {
  mock = await startMock();
  product = myProduct();
  world = await startForkedPartner(mock, {
    codename: 'my-product',
    provider: product.provider,
    webhookHandlers: product.webhookHandlers,
    env: { WEBHOOK_SECRETS: `${ACME.id}:${WEBHOOK_SECRET}` },
  });
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
    const source = readFileSync(path.join(import.meta.dirname, 'my-product.ts'), 'utf8');
    const imports = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    expect(imports).toEqual(['../../src/partner/index.js']);
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
