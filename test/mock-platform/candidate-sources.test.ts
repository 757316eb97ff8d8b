import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWebhookEvent } from '../../src/contract/webhook-payloads.js';
import {
  ACME,
  BACKEND_OFFER,
  RILEY,
  webhookEndpoint,
  webhookPlatform,
  type WebhookEndpoint,
  type WebhookPlatform,
} from '../webhooks/mock-harness.js';

/**
 * How candidates come in — by hand, imported, e-mailed to an offer's mailbox — and what their
 * webhook payloads say about them (platform-contract.md §6.3, §6.4).
 */

const CUSTOMER_SUCCESS = 102;

let platform: WebhookPlatform;
let endpoint: WebhookEndpoint;
beforeEach(async () => {
  platform = webhookPlatform();
  endpoint = await webhookEndpoint(platform.clock);
});
afterEach(() => endpoint.close());

const lastId = () => platform.webhooks.store.events(ACME, 1)[0]?.id ?? 0;
function eventsAfter(after: number) {
  return platform.webhooks.store
    .events(ACME)
    .filter((e) => e.id > after)
    .reverse()
    .map((e) =>
      parseWebhookEvent({
        id: e.id,
        attempt_count: 1,
        created_at: e.createdAt,
        event_type: e.eventType,
        event_subtype: e.eventSubtype,
        payload: e.payload,
      }),
    );
}
type CandidatePayload = { id: number; name: string; source: string; photo_thumb_url: unknown };
const candidateOf = (payload: unknown) => (payload as { candidate: CandidatePayload }).candidate;
/** Posts a sandbox form and returns the page the redirect lands on. */
async function submit(path: string, form: Record<string, string>) {
  const posted = await request(platform.app).post(path).type('form').send(form).expect(303);
  return request(platform.app).get(posted.headers.location as string).expect(200);
}

describe('"test payload" examples', () => {
  it('have a string photo_thumb_url and a source that matches their subtype', async () => {
    const webhook = await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['new_candidate'] });
    for (const event_type of ['new_candidate', 'candidate_assigned']) {
      await platform.as(RILEY).post(`/api/webhooks/c/${ACME}/configurations/${webhook.id}/test-payload`).send({ event_type }).expect(200);
    }
    const [created, assigned] = endpoint.received.filter((r) => r.body.test === true && 'event_type' in r.body);
    for (const example of [created!, assigned!]) {
      const { event_subtype, payload } = example.body as { event_subtype: string; payload: unknown };
      const candidate = candidateOf(payload);
      const expected = { email: 'email', career_site: 'career_site', manual: 'manual', imported: 'import' }[event_subtype];
      expect(candidate.source, `${event_subtype} example`).toBe(expected);
      expect(typeof candidate.photo_thumb_url).toBe('string');
    }
  });
});

