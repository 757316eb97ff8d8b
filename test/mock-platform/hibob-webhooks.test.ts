import request from 'supertest';
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningMockPlatform } from '../../src/mock-platform/server.js';
import { verifyBobSignature } from '../../src/partner/platforms/hibob/signature.js';
import { EDSGER, VANDELAY, WEBHOOK_SECRET, bobSandbox, exchange, fakeVendor, order, register, type FakeVendor } from './hibob-support.js';

/**
 * Bob's webhooks from the mock (docs/hibob.md §5): each order and cancel is an event of ids only,
 * signed in `Bob-Signature` (Base64 of HMAC-SHA512 of the exact bytes under the app's webhook
 * secret), sent to the vendor's one listener; a failed delivery is retried 1, 10, 20, 40, 80 and
 * 160 minutes after its first failure on the mock's clock, then given up; a fault plays a listener
 * that fails; "Deliver again" sends the same bytes as a duplicate.
 */

let vendor: FakeVendor;
let mock: RunningMockPlatform;
beforeEach(async () => {
  vendor = await fakeVendor();
  let code: string;
  // The worker runs, as under npm run dev: retries go out when the clock makes them due.
  ({ mock, code } = await bobSandbox(vendor, { workers: true }));
  const { access } = await exchange(mock, code);
  await register(mock, access, [{ id: 'js', name: 'JavaScript' }]).expect(201);
});
afterEach(async () => {
  await mock.close();
  await vendor.close();
});

interface DeliveryRow {
  id: number;
  status: string;
  attempts: number;
  first_failed_at: string | null;
  next_attempt_at: string | null;
  last_status: number | null;
}
const delivery = () => mock.db.prepare('SELECT id, status, attempts, first_failed_at, next_attempt_at, last_status FROM hibob_deliveries ORDER BY id DESC').get() as DeliveryRow;
const mockNow = async () => Date.parse((await request(mock.url).get('/_mock/clock').expect(200)).body.now as string);
const advance = (ms: number) => request(mock.url).post('/_mock/clock').send({ advance: Math.max(0, Math.round(ms)) }).expect(200);
/** The webhook calls in the call log, oldest first: when (the mock's clock) and how each went. */
const attempts = async () =>
  ((await request(mock.url).get('/_mock/calls?endpoint=hibob.webhook&order=asc').expect(200)).body.calls as { created_at: string; response_status: number | null; fault: string | null }[]).map((c) => ({
    at: Date.parse(c.created_at),
    status: c.response_status,
    fault: c.fault,
  }));

describe('an event', () => {
  it("is the order's ids, signed over its exact bytes with the app's webhook secret, as the kit's verifier checks it", async () => {
    const { requestId } = await order(mock, 'js', EDSGER);
    expect(vendor.webhooks).toHaveLength(1);
    const [sent] = vendor.webhooks;
    expect(sent!.contentType).toBe('application/json');
    expect(sent!.signature).toBe(createHmac('sha512', WEBHOOK_SECRET).update(sent!.body).digest('base64'));
    expect(verifyBobSignature(WEBHOOK_SECRET, Buffer.from(sent!.body), sent!.signature)).toBe(true);
    expect(verifyBobSignature('another-secret', Buffer.from(sent!.body), sent!.signature)).toBe(false);
    expect(JSON.parse(sent!.body)).toEqual({
      companyId: VANDELAY,
      type: 'assessment.triggered',
      triggeredBy: '3332883884',
      triggeredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      version: 'v2',
      data: { assessmentRequestId: requestId },
    });
    expect(requestId).toMatch(/^\d{10}$/);

    const { id } = mock.db.prepare('SELECT id FROM hibob_assessments WHERE request_id = ?').get(requestId) as { id: number };
    await request(mock.url).post(`/hibob/companies/${VANDELAY}/assessments/${id}/cancel`).type('form').send({}).expect(303);
    expect(vendor.webhooks).toHaveLength(2);
    expect(JSON.parse(vendor.webhooks[1]!.body)).toMatchObject({ companyId: VANDELAY, type: 'assessment.cancelled', data: { assessmentRequestId: requestId } });
    expect(verifyBobSignature(WEBHOOK_SECRET, Buffer.from(vendor.webhooks[1]!.body), vendor.webhooks[1]!.signature)).toBe(true);
  });

  it('is delivered again, the same bytes and signature, when the recruiter asks for a duplicate', async () => {
    await order(mock, 'js');
    const { id } = delivery();
    await request(mock.url).post(`/hibob/companies/${VANDELAY}/deliveries/${id}/again`).type('form').send({}).expect(303);
    expect(vendor.webhooks).toHaveLength(2);
    expect(vendor.webhooks[1]).toEqual(vendor.webhooks[0]);
  });
});

