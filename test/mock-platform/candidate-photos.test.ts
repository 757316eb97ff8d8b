import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ACME,
  ADA,
  BACKEND_OFFER,
  RILEY,
  webhookEndpoint,
  webhookPlatform,
  type WebhookEndpoint,
  type WebhookPlatform,
} from '../webhooks/mock-harness.js';

/** platform-contract.md §6.3 types a candidate's photo_thumb_url as a string: every candidate has one. */

/** Where createMockPlatform is reached when no public URL is given. */
const ORIGIN = 'http://127.0.0.1:4000';
const THUMB = new RegExp(`^${ORIGIN.replace(/[.]/g, '\\.')}/photos/candidates/(\\d+)/thumb\\.svg$`);
const CUSTOMER_SUCCESS = 102;

let platform: WebhookPlatform;
let endpoint: WebhookEndpoint;
beforeEach(async () => {
  platform = webhookPlatform();
  endpoint = await webhookEndpoint(platform.clock);
});
afterEach(() => endpoint.close());

type CandidatePayload = { id: number; name: string; source: string; photo_thumb_url: unknown };
const candidateOf = (payload: unknown) => (payload as { candidate: CandidatePayload }).candidate;
/** Delivered events in the order they happened (two may be in flight at once, so arrival order varies). */
const delivered = () =>
  endpoint
    .events()
    .map((r) => r.body as { id: number; event_type: string; event_subtype: string; payload: unknown })
    .sort((a, b) => a.id - b.id);

describe('photo_thumb_url', () => {
  it('is a URL on the mock’s own origin for seeded and new candidates, in the payloads webhooks deliver', async () => {
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['new_candidate', 'candidate_moved', 'candidate_assigned'] });
    const added = await platform.pipeline('post', `${ACME}/candidates`, { name: 'Nova New', email: 'nova@example.com', offer_ids: [CUSTOMER_SUCCESS] });
    expect(added.status).toBe(201);
    const moved = await platform.pipeline('post', `${ACME}/candidates/${ADA}/placements/${BACKEND_OFFER}/disqualify`, { reason_id: 1 });
    expect(moved.status).toBe(200);
    await request(platform.app)
      .post('/careers/acme/api/offers/open-application/candidates')
      .send({ candidate: { name: 'Cara Careers', email: 'cara@example.com' } })
      .expect(201);
    await platform.webhooks.deliverer.runOnce();

    const events = delivered();
    expect(events.map((e) => e.event_type)).toEqual(['new_candidate', 'candidate_assigned', 'candidate_moved', 'new_candidate', 'candidate_assigned']);
    for (const event of events) {
      const candidate = candidateOf(event.payload);
      expect(typeof candidate.photo_thumb_url, `${event.event_type} of ${candidate.name}`).toBe('string');
      expect(candidate.photo_thumb_url).toMatch(THUMB);
      expect(THUMB.exec(candidate.photo_thumb_url as string)![1]).toBe(String(candidate.id));
    }
    expect(candidateOf(events[2]!.payload).id).toBe(ADA);
  });

  it('is served by the mock as an image with the candidate’s initials', async () => {
    const res = await request(platform.app).get(`/photos/candidates/${ADA}/thumb.svg`).expect(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    const svg = Buffer.isBuffer(res.body) ? res.body.toString('utf8') : res.text;
    expect(svg).toContain('<svg');
    expect(svg).toContain('>AL<');
    await request(platform.app).get('/photos/candidates/999999/thumb.svg').expect(404);
    await request(platform.app).get('/photos/candidates/abc/thumb.svg').expect(404);
  });

});
