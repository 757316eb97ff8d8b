import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/contract/signature.js';
import {
  COMPANY,
  PREVIOUS_SECRET,
  SECRET,
  candidateEvent,
  envelope,
  nextEventId,
  partnerWebhooks,
  signed,
  type PartnerWebhooks,
} from './partner-harness.js';

let partner: PartnerWebhooks;
beforeEach(async () => {
  partner = await partnerWebhooks();
});
afterEach(() => partner.close());

const URL = `/webhooks/platform/${COMPANY}`;
// Strings go out byte for byte (superagent would JSON-encode a Buffer sent as application/json).
const post = (body: string | Buffer, headers: Record<string, string> = {}, url = URL) =>
  request(partner.app).post(url).set(headers).send(typeof body === 'string' ? body : body.toString('utf8'));
const rows = () => partner.rows('SELECT event_id, status, duplicates FROM webhook_inbox ORDER BY event_id');

describe('webhook receiver', () => {
  it('answers a signed event 200 at once and stores it for the processor', async () => {
    const id = nextEventId();
    const body = envelope({ id });
    const res = await post(body, signed(body)).expect(200);
    expect(res.body).toEqual({ ok: true });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(await rows()).toEqual([{ event_id: id, status: 'pending', duplicates: 0 }]);
    expect(partner.stored()).toBe(1);
    expect(await partner.processor.inbox.find(COMPANY, id)).toMatchObject({ eventType: 'offer_published', offerId: 101, companyId: COMPANY });
  });

  describe('the test request', () => {
    it.each(['{"test":true}', '{"test": true}', '{ "test" : true }\n'])('answers %j 200 without a signature, storing nothing', async (body) => {
      await post(body, { 'content-type': 'application/json' }).expect(200, { ok: true });
      expect(await rows()).toEqual([]);
      expect(partner.stored()).toBe(0);
    });

    it('answers it 200 for a company whose secret the partner does not know yet', async () => {
      await post('{"test":true}', {}, '/webhooks/platform/42').expect(200);
    });

    it('answers a signed "test payload" (an example event plus "test": true) 200, storing nothing', async () => {
      const body = JSON.stringify({ ...JSON.parse(envelope({ id: 0 })), test: true });
      await post(body, signed(body)).expect(200);
      expect(await rows()).toEqual([]);
    });

    it('does not let "test": true skip the signature of anything else', async () => {
      const body = JSON.stringify({ ...JSON.parse(envelope({})), test: true });
      await post(body, { 'x-service-signature': '0'.repeat(64) }).expect(401);
      await post('{"test":true,"x":1}').expect(401);
    });
  });

  describe('refuses a bad signature with 401, never a 500, storing nothing', () => {
    const body = envelope({ id: 77 });
    const good = signWebhookBody(SECRET, body);
    it.each([
      ['no signature header', undefined],
      ['an empty signature', ''],
      ['63 hex characters', good.slice(0, 63)],
      ['65 hex characters', `${good}a`],
      ['uppercase hex', good.toUpperCase()],
      ['a non-ASCII header', 'é'.repeat(64)],
      ['a signature made with another secret', signWebhookBody('someone-elses-secret-123', body)],
      ['a signature of another body', signWebhookBody(SECRET, envelope({ id: 78 }))],
    ])('%s', async (_name, signature) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (signature !== undefined) headers['x-service-signature'] = signature;
      const res = await post(body, headers).expect(401);
      expect(res.body).toEqual({ error: 'Invalid signature' });
      expect(await rows()).toEqual([]);
    });

    it('the body changed by one bit after signing', async () => {
      const raw = Buffer.from(body);
      raw[raw.length - 3]! ^= 0x02;
      await post(raw, { 'x-service-signature': good }).expect(401);
    });

    it('a company the partner holds no secret for', async () => {
      const other = envelope({ companyId: 42 });
      await post(other, signed(other), '/webhooks/platform/42').expect(401);
    });

    it('a body re-serialised after signing', async () => {
      const spaced = '{"id": 79, "attempt_count": 1, "created_at": "2026-03-02T07:59:00.000Z", "event_type": "offer_published", "event_subtype": "manual", "payload": {}}';
      await post(JSON.stringify(JSON.parse(spaced)), signed(spaced)).expect(401);
      await post(spaced, signed(spaced)).expect(200);
    });
  });

  it('accepts the previous secret during a rotation, and no longer once it is removed', async () => {
    partner.secrets.set(COMPANY, [SECRET, PREVIOUS_SECRET]);
    const old = envelope({});
    await post(old, signed(old, PREVIOUS_SECRET)).expect(200);
    const current = envelope({});
    await post(current, signed(current, SECRET)).expect(200);
    partner.secrets.set(COMPANY, [SECRET]);
    const late = envelope({});
    await post(late, signed(late, PREVIOUS_SECRET)).expect(401);
    expect(await rows()).toHaveLength(2);
  });

  it('checks a company’s events with that company’s secret only', async () => {
    partner.secrets.set(2, ['secret-of-company-two-0123']);
    // Company 2's secret, sent to company 1's URL.
    const forged = envelope({ companyId: 1 });
    await post(forged, signed(forged, 'secret-of-company-two-0123')).expect(401);
    // Company 1's secret, but the payload names company 2.
    const mismatched = envelope({ companyId: 2 });
    const res = await post(mismatched, signed(mismatched)).expect(422);
    expect(res.body.errors).toEqual({ 'payload.company.id': [`must be ${COMPANY}, the company in the URL`] });
    expect(await rows()).toEqual([]);
  });

  it('answers a redelivery of the same event id 200 without storing it again', async () => {
    const id = nextEventId();
    const first = envelope({ id, attempt_count: 1 });
    const retry = envelope({ id, attempt_count: 2 });
    await post(first, signed(first)).expect(200, { ok: true });
    const res = await post(retry, signed(retry)).expect(200);
    expect(res.body).toEqual({ ok: true, duplicate: true });
    expect(await rows()).toEqual([{ event_id: id, status: 'pending', duplicates: 1 }]);
    expect(partner.stored()).toBe(1);
  });

  it('refuses a signed body that is not JSON with 400, and one that is not an envelope with 422', async () => {
    const broken = '{"id": 5,';
    expect((await post(broken, signed(broken)).expect(400)).body).toEqual({ error: 'Malformed JSON body' });
    const notEnvelope = JSON.stringify({ id: 'x', payload: [] });
    const res = await post(notEnvelope, signed(notEnvelope)).expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['attempt_count', 'created_at', 'event_subtype', 'event_type', 'id', 'payload']);
    expect(await rows()).toEqual([]);
  });

  it('accepts an event type the kit does not know, to record it', async () => {
    const body = envelope({ event_type: 'candidate_hired', event_subtype: 'manual' });
    await post(body, signed(body)).expect(200);
    expect(await rows()).toHaveLength(1);
  });

  it('refuses a body over the limit with 413 before reading it all', async () => {
    await partner.close();
    partner = await partnerWebhooks({ bodyLimitBytes: 1024 });
    const big = candidateEvent('new_candidate', 'email', 5, { filler: 'x'.repeat(2000) });
    await post(big, signed(big)).expect(413);
  });

  it('answers 404 for a company id that is not a positive integer', async () => {
    const body = envelope({});
    await post(body, signed(body), '/webhooks/platform/abc').expect(404);
    await post(body, signed(body), '/webhooks/platform/0').expect(404);
  });

  it('reads the raw bytes whatever the declared content type', async () => {
    const body = envelope({});
    await post(body, { ...signed(body), 'content-type': 'text/plain; charset=iso-8859-1' }).expect(200);
  });

  it('refuses a compressed body with 415: its signature is over the bytes sent, which it would not check', async () => {
    const body = envelope({});
    const zipped = gzipSync(body);
    const res = await request(partner.app)
      .post(URL)
      .set({ ...signed(body), 'content-type': 'application/json', 'content-encoding': 'gzip' })
      .send(zipped)
      .expect(415);
    expect(res.body).toEqual({ error: 'Content-Encoding is not supported: send the body uncompressed' });
    expect(await rows()).toEqual([]);
  });
});
