import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { InvitationToCancel, InvitationToStart, ProviderFactory } from '../../src/partner/provider/types.js';
import { demoProvider } from '../../src/partner/provider/demo/index.js';
import { DELIVERY_RETRY } from '../../src/partner/updates/policy.js';
import { createLogger } from '../../src/lib/http/logger.js';
import { productCanceller } from '../../src/partner/invitations/product-canceller.js';
import { ON_POSTGRES } from '../support/database.js';
import { candidateEvent, signed, SECRET } from '../webhooks/partner-harness.js';
import { ADMIN, flowHarness, sendBody } from './support.js';

/**
 * The provider's cancel hook (`Provider.cancelInvitation`): every cancel the product did not make
 * itself reaches the product, after the cancel has committed and been answered, through the
 * product canceller's queue — retried when the hook throws, never for an invitation the product
 * never started.
 */
const COMPANY = 1;
const AUTH = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

/** The demo, with a cancel hook that records its calls and throws while `failures` is above 0. */
function productWithHook() {
  const calls: InvitationToCancel[] = [];
  const starts: string[] = [];
  const product = { calls, starts, failures: 0, startGate: undefined as Promise<void> | undefined };
  const demo = demoProvider();
  const factory: ProviderFactory = Object.assign(
    (kit: Parameters<ProviderFactory>[0]) => {
      const base = demo(kit);
      return {
        ...base,
        async startInvitation(invitation: InvitationToStart) {
          starts.push(invitation.reportId);
          await product.startGate;
          return base.startInvitation(invitation);
        },
        async cancelInvitation(invitation: InvitationToCancel) {
          calls.push(invitation);
          if (product.failures > 0) {
            product.failures -= 1;
            throw new Error('product API unavailable');
          }
        },
      };
    },
    { migrations: demo.migrations },
  );
  return { product, factory };
}

