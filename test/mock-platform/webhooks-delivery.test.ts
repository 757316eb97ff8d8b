import { createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WEBHOOK_RETRY_DELAYS_MS } from '../../src/contract/decisions.js';
import { parseWebhookEvent } from '../../src/contract/webhook-payloads.js';
import {
  ACME,
  ADA,
  BACKEND_OFFER,
  EDSGER,
  GLOBEX,
  GUS,
  RILEY,
  WAREHOUSE_OFFER,
  webhookEndpoint,
  webhookPlatform,
  type WebhookEndpoint,
  type WebhookPlatform,
} from '../webhooks/mock-harness.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const hmac = (secret: string, body: Buffer | string) => createHmac('sha256', secret).update(body).digest('hex');

let platform: WebhookPlatform;
let endpoint: WebhookEndpoint;

beforeEach(async () => {
  platform = webhookPlatform();
  endpoint = await webhookEndpoint(platform.clock);
});
afterEach(() => endpoint.close());

const disqualifyAda = () =>
  platform.pipeline('post', `${ACME}/candidates/${ADA}/placements/${BACKEND_OFFER}/disqualify`, { reason_id: 1 }).then((res) => {
    expect(res.status).toBe(200);
  });
const runOnce = () => platform.webhooks.deliverer.runOnce();
const deliveries = async () =>
  (await platform.as(RILEY).get(`/api/webhooks/c/${ACME}/deliveries`).expect(200)).body.deliveries as {
    id: number;
    status: string;
    attempt_count: number;
    next_attempt_at: string | null;
    rate_limited: number;
  }[];