describe('importing candidates', () => {
  it('the API creates each candidate with source import: new_candidate and candidate_assigned, subtype imported', async () => {
    const before = lastId();
    const res = await platform.pipeline('post', `${ACME}/candidates/import`, {
      candidates: [
        { name: 'Ivy Imported', email: 'ivy@example.com', phone: '+31 6 0000 0001' },
        { name: 'Ian Imported', email: 'ian@example.com' },
      ],
      offer_id: CUSTOMER_SUCCESS,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.candidates.map((c: { name: string; source: string }) => [c.name, c.source])).toEqual([
      ['Ivy Imported', 'import'],
      ['Ian Imported', 'import'],
    ]);
    const events = eventsAfter(before);
    expect(events.map((e) => [e.event_type, e.event_subtype, candidateOf(e.payload).name])).toEqual([
      ['new_candidate', 'imported', 'Ivy Imported'],
      ['candidate_assigned', 'imported', 'Ivy Imported'],
      ['new_candidate', 'imported', 'Ian Imported'],
      ['candidate_assigned', 'imported', 'Ian Imported'],
    ]);
    expect(events.every((e) => candidateOf(e.payload).source === 'import')).toBe(true);
    expect(events[0]!.payload).toMatchObject({ offers: [{ id: CUSTOMER_SUCCESS }] });
    expect(events[1]!.payload).toMatchObject({ offer: { id: CUSTOMER_SUCCESS } });
  });

  it('without an offer, only new_candidate; a bad row refuses the whole import (422) with no event', async () => {
    const before = lastId();
    const ok = await platform.pipeline('post', `${ACME}/candidates/import`, { candidates: [{ name: 'Solo', email: 'solo@example.com' }] });
    expect(ok.status).toBe(201);
    expect(eventsAfter(before).map((e) => [e.event_type, e.event_subtype])).toEqual([['new_candidate', 'imported']]);
    const mid = lastId();
    const bad = await platform.pipeline('post', `${ACME}/candidates/import`, {
      candidates: [{ name: 'Fine', email: 'fine@example.com' }, { name: 'Broken', email: 'not-an-email' }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty(['candidates.1.email']);
    expect(eventsAfter(mid)).toEqual([]);
    expect((await platform.pipeline('post', `${ACME}/candidates/import`, { candidates: [] })).status).toBe(422);
  });

  it('the sandbox’s "Import candidates" form: one line per candidate', async () => {
    const before = lastId();
    const page = await submit(`/companies/${ACME}/candidates/import`, {
      rows: 'Pia Pasted, pia@example.com, +31 6 1111 2222\r\nPaul Pasted <paul@example.com>\n\n',
      offer_id: String(CUSTOMER_SUCCESS),
    });
    expect(page.text).toContain('2 candidates were imported');
    expect(page.text).toContain('Pia Pasted');
    const events = eventsAfter(before);
    expect(events.map((e) => [e.event_type, e.event_subtype, candidateOf(e.payload).name])).toEqual([
      ['new_candidate', 'imported', 'Pia Pasted'],
      ['candidate_assigned', 'imported', 'Pia Pasted'],
      ['new_candidate', 'imported', 'Paul Pasted'],
      ['candidate_assigned', 'imported', 'Paul Pasted'],
    ]);
    const bad = await submit(`/companies/${ACME}/candidates/import`, { rows: 'Nobody', offer_id: '' });
    expect(bad.text).toMatch(/line 1/);
  });
});

describe('e-mail in', () => {
  it('the API creates a candidate from an e-mail to an offer’s mailbox: source email, subtype email', async () => {
    const before = lastId();
    const res = await platform.pipeline('post', `${ACME}/candidates/email-in`, {
      offer_id: BACKEND_OFFER,
      from_name: 'Eve Emailer',
      from_email: 'eve@example.com',
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.candidate).toMatchObject({ name: 'Eve Emailer', email: 'eve@example.com', source: 'email' });
    expect(res.body.candidate.placements.map((p: { offer_id: number }) => p.offer_id)).toEqual([BACKEND_OFFER]);
    const events = eventsAfter(before);
    expect(events.map((e) => [e.event_type, e.event_subtype])).toEqual([
      ['new_candidate', 'email'],
      ['candidate_assigned', 'email'],
    ]);
    expect(events.every((e) => candidateOf(e.payload).source === 'email')).toBe(true);
    expect(events[0]!.payload).toMatchObject({ offers: [{ id: BACKEND_OFFER }] });
    expect(events[1]!.payload).toMatchObject({ offer: { id: BACKEND_OFFER } });
    expect((await platform.pipeline('post', `${ACME}/candidates/email-in`, { from_name: 'X', from_email: 'x@example.com' })).status).toBe(422);
    expect((await platform.pipeline('post', `${ACME}/candidates/email-in`, { offer_id: 201, from_name: 'X', from_email: 'x@example.com' })).status).toBe(404);
  });

  it('the sandbox’s "E-mail in" form lands on the new candidate’s page', async () => {
    const before = lastId();
    const company = await request(platform.app).get(`/companies/${ACME}`).expect(200);
    expect(company.text).toContain('job.k3x9p@acme.mock-platform.test');
    const page = await submit(`/companies/${ACME}/candidates/email-in`, {
      offer_id: String(BACKEND_OFFER),
      from_name: 'Mia Mailer',
      from_email: 'mia@example.com',
    });
    expect(page.text).toContain('<h1>Mia Mailer</h1>');
    expect(eventsAfter(before).map((e) => [e.event_type, e.event_subtype])).toEqual([
      ['new_candidate', 'email'],
      ['candidate_assigned', 'email'],
    ]);
  });
});
