import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/contract/schemas.js';
import type { RunningMockPlatform } from '../../src/mock-platform/server.js';
import { hostedProvider } from '../../examples/hosted-provider/provider.js';
import { rowOf, rowsOf } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { fakeVendorProduct, type FakeVendorProduct } from '../support/fake-vendor-product.js';
import { ACME, startForkedPartner, startMock, type ForkedPartner } from './support.js';

/**
 * The second shape of product, over real HTTP: the bundled mock platform, the partner run with the
 * example hosted provider (examples/hosted-provider), and a fake of the vendor's product. Send on
 * the platform → the partner asks the product to create the test → the candidate's link is the
 * product's → the product posts the signed result → the platform's report completes; or the
 * recruiter cancels → the partner tells the product, which closes the link.
 */
const SECRET = 'hosted-product-results-secret-0123456789';

let mock: RunningMockPlatform;
let product: FakeVendorProduct;
beforeAll(async () => {
  [mock, product] = await Promise.all([startMock(), fakeVendorProduct({ secret: SECRET })]);
});
afterAll(async () => {
  await Promise.all([mock?.close(), product?.close()]);
});

/** The report on the platform once `check` passes on it. */
const reportOnceIt = (world: ForkedPartner, reportId: string, check: (r: Report) => void) =>
  eventually(
    async () => {
      const r = await world.report(reportId);
      check(r);
      return r;
    },
    { what: `report ${reportId} on the platform` },
  );