describe('webhook delivery', () => {
  it('POSTs the event as signed JSON with the interface document’s headers, and a 200 delivers it', async () => {
    const webhook = await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'] });
    await disqualifyAda();
    expect(await runOnce()).toBe(1);

    const [req] = endpoint.events();
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['user-agent']).toBe('Service-Webhooks');
    expect(req!.headers['x-service-signature']).toBe(hmac(webhook.secret, req!.raw));
    expect(req!.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    const event = parseWebhookEvent(JSON.parse(req!.raw.toString('utf8')));
    expect(event).toMatchObject({ attempt_count: 1, event_type: 'candidate_moved', event_subtype: 'disqualified' });
    expect(Object.keys(JSON.parse(req!.raw.toString('utf8')) as object)).toEqual([
      'id', 'attempt_count', 'created_at', 'event_type', 'event_subtype', 'payload',
    ]);
    expect('test' in req!.body).toBe(false);
    expect((await deliveries())[0]).toMatchObject({ status: 'delivered', attempt_count: 1, next_attempt_at: null });
    expect(await runOnce()).toBe(0);
  });

  it('retries a failing endpoint nine times on the interface document’s schedule with the same id and created_at, then gives up', async () => {
    endpoint.answer(500, 'down');
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'], notify_user_ids: [RILEY] });
    const t0 = platform.clock.now();
    await disqualifyAda();

    // 0, 1 m, 4 m, 14 m, 59 m, 2 h 59 m, 7 h 59 m, 17 h 59 m, 41 h 59 m, 89 h 59 m after the event.
    const offsets = [0];
    for (const delay of WEBHOOK_RETRY_DELAYS_MS) offsets.push(offsets.at(-1)! + delay);
    expect(offsets.map((o) => o / MINUTE)).toEqual([0, 1, 4, 14, 59, 179, 479, 1079, 2519, 5399]);
    for (const offset of offsets) {
      if (offset > 0) {
        platform.clock.set(t0 + offset - 1);
        expect(await runOnce()).toBe(0);
      }
      platform.clock.set(t0 + offset);
      expect(await runOnce()).toBe(1);
    }
    platform.clock.set(t0 + offsets.at(-1)! + 30 * DAY - 1);
    expect(await runOnce()).toBe(0);

    const sent = endpoint.events();
    expect(sent.map((r) => r.at - t0)).toEqual(offsets);
    expect(sent.map((r) => r.body.attempt_count)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(new Set(sent.map((r) => r.body.id)).size).toBe(1);
    expect(new Set(sent.map((r) => r.body.created_at))).toEqual(new Set([new Date(t0).toISOString()]));
    expect(new Set(sent.map((r) => JSON.stringify(r.body.payload))).size).toBe(1);
  });

  it('shows the failed delivery as given up, logs each request with its next attempt time, and e-mails the chosen members twice', async () => {
    endpoint.answer(503, 'maintenance');
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'], notify_user_ids: [RILEY] });
    const t0 = platform.clock.now();
    await disqualifyAda();
    await runOnce();

    const [first] = (await platform.as(RILEY).get(`/api/webhooks/c/${ACME}/requests?kind=event`).expect(200)).body.requests;
    expect(first).toMatchObject({
      kind: 'event',
      attempt_count: 1,
      response_status: 503,
      response_body: 'maintenance',
      next_attempt_at: new Date(t0 + MINUTE).toISOString(),
    });
    expect(JSON.parse(first.body as string)).toMatchObject({ attempt_count: 1, event_type: 'candidate_moved' });

    let mail = platform.mail.list().filter((m) => m.kind === 'webhook_failure');
    expect(mail).toHaveLength(1);
    expect(mail[0]).toMatchObject({ to: 'riley@acme.example', companyId: ACME });
    expect(mail[0]!.body).toContain('attempt 1 of 10 answered HTTP 503');
    expect(mail[0]!.body).toContain(`The next attempt is at ${new Date(t0 + MINUTE).toISOString()}`);
    expect(mail[0]!.body).not.toContain(platform.secrets[0]!);

    for (let i = 0; i < 9; i++) {
      platform.clock.advance(2 * DAY);
      await runOnce();
    }
    expect((await deliveries())[0]).toMatchObject({ status: 'failed', attempt_count: 10, next_attempt_at: null });
    mail = platform.mail.list().filter((m) => m.kind === 'webhook_failure');
    expect(mail).toHaveLength(2);
    expect(mail[1]!.body).toContain('attempt 10 of 10');
    expect(mail[1]!.body).toContain('No more automatic retries');
  });

  it.each([201, 204, 301, 404, 500])('counts a %i as a failure: only 200 is success', async (status) => {
    endpoint.answer(status);
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'] });
    await disqualifyAda();
    await runOnce();
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', attempt_count: 1 });
  });

  it('gives up on a request after the timeout and schedules the retry', async () => {
    platform = webhookPlatform({ timeoutMs: 200 });
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'] });
    // The endpoint holds its answer: only giving up lets the run finish while it is still held.
    const held: ServerResponse[] = [];
    endpoint.on((_req, res) => void held.push(res));
    await disqualifyAda();
    await runOnce();
    expect(held).toHaveLength(1);
    expect(held[0]!.headersSent).toBe(false);
    const [req] = (await platform.as(RILEY).get(`/api/webhooks/c/${ACME}/requests?kind=event`).expect(200)).body.requests;
    expect(req).toMatchObject({ response_status: null, error: 'timed out after 200 ms' });
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', attempt_count: 1 });
  });

  it('cancel retry stops the automatic attempts; cancelling twice is a 409', async () => {
    endpoint.answer(500);
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'] });
    await disqualifyAda();
    await runOnce();
    const [delivery] = await deliveries();
    const canceled = await platform.as(RILEY).post(`/api/webhooks/c/${ACME}/deliveries/${delivery!.id}/cancel`).expect(200);
    expect(canceled.body.delivery).toMatchObject({ status: 'canceled', next_attempt_at: null, attempt_count: 1 });
    platform.clock.advance(5 * DAY);
    expect(await runOnce()).toBe(0);
    expect(endpoint.events()).toHaveLength(1);
    await platform.as(RILEY).post(`/api/webhooks/c/${ACME}/deliveries/${delivery!.id}/cancel`).expect(409);
  });

  it('retry now sends the next attempt at once, and a given-up delivery gets one more try', async () => {
    endpoint.answer(500);
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'] });
    await disqualifyAda();
    await runOnce();
    const [delivery] = await deliveries();
    const retried = await platform.as(RILEY).post(`/api/webhooks/c/${ACME}/deliveries/${delivery!.id}/retry`).expect(202);
    expect(retried.body.delivery).toMatchObject({ status: 'pending', next_attempt_at: new Date(platform.clock.now()).toISOString() });
    expect(await runOnce()).toBe(1);
    expect(endpoint.events().map((r) => r.body.attempt_count)).toEqual([1, 2]);
    // The schedule goes on from the attempt made: retry 2 is due 3 minutes after it failed.
    expect((await deliveries())[0]!.next_attempt_at).toBe(new Date(platform.clock.now() + 3 * MINUTE).toISOString());

    await platform.as(RILEY).post(`/api/webhooks/c/${ACME}/deliveries/${delivery!.id}/cancel`).expect(200);
    endpoint.answer(200);
    await platform.as(RILEY).post(`/api/webhooks/c/${ACME}/deliveries/${delivery!.id}/retry`).expect(202);
    expect(await runOnce()).toBe(1);
    expect((await deliveries())[0]).toMatchObject({ status: 'delivered', attempt_count: 3 });
    await platform.as(RILEY).post(`/api/webhooks/c/${ACME}/deliveries/${delivery!.id}/retry`).expect(409);
  });

  it('retry now on a canceled delivery makes one attempt and leaves it canceled, as for a given-up one', async () => {
    endpoint.answer(500);
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'] });
    await disqualifyAda();
    await runOnce();
    const [delivery] = await deliveries();
    await platform.as(RILEY).post(`/api/webhooks/c/${ACME}/deliveries/${delivery!.id}/cancel`).expect(200);
    const retried = await platform.as(RILEY).post(`/api/webhooks/c/${ACME}/deliveries/${delivery!.id}/retry`).expect(202);
    expect(retried.body.delivery).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(await runOnce()).toBe(1);
    expect(endpoint.events().map((r) => r.body.attempt_count)).toEqual([1, 2]);
    // Failed again: no automatic schedule starts over.
    expect((await deliveries())[0]).toMatchObject({ status: 'canceled', attempt_count: 2, next_attempt_at: null });
    const [lastRequest] = (await platform.as(RILEY).get(`/api/webhooks/c/${ACME}/requests?kind=event`).expect(200)).body.requests;
    expect(lastRequest).toMatchObject({ attempt_count: 2, response_status: 500, next_attempt_at: null });
    for (const delay of WEBHOOK_RETRY_DELAYS_MS) {
      platform.clock.advance(delay);
      expect(await runOnce()).toBe(0);
    }
    expect(endpoint.events()).toHaveLength(2);

    // Another "retry now" is one more attempt; a success delivers it.
    endpoint.answer(200);
    await platform.as(RILEY).post(`/api/webhooks/c/${ACME}/deliveries/${delivery!.id}/retry`).expect(202);
    expect(await runOnce()).toBe(1);
    expect((await deliveries())[0]).toMatchObject({ status: 'delivered', attempt_count: 3 });
  });

  it('retry now on a pending delivery keeps its automatic schedule', async () => {
    endpoint.answer(500);
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'] });
    await disqualifyAda();
    await runOnce();
    const [delivery] = await deliveries();
    await platform.as(RILEY).post(`/api/webhooks/c/${ACME}/deliveries/${delivery!.id}/retry`).expect(202);
    await runOnce();
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', attempt_count: 2 });
    platform.clock.advance(3 * MINUTE);
    expect(await runOnce()).toBe(1);
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', attempt_count: 3 });
  });

  it('delays requests over a trial company’s 5 per minute by 10 minutes ± 5, without counting an attempt', async () => {
    const draws = [0, 1, 0.5];
    platform = webhookPlatform({ random: () => draws.shift() ?? 0.5 });
    await platform.configure(GLOBEX, GUS, { url: endpoint.url, events: ['candidate_moved'] });
    const t0 = platform.clock.now();
    for (let stage = 2; stage <= 7; stage++) {
      const res = await platform.pipeline('post', `${GLOBEX}/candidates/${EDSGER}/placements/${WAREHOUSE_OFFER}/move`, { stage_id: stage });
      expect(res.status).toBe(200);
    }
    await platform.pipeline('post', `${GLOBEX}/candidates/${EDSGER}/placements/${WAREHOUSE_OFFER}/move`, { stage_id: 1 });
    expect(await runOnce()).toBe(5);

    const list = (await platform.as(GUS).get(`/api/webhooks/c/${GLOBEX}/deliveries`).expect(200)).body.deliveries as {
      event_id: number;
      attempt_count: number;
      next_attempt_at: string;
      rate_limited: number;
    }[];
    const delayed = list.filter((d) => d.rate_limited === 1).sort((a, b) => a.event_id - b.event_id);
    expect(delayed.map((d) => [d.attempt_count, Date.parse(d.next_attempt_at) - t0])).toEqual([
      [0, 5 * MINUTE],
      [0, 15 * MINUTE],
    ]);

    // Inside the minute nothing more goes out; after it, the two wait for their own time.
    platform.clock.advance(59_999);
    expect(await runOnce()).toBe(0);
    platform.clock.set(t0 + 5 * MINUTE);
    expect(await runOnce()).toBe(1);
    platform.clock.set(t0 + 15 * MINUTE);
    expect(await runOnce()).toBe(1);
    expect(endpoint.events().map((r) => r.body.attempt_count)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(new Set(endpoint.events().map((r) => r.body.id)).size).toBe(7);
  });

  it('lets a standard company send 100 requests a minute and delays the 101st', async () => {
    platform = webhookPlatform({ random: () => 0.5 });
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['offer_updated'] });
    for (let i = 0; i < 101; i++) {
      await platform.pipeline('patch', `${ACME}/offers/${BACKEND_OFFER}`, { title: `Backend Engineer ${i}` }).then((r) => expect(r.status).toBe(200));
    }
    expect(await runOnce()).toBe(100);
    const delayed = (await deliveries()).filter((d) => d.rate_limited > 0);
    expect(delayed).toHaveLength(1);
    expect(Date.parse(delayed[0]!.next_attempt_at!) - platform.clock.now()).toBe(10 * MINUTE);
  });

  it('retries a delivery whose worker died mid-request once its lease is over, as the next attempt', async () => {
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'] });
    await disqualifyAda();
    const store = platform.webhooks.store;
    const [due] = store.due(10);
    // A worker takes the delivery and dies before recording an answer.
    store.claim(due!, platform.clock.now() + 70_000, () => ({ headers: {}, body: '{}' }));
    expect(await runOnce()).toBe(0);
    platform.clock.advance(70_000);
    expect(await runOnce()).toBe(1);
    expect(endpoint.events().map((r) => r.body.attempt_count)).toEqual([2]);
    const requests = store.requests(ACME, { kind: 'event' });
    expect(requests.map((r) => [r.attemptCount, r.error])).toEqual([
      [2, null],
      [1, 'interrupted before an answer was recorded'],
    ]);
  });

  it('keeps the request log for 30 days', async () => {
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'] });
    await disqualifyAda();
    await runOnce();
    const log = () => platform.as(RILEY).get(`/api/webhooks/c/${ACME}/requests`).expect(200).then((r) => r.body.requests as unknown[]);
    expect(await log()).toHaveLength(2);
    platform.clock.advance(30 * DAY - 1);
    await runOnce();
    expect(await log()).toHaveLength(2);
    platform.clock.advance(2);
    await runOnce();
    expect(await log()).toHaveLength(0);
    expect(await deliveries()).toHaveLength(0);
  });

  it('signs with the new secret after a rotation, retries included', async () => {
    endpoint.answer(500);
    const webhook = await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'] });
    await disqualifyAda();
    await runOnce();
    const rotated = await platform.as(RILEY).post(`/api/webhooks/c/${ACME}/configurations/${webhook.id}/secret`).expect(200);
    const secret = rotated.body.webhook.secret as string;
    expect(secret).not.toBe(webhook.secret);
    platform.clock.advance(MINUTE);
    await runOnce();
    const [first, second] = endpoint.events();
    expect(first!.headers['x-service-signature']).toBe(hmac(webhook.secret, first!.raw));
    expect(second!.headers['x-service-signature']).toBe(hmac(secret, second!.raw));
  });

  it('delivers only to configurations that selected the event, and deleting one cancels what it had pending', async () => {
    endpoint.answer(500);
    const moved = await platform.configure(ACME, RILEY, { name: 'Moves', url: endpoint.url, events: ['candidate_moved'] });
    await platform.configure(ACME, RILEY, { name: 'Nothing yet', url: endpoint.url, events: [] });
    await platform.configure(ACME, RILEY, { name: 'Offers', url: endpoint.url, events: ['offer_published'] });
    await disqualifyAda();
    await runOnce();
    expect((await deliveries()).map((d) => [d.status, d.attempt_count])).toEqual([['pending', 1]]);
    await platform.as(RILEY).delete(`/api/webhooks/c/${ACME}/configurations/${moved.id}`).expect(204);
    expect((await deliveries()).map((d) => d.status)).toEqual(['canceled']);
    platform.clock.advance(DAY);
    expect(await runOnce()).toBe(0);
  });

  it('survives a restart: a delivery stored in a database file is sent by the next process', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { startMockPlatform } = await import('../../src/mock-platform/server.js');
    const dir = mkdtempSync(path.join(tmpdir(), 'mock-webhooks-'));
    const databasePath = path.join(dir, 'mock.db');
    try {
      const first = await startMockPlatform({ databasePath, logLevel: 'silent', webhookWorker: false });
      const request = (await import('supertest')).default;
      await request(first.url).post(`/api/webhooks/c/${ACME}/configurations`).set('x-mock-user', String(RILEY))
        .send({ name: 'Partner', url: endpoint.url, events: ['candidate_moved'] }).expect(201);
      await request(first.url).post(`/api/pipeline/c/${ACME}/candidates/${ADA}/placements/${BACKEND_OFFER}/disqualify`).send({ reason_id: 2 }).expect(200);
      await first.close();
      expect(endpoint.events()).toHaveLength(0);

      const second = await startMockPlatform({ databasePath, logLevel: 'silent', webhookWorker: false });
      expect(await second.webhooks.deliverer.runOnce()).toBe(1);
      await second.close();
      expect(endpoint.events()[0]!.body).toMatchObject({ event_type: 'candidate_moved', event_subtype: 'disqualified', attempt_count: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