describe("the provider's cancel hook", () => {
  let h: Awaited<ReturnType<typeof flowHarness>>;
  afterEach(() => h?.close());

  /** A sent invitation, not started yet. */
  async function sent() {
    const { product, factory } = productWithHook();
    h = await flowHarness({ provider: factory, env: { WEBHOOK_SECRETS: `${COMPANY}:${SECRET}` } });
    const c = await h.customer('Acme', ['JavaScript fundamentals'], COMPANY);
    const body = sendBody(c.tests[0]!.id, { candidate_id: 17, company_id: COMPANY });
    expect((await h.send(c.token, body)).status).toBe(201);
    return { product, token: c.token, reportId: body.report_id, accountId: c.accountId };
  }
  /** A sent invitation the product started; `accepted`: and the platform accepted its first update. */
  async function started(options: { accepted?: boolean } = {}) {
    const { product, token, reportId, accountId } = await sent();
    await h.starter.runOnce();
    if (options.accepted ?? true) await h.platformAccepts();
    expect(product.starts).toEqual([reportId]);
    return { product, token, reportId, accountId };
  }
  const platformCancel = (token: string, reportId: string) =>
    request(h.app).post(`/callbacks/reports/${reportId}/cancel`).set('Authorization', `Bearer ${token}`);
  const productCancel = async (reportId: string) =>
    (await h.row('SELECT product_cancel, product_cancel_attempts, product_cancel_error FROM invitations WHERE report_id = ?', reportId))!;

  it('a platform cancel: answered first, then the product is told once, with the invitation and who canceled', async () => {
    const { product, token, reportId, accountId } = await started();
    const res = await platformCancel(token, reportId);
    expect(res.status).toBe(200);
    // The answer went out before the product heard of it: the call waits for the canceller.
    expect(product.calls).toEqual([]);
    expect(await h.canceller.runOnce()).toBe(1);
    expect(product.calls).toEqual([
      { reportId, accountId, testId: expect.any(String), testName: 'JavaScript fundamentals', canceledBy: 'platform', canceledAt: expect.any(String) },
    ]);
    expect(await productCancel(reportId)).toEqual({ product_cancel: 'told', product_cancel_attempts: 1, product_cancel_error: null });
    // Nothing is due any more.
    expect(await h.canceller.runOnce()).toBe(0);
    expect(product.calls).toHaveLength(1);
  });

  it('a dashboard cancel calls the hook, and the invitation page says the product was told', async () => {
    const { product, reportId } = await started();
    const page = () => h.http().get(`/admin/reports/${reportId}`).set('Authorization', AUTH);
    const res = await h.http().post(`/admin/reports/${reportId}/cancel`).set('Authorization', AUTH).set('Origin', h.publicUrl).type('form').send({});
    expect(res.status).toBe(303);
    expect((await page()).text).toContain('to be told of the cancel');
    await h.canceller.runOnce();
    expect(product.calls.map((c) => [c.reportId, c.canceledBy])).toEqual([[reportId, 'vendor']]);
    expect((await page()).text).toContain('told of the cancel');
  });

  it('a webhook-driven cancel (the candidate disqualified on the platform) calls the hook', async () => {
    const { product, reportId } = await started();
    const event = candidateEvent('candidate_moved', 'disqualified', 17, { details: { to_stage: { id: 3, name: 'Interview' } } });
    await h.http().post(`/webhooks/platform/${COMPANY}`).set(signed(event)).send(event).expect(200);
    expect(await h.platformWorkers.find((w) => w.name === 'webhook processor')!.runOnce()).toBe(1);
    expect((await h.row('SELECT status FROM invitations WHERE report_id = ?', reportId))!.status).toBe('canceled');
    await h.canceller.runOnce();
    expect(product.calls.map((c) => [c.reportId, c.canceledBy])).toEqual([[reportId, 'platform']]);
  });

  it('a hook that throws twice is retried with backoff and called a third time; a repeat of the cancel calls it no more', async () => {
    const { product, token, reportId } = await started();
    product.failures = 2;
    expect((await platformCancel(token, reportId)).status).toBe(200);
    await h.canceller.runOnce();
    expect(product.calls).toHaveLength(1);
    expect(await productCancel(reportId)).toEqual({ product_cancel: 'pending', product_cancel_attempts: 1, product_cancel_error: 'product API unavailable' });
    // Not before its retry time (about 10 s, random() = 1 in the harness)…
    await h.canceller.runOnce();
    expect(product.calls).toHaveLength(1);
    h.clock.advance(DELIVERY_RETRY.baseMs);
    await h.canceller.runOnce();
    expect(product.calls).toHaveLength(2);
    // …then twice as long.
    h.clock.advance(DELIVERY_RETRY.baseMs);
    await h.canceller.runOnce();
    expect(product.calls).toHaveLength(2);
    h.clock.advance(DELIVERY_RETRY.baseMs);
    await h.canceller.runOnce();
    expect(product.calls).toHaveLength(3);
    expect(await productCancel(reportId)).toEqual({ product_cancel: 'told', product_cancel_attempts: 3, product_cancel_error: null });

    expect((await platformCancel(token, reportId)).status).toBe(200);
    h.clock.advance(DELIVERY_RETRY.maxMs);
    expect(await h.canceller.runOnce()).toBe(0);
    expect(product.calls).toHaveLength(3);
  });

  it('a hook that fails for as long as a report update is retried is given up, and the dashboard says so', async () => {
    const { product, token, reportId } = await started();
    product.failures = Number.POSITIVE_INFINITY;
    await platformCancel(token, reportId).expect(200);
    for (let i = 0; i < 200 && (await productCancel(reportId)).product_cancel === 'pending'; i++) {
      await h.canceller.runOnce();
      h.clock.advance(DELIVERY_RETRY.maxMs);
    }
    const row = await productCancel(reportId);
    expect(row.product_cancel).toBe('dead');
    // Hourly retries for three days, give or take the first few.
    expect(product.calls.length).toBeGreaterThan(70);
    expect(product.calls.length).toBeLessThan(80);
    const page = await h.http().get(`/admin/reports/${reportId}`).set('Authorization', AUTH);
    expect(page.text).toContain(`never told of the cancel: given up after ${product.calls.length} attempts`);
    expect(page.text).toContain('last error: product API unavailable');
  });

  it('a cancel before the start: the invitation is never started, and the product hears nothing', async () => {
    const { product, token, reportId } = await sent();
    expect((await platformCancel(token, reportId)).status).toBe(200);
    await h.startAndMail();
    h.clock.advance(DELIVERY_RETRY.maxMs);
    await h.starter.runOnce();
    expect(await h.canceller.runOnce()).toBe(0);
    expect(product.starts).toEqual([]);
    expect(product.calls).toEqual([]);
    expect(await productCancel(reportId)).toEqual({ product_cancel: null, product_cancel_attempts: 0, product_cancel_error: null });
  });

  it('a cancel while the product is starting the invitation: the start is not recorded, and the product is told', async () => {
    const { product, token, reportId } = await sent();
    let release!: () => void;
    product.startGate = new Promise((resolve) => (release = resolve));
    const starting = h.starter.runOnce();
    await expect.poll(() => product.starts).toEqual([reportId]);
    expect((await platformCancel(token, reportId)).status).toBe(200);
    // Nothing to tell yet: as far as the kit knows, the product has started nothing.
    expect(await h.canceller.runOnce()).toBe(0);
    release();
    await starting;
    expect(await h.row('SELECT status, started_at FROM invitations WHERE report_id = ?', reportId)).toEqual({ status: 'canceled', started_at: null });
    await h.canceller.runOnce();
    expect(product.calls.map((call) => call.reportId)).toEqual([reportId]);
  });

  it.runIf(ON_POSTGRES)('two instances telling the product side by side: each cancel is told once', async () => {
    const { product, factory } = productWithHook();
    h = await flowHarness({ provider: factory });
    const c = await h.customer('Acme', ['JavaScript fundamentals'], COMPANY);
    const reportIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const body = sendBody(c.tests[0]!.id, { company_id: COMPANY });
      expect((await h.send(c.token, body)).status).toBe(201);
      reportIds.push(body.report_id);
    }
    await h.starter.runOnce();
    for (const reportId of reportIds) await platformCancel(c.token, reportId).expect(200);
    // A second instance: its own canceller over the same database, running at the same time.
    const other = productCanceller({ invitations: h.invitations, provider: h.provider, clock: h.clock, logger: createLogger('silent'), leaseMs: 60_000 });
    const tried = await Promise.all([h.canceller.runOnce(), other.runOnce()]);
    expect(tried[0] + tried[1]).toBe(reportIds.length);
    expect(product.calls.map((call) => call.reportId).sort()).toEqual([...reportIds].sort());
  });

  it("the product's own cancel (its `canceled` result) is not sent back to it", async () => {
    const { product, reportId } = await started();
    expect(await h.results.cancel(reportId)).toBe('recorded');
    expect(await h.canceller.runOnce()).toBe(0);
    expect(product.calls).toEqual([]);
    expect((await productCancel(reportId)).product_cancel).toBe('by_product');
  });

  it('the platform answers 404 to the first update of a report the product started: the kit cancels it, and the product is told', async () => {
    const { product, reportId } = await started({ accepted: false });
    await h.sql.transaction((tx) => h.lifecycle.platformAnswered(tx, reportId, { accepted: false, reason: '404' }));
    expect((await h.row('SELECT status FROM invitations WHERE report_id = ?', reportId))!.status).toBe('canceled');
    await h.canceller.runOnce();
    expect(product.calls.map((c) => [c.reportId, c.canceledBy])).toEqual([[reportId, 'platform']]);
  });
});

describe('a provider without a cancel hook', () => {
  it('cancels as before, and nothing is queued for the product', async () => {
    const h = await flowHarness();
    try {
      const c = await h.customer('Acme', ['JavaScript fundamentals'], COMPANY);
      const body = sendBody(c.tests[0]!.id, { company_id: COMPANY });
      await h.send(c.token, body);
      await h.startAndMail();
      await request(h.app).post(`/callbacks/reports/${body.report_id}/cancel`).set('Authorization', `Bearer ${c.token}`).expect(200);
      expect(await h.row('SELECT status, product_cancel FROM invitations WHERE report_id = ?', body.report_id)).toEqual({ status: 'canceled', product_cancel: null });
      expect(await h.canceller.runOnce()).toBe(0);
    } finally {
      await h.close();
    }
  });
});