/** PATCHes the platform received for a report, from its call log. */
async function patchesOf(reportId: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${mock.url}/_mock/calls?direction=inbound&endpoint=reports.update&report_id=${reportId}&order=asc&limit=1000`);
  const { calls } = (await res.json()) as { calls: { request_body: string | null; response_status: number | null }[] };
  return calls.map((c) => ({ ...(JSON.parse(c.request_body ?? '{}') as Record<string, unknown>), _status: c.response_status }));
}

const startInProduct = async (world: ForkedPartner, testId: string) => {
  const reportId = await world.send(testId, 'JavaScript (senior)');
  const assessment = await eventually(
    () => {
      const a = product.assessment(reportId);
      if (!a) throw new Error('not created yet');
      return a;
    },
    { what: 'the product to create the test' },
  );
  return { reportId, assessment };
};

describe('a product that hosts its tests: an assessment', () => {
  let world: ForkedPartner;
  beforeAll(async () => {
    world = await startForkedPartner(mock, {
      codename: 'hosted-assessments',
      provider: hostedProvider({ productUrl: product.url }),
      env: { VENDOR_RESULTS_SECRET: SECRET },
    });
  });
  afterAll(() => world?.close());

  it('send → the product creates the test → the link points at the product → it posts the result → the report shows it', async () => {
    const { reportId, assessment } = await startInProduct(world, 'js-senior');
    expect(assessment).toMatchObject({
      testId: 'js-senior',
      candidate: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
      resultsUrl: `${world.partner.publicUrl}/vendor/reports/${reportId}/result`,
    });
    // The invitation e-mail carries the product's link; it opens the product's page.
    await eventually(async () =>
      expect((await rowOf(world.sql, 'SELECT candidate_url FROM invitations WHERE report_id = ?', reportId))?.candidate_url).toBe(assessment.url),
    );
    const page = await fetch(assessment.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Hello Ada');

    expect(await product.progress(reportId, 'opened')).toEqual({ status: 200, body: { id: reportId, status: 'opened' } });
    expect((await product.progress(reportId, 'started')).status).toBe(200);
    expect((await world.report(reportId)).status).toBe('sent');

    const result = {
      status: 'completed' as const,
      score: '87%',
      subtitle: 'JavaScript (senior): 13 of 15',
      properties: [{ label: 'Time taken', value: '24 min' }],
    };
    expect(await product.finish(reportId, result)).toEqual({ status: 200, body: { id: reportId, status: 'completed' } });
    const report = await reportOnceIt(world, reportId, (r) => expect(r.status).toBe('completed'));
    expect(report).toMatchObject({ score: '87%', subtitle: result.subtitle, properties: result.properties });
    expect(report.completed_at).toEqual(expect.any(String));
    expect(report.urls.show).toMatch(new RegExp(`^${world.partner.publicUrl}/results\\?token=`));
    // The progress stayed on the partner's side.
    const stages = await rowsOf(world.sql, 'SELECT stage FROM invitation_events WHERE report_id = ? ORDER BY id', reportId);
    expect(stages.map((e) => e.stage)).toEqual(['opened', 'started']);
  });

  it('the recruiter cancels on the platform: the partner answers, then tells the product, whose link stops working', async () => {
    const { reportId, assessment } = await startInProduct(world, 'js-senior');
    await reportOnceIt(world, reportId, (r) => expect(r.urls.cancel).toBeDefined());
    expect((await fetch(assessment.url)).status).toBe(200);

    await request(mock.url).post(`/api/marketplace/c/${ACME.id}/reports/${reportId}/cancel`).expect(202);
    await reportOnceIt(world, reportId, (r) => expect(r.status).toBe('canceled'));
    // The product hears of it from the partner's background loop, after the platform had its answer.
    await eventually(() => expect(product.cancels()).toEqual([reportId]), { what: "the product's cancel endpoint to be called", timeoutMs: 15_000 });
    const page = await fetch(assessment.url);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('This test was canceled');
    await eventually(async () =>
      expect((await rowOf(world.sql, 'SELECT product_cancel FROM invitations WHERE report_id = ?', reportId))?.product_cancel).toBe('told'),
    );
    // A result the product still posts is refused, as before.
    expect((await product.finish(reportId, { status: 'completed', score: '90%' })).status).toBe(409);
  });

  it('a result captured on its way to one report and sent unchanged to another: 401, and the other report changes neither here nor on the platform', async () => {
    const other = await startInProduct(world, 'sql');
    const { reportId } = await startInProduct(world, 'js-senior');
    await reportOnceIt(world, other.reportId, (r) => expect(r.urls.show).toEqual(expect.any(String)));
    const stored = async () => ({
      invitation: await rowOf(world.sql, 'SELECT status, score, subtitle, completed_at FROM invitations WHERE report_id = ?', other.reportId),
      updates: await rowsOf(world.sql, 'SELECT id, body FROM report_updates WHERE report_id = ? ORDER BY id', other.reportId),
    });
    const before = await stored();

    const result = { status: 'completed' as const, score: '100%', subtitle: 'JavaScript (senior): 15 of 15' };
    expect((await product.finish(reportId, result)).status).toBe(200);
    const captured = product.sent().at(-1)!;
    expect(captured.url).toBe(`${world.partner.publicUrl}/vendor/reports/${reportId}/result`);
    const replayed = await fetch(captured.url.replace(reportId, other.reportId), { method: 'POST', headers: captured.headers, body: captured.body });
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toEqual({ error: expect.stringContaining('"<t>.<report_id>.<raw body>"') });

    // The result reached the report it was signed for; nothing was queued for the other one.
    await reportOnceIt(world, reportId, (r) => expect(r).toMatchObject({ status: 'completed', score: '100%' }));
    expect(await stored()).toEqual(before);
    expect(before.invitation).toMatchObject({ status: 'sent', score: null });
    expect(await world.report(other.reportId)).toMatchObject({ status: 'sent', score: null, subtitle: null });
    expect((await patchesOf(other.reportId)).filter((p) => p.status !== undefined || p.score !== undefined)).toEqual([]);
  });

  it('the same result sent 20 times at once: every answer is the same 200, and the platform gets one update', async () => {
    const { reportId } = await startInProduct(world, 'sql');
    const result = { status: 'failed' as const, score: '31%', subtitle: 'SQL: 4 of 13' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => product.finish(reportId, result)));
    expect(answers).toEqual(Array(20).fill({ status: 200, body: { id: reportId, status: 'failed' } }));
    await reportOnceIt(world, reportId, (r) => expect(r).toMatchObject({ status: 'failed', score: '31%' }));
    // Let a second delivery happen, if there were one to make.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const withStatus = (await patchesOf(reportId)).filter((p) => p.status !== undefined);
    expect(withStatus).toEqual([expect.objectContaining({ status: 'failed', score: '31%', _status: 200 })]);
    expect((await product.finish(reportId, { ...result, score: '99%' })).status).toBe(409);
  });
});

describe('a product that hosts its tests: a background check', () => {
  let world: ForkedPartner;
  beforeAll(async () => {
    world = await startForkedPartner(mock, {
      codename: 'hosted-checks',
      kind: 'background_check',
      provider: hostedProvider({ productUrl: product.url }),
      env: { VENDOR_RESULTS_SECRET: SECRET },
    });
  });
  afterAll(() => world?.close());

  it('completed or failed with its score only: subtitle and properties the product sends are dropped', async () => {
    const adverse = await startInProduct(world, 'js-senior');
    expect((await product.finish(adverse.reportId, { status: 'failed', score: 'Alert', subtitle: 'One record', properties: [{ label: 'County', value: 'Kent' }] })).status).toBe(200);
    const failed = await reportOnceIt(world, adverse.reportId, (r) => expect(r.status).toBe('failed'));
    expect(failed).toMatchObject({ score: 'Alert', subtitle: null, properties: [] });

    const clear = await startInProduct(world, 'sql');
    expect((await product.finish(clear.reportId, { status: 'completed', score: 'Clear' })).status).toBe(200);
    await reportOnceIt(world, clear.reportId, (r) => expect(r).toMatchObject({ status: 'completed', score: 'Clear' }));
    // Every update the platform got was accepted: no subtitle or properties reached it.
    for (const patch of [...(await patchesOf(adverse.reportId)), ...(await patchesOf(clear.reportId))]) {
      expect(patch._status).toBe(200);
      expect(patch).not.toHaveProperty('subtitle');
      expect(patch).not.toHaveProperty('properties');
    }
  });
});
