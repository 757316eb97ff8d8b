import { createHmac } from 'node:crypto';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebhookPayloads } from '../../src/contract/webhook-payloads.js';
import {
  ACME,
  GLOBEX,
  GUS,
  HANA,
  RILEY,
  webhookEndpoint,
  webhookPlatform,
  type WebhookEndpoint,
  type WebhookPlatform,
} from '../webhooks/mock-harness.js';

const hmac = (secret: string, body: Buffer | string) => createHmac('sha256', secret).update(body).digest('hex');

let platform: WebhookPlatform;
let endpoint: WebhookEndpoint;

beforeEach(async () => {
  platform = webhookPlatform();
  endpoint = await webhookEndpoint(platform.clock);
});
afterEach(() => endpoint.close());

const configurations = `/api/webhooks/c/${ACME}/configurations`;
const stored = () => platform.db.prepare('SELECT id, name FROM webhooks').all();

describe('webhook configurations', () => {
  it('are created after the URL answers the signed test request {"test": true} with 200, with a generated secret', async () => {
    const res = await platform
      .as(RILEY)
      .post(configurations)
      .send({ name: 'Skill Check', url: endpoint.url, events: ['candidate_moved', 'candidate_deleted'], notify_user_ids: [RILEY, HANA] })
      .expect(201);
    expect(res.body.webhook).toMatchObject({
      name: 'Skill Check',
      url: endpoint.url,
      events: ['candidate_moved', 'candidate_deleted'],
      notify_user_ids: [RILEY, HANA],
      created_by: RILEY,
      secret: platform.secrets[0],
    });
    expect(endpoint.received).toHaveLength(1);
    const [test] = endpoint.received;
    expect(test!.raw.toString('utf8')).toBe('{"test":true}');
    expect(test!.headers['content-type']).toBe('application/json');
    expect(test!.headers['user-agent']).toBe('Service-Webhooks');
    expect(test!.headers['x-service-signature']).toBe(hmac(platform.secrets[0]!, '{"test":true}'));

    const list = await platform.as(RILEY).get(configurations).expect(200);
    expect(list.body.webhooks).toHaveLength(1);
  });

  it('may select no events at all', async () => {
    const res = await platform.as(RILEY).post(configurations).send({ name: 'Later', url: endpoint.url }).expect(201);
    expect(res.body.webhook.events).toEqual([]);
  });

  it.each([
    [201, 'answered HTTP 201'],
    [204, 'answered HTTP 204'],
    [302, 'answered HTTP 302'],
    [500, 'answered HTTP 500'],
  ])('refuses a URL whose test request gets %i, storing nothing but the logged request', async (status, text) => {
    endpoint.answerTest(status);
    const res = await platform.as(RILEY).post(configurations).send({ name: 'X', url: endpoint.url }).expect(422);
    expect(res.body.error).toBe(`The URL must answer the test request with 200; it ${text}`);
    expect(res.body.errors.url).toHaveLength(1);
    expect(stored()).toEqual([]);
    const log = await platform.as(RILEY).get(`/api/webhooks/c/${ACME}/requests`).expect(200);
    expect(log.body.requests).toMatchObject([{ kind: 'test', webhook_id: null, response_status: status, body: '{"test":true}' }]);
  });

  it('refuses a URL nobody answers', async () => {
    const url = endpoint.url;
    await endpoint.close();
    const res = await platform.as(RILEY).post(configurations).send({ name: 'X', url }).expect(422);
    expect(res.body.error).toMatch(/could not be reached \(connection error: ECONNREFUSED/);
    expect(stored()).toEqual([]);
  });

  it.each([
    ['http://partner.example/hooks', 'must be an https URL (plain http only for localhost)'],
    ['ftp://127.0.0.1/hooks', 'must be an absolute https URL'],
    ['not a url', 'must be an absolute https URL'],
  ])('refuses %s before sending anything', async (url, message) => {
    const res = await platform.as(RILEY).post(configurations).send({ name: 'X', url }).expect(422);
    expect(res.body.errors.url).toContain(message);
    expect(endpoint.received).toHaveLength(0);
  });

  it('validates name, events and recipients with every problem at once', async () => {
    const res = await platform
      .as(RILEY)
      .post(configurations)
      .send({ name: '', url: endpoint.url, events: ['candidate_hired'] })
      .expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['events.0', 'name']);
    const strangers = await platform
      .as(RILEY)
      .post(configurations)
      .send({ name: 'X', url: endpoint.url, notify_user_ids: [GUS] })
      .expect(422);
    expect(strangers.body.errors.notify_user_ids).toEqual([`${GUS} is not a member of this company`]);
    expect(endpoint.received).toHaveLength(0);
  });

  describe('need the acting member’s "Manage webhooks" ability', () => {
    it('401 without the X-Mock-User header', async () => {
      const res = await request(platform.app).get(configurations).expect(401);
      expect(res.body.error).toMatch(/X-Mock-User/);
    });

    it('403 for a member without the ability, and nothing is sent', async () => {
      const res = await platform.as(HANA).post(configurations).send({ name: 'X', url: endpoint.url }).expect(403);
      expect(res.body.error).toBe('Managing webhooks requires the "Manage webhooks" ability');
      expect(endpoint.received).toHaveLength(0);
      await platform.as(HANA).get(`/api/webhooks/c/${ACME}/requests`).expect(403);
      await platform.as(HANA).get(`/api/webhooks/c/${ACME}/deliveries`).expect(403);
    });

    it('403 for a member of another company', async () => {
      const res = await platform.as(GUS).get(configurations).expect(403);
      expect(res.body.error).toBe(`User ${GUS} is not a member of this company`);
    });

    it('a webhook of one company is not found through another', async () => {
      const mine = await platform.configure(GLOBEX, GUS, { url: endpoint.url });
      await platform.as(RILEY).get(`${configurations}/${mine.id}`).expect(404);
      await platform.as(RILEY).delete(`${configurations}/${mine.id}`).expect(404);
    });
  });

  it('a changed URL is tested first; if it fails nothing changes', async () => {
    const webhook = await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['offer_published'] });
    const other = await webhookEndpoint(platform.clock);
    try {
      other.answerTest(404);
      await platform.as(RILEY).patch(`${configurations}/${webhook.id}`).send({ url: other.url, name: 'Renamed' }).expect(422);
      expect((await platform.as(RILEY).get(`${configurations}/${webhook.id}`).expect(200)).body.webhook).toMatchObject({
        url: endpoint.url,
        name: 'Partner',
      });
      other.answerTest(200);
      const res = await platform.as(RILEY).patch(`${configurations}/${webhook.id}`).send({ url: other.url, events: [] }).expect(200);
      expect(res.body.webhook).toMatchObject({ url: other.url, events: [], secret: webhook.secret });
      expect(other.received.at(-1)!.headers['x-service-signature']).toBe(hmac(webhook.secret, '{"test":true}'));
    } finally {
      await other.close();
    }
  });

  it('"test payload" sends an example event of the chosen type plus "test": true, signed, and logs it', async () => {
    const webhook = await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'] });
    endpoint.answer(200, 'thanks');
    const res = await platform
      .as(RILEY)
      .post(`${configurations}/${webhook.id}/test-payload`)
      .send({ event_type: 'candidate_deleted' })
      .expect(200);
    expect(res.body.request).toMatchObject({ kind: 'test_payload', webhook_id: webhook.id, response_status: 200, response_body: 'thanks' });
    const sent = endpoint.received.at(-1)!;
    expect(sent.headers['x-service-signature']).toBe(hmac(webhook.secret, sent.raw));
    expect(sent.body).toMatchObject({ test: true, event_type: 'candidate_deleted', event_subtype: 'manual', attempt_count: 1 });
    expect(WebhookPayloads.candidate_deleted.safeParse(sent.body.payload).success).toBe(true);
    expect((sent.body.payload as { company: unknown }).company).toEqual({ id: ACME, name: 'Acme Corp' });

    // Without a type: the configuration's first selected event.
    await platform.as(RILEY).post(`${configurations}/${webhook.id}/test-payload`).send({}).expect(200);
    expect(endpoint.received.at(-1)!.body).toMatchObject({ test: true, event_type: 'candidate_moved', event_subtype: 'stage_changed' });
    expect(WebhookPayloads.candidate_moved.safeParse(endpoint.received.at(-1)!.body.payload).success).toBe(true);
  });

  it.each(Object.keys(WebhookPayloads))('the example %s payload matches the interface document’s shape', async (eventType) => {
    const webhook = await platform.configure(ACME, RILEY, { url: endpoint.url });
    await platform.as(RILEY).post(`${configurations}/${webhook.id}/test-payload`).send({ event_type: eventType }).expect(200);
    const body = endpoint.received.at(-1)!.body;
    expect(body.event_type).toBe(eventType);
    const schema = WebhookPayloads[eventType as keyof typeof WebhookPayloads];
    expect(schema.safeParse(body.payload).error).toBeUndefined();
  });

  it('a failed test payload is reported, not retried', async () => {
    const webhook = await platform.configure(ACME, RILEY, { url: endpoint.url });
    endpoint.answer(500);
    const res = await platform.as(RILEY).post(`${configurations}/${webhook.id}/test-payload`).send({}).expect(200);
    expect(res.body.request.response_status).toBe(500);
    expect(await platform.webhooks.deliverer.runOnce()).toBe(0);
  });
});