describe("a failed delivery, on Bob's schedule", () => {
  it('is retried 1, 10, 20, 40, 80 and 160 minutes after the first failure, never before, then given up', async () => {
    vendor.state.webhookStatus = 500;
    const { page } = await order(mock, 'js');
    expect(page).toContain('The assessment.triggered webhook was not delivered (HTTP 500; attempt 1 of 7): Bob tries again at');
    const first = delivery();
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status: 500 });
    const failedAt = Date.parse(first.first_failed_at!);

    for (const [n, minutes] of [1, 10, 20, 40, 80, 160].entries()) {
      const due = failedAt + minutes * 60_000;
      expect(Date.parse(delivery().next_attempt_at!)).toBe(due);
      // Up to a second before it is due: the worker, woken, has nothing to send.
      await advance(due - (await mockNow()) - 1000);
      await advance(1000);
      await vendor.delivered(n + 2);
      await expect.poll(() => delivery().attempts, { timeout: 10_000 }).toBe(n + 2);
    }
    const made = await attempts();
    expect(made).toHaveLength(7);
    // Each retry at or after its time, none early (the first attempt is the failure the schedule counts from: it comes before it is recorded).
    [1, 10, 20, 40, 80, 160].forEach((minutes, i) => expect(made[i + 1]!.at).toBeGreaterThanOrEqual(failedAt + minutes * 60_000));
    expect(delivery()).toMatchObject({ status: 'failed', attempts: 7, next_attempt_at: null });
    const report = await request(mock.url).get(`/hibob/companies/${VANDELAY}/candidates/1`).expect(200);
    expect(report.text).toContain('The assessment.triggered webhook was given up after 7 attempts (last: HTTP 500).');
  });

  it('is delivered by the first retry the listener answers 2xx, and tried no more', async () => {
    vendor.state.webhookStatus = 503;
    const { requestId } = await order(mock, 'js');
    vendor.state.webhookStatus = 200;
    await advance(60_000);
    await vendor.delivered(2);
    await expect.poll(() => delivery().status, { timeout: 10_000 }).toBe('delivered');
    expect(delivery()).toMatchObject({ attempts: 2, next_attempt_at: null, last_status: 200 });
    expect(vendor.webhooks[1]).toEqual(vendor.webhooks[0]);
    const report = (await request(mock.url).get(`/_mock/platforms/hibob/reports/${requestId}`).expect(200)).body.report;
    expect(report.problem).toBeNull();
  });

  it('fails the same way when a fault plays the listener: the vendor receives nothing until the retry', async () => {
    await request(mock.url).post('/_mock/faults').send({ target: 'callback', endpoint: 'hibob.webhook', status: 500, times: 1 }).expect(201);
    await order(mock, 'js');
    expect(vendor.webhooks).toHaveLength(0);
    expect(delivery()).toMatchObject({ status: 'pending', attempts: 1, last_status: 500 });
    await advance(60_000);
    await vendor.delivered(1);
    await expect.poll(() => delivery().status, { timeout: 10_000 }).toBe('delivered');
    expect((await attempts()).map((a) => [a.status, a.fault !== null])).toEqual([
      [500, true],
      [200, false],
    ]);
  });
});
