import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseWebhookEvent } from '../../src/contract/webhook-payloads.js';
import { ACME, ADA, BACKEND_OFFER, webhookPlatform, type WebhookPlatform } from '../webhooks/mock-harness.js';

/**
 * Every action of platform-contract.md §6.4 produces its event, with the envelope of §6.2 and the payload of §6.3 —
 * checked against the contract's schemas, not against the code that built them.
 */
let platform: WebhookPlatform;
beforeEach(() => {
  platform = webhookPlatform();
});

/** The events recorded since `after`, oldest first, each parsed as the interface document defines it. */
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
const lastId = () => platform.webhooks.store.events(ACME, 1)[0]?.id ?? 0;
const ok = (res: request.Response, status = 200) => expect(res.status, res.text).toBe(status);

const ACME_ENTITY = { id: ACME, name: 'Acme Corp' };
const APPLIED = { id: 1, name: 'Applied', category: 'apply' };
const INTERVIEW = { id: 3, name: 'Interview', category: 'interview' };
const AMSTERDAM = { id: 11, country_code: 'NL', state_code: 'NH', full_address: 'Netherlands, North Holland, Amsterdam, 1015 BS, Herengracht 100' };

describe('events produced by the platform’s own state changes', () => {
  it('a careers-site application: new_candidate and candidate_assigned, subtype career_site', async () => {
    const before = lastId();
    await request(platform.app)
      .post('/careers/acme/api/offers/open-application/candidates')
      .send({ candidate: { name: 'Grace Applicant', email: 'grace.applicant@example.com' } })
      .expect(201);
    const events = eventsAfter(before);
    expect(events.map((e) => [e.event_type, e.event_subtype])).toEqual([
      ['new_candidate', 'career_site'],
      ['candidate_assigned', 'career_site'],
    ]);
    expect(events[0]!.payload).toMatchObject({ candidate: { name: 'Grace Applicant', source: 'career_site' }, company: ACME_ENTITY });
  });

  it('a recruiter adds a candidate onto an offer: new_candidate with the offer, then candidate_assigned, subtype manual', async () => {
    const before = lastId();
    const res = await platform.pipeline('post', `${ACME}/candidates`, {
      name: 'Linus Added',
      email: 'linus@example.com',
      phone: '+31 6 1234 5678',
      offer_ids: [102],
    });
    ok(res, 201);
    const events = eventsAfter(before);
    expect(events.map((e) => [e.event_type, e.event_subtype])).toEqual([
      ['new_candidate', 'manual'],
      ['candidate_assigned', 'manual'],
    ]);
    expect(events[0]!.payload).toMatchObject({
      candidate: { id: res.body.candidate.id, name: 'Linus Added', emails: ['linus@example.com'], phones: ['+31 6 1234 5678'], source: 'manual' },
      company: ACME_ENTITY,
      offers: [{ id: 102, title: 'Customer Success Manager' }],
    });
    expect(events[1]!.payload).toMatchObject({ offer: { id: 102 }, placement_locations: [] });
  });

  it('the sandbox’s "Add a candidate" form: new_candidate, manual', async () => {
    const before = lastId();
    await request(platform.app).post(`/companies/${ACME}/candidates`).type('form').send({ name: 'Form Person', email: 'form@example.com' }).expect(303);
    const events = eventsAfter(before);
    expect(events.map((e) => [e.event_type, e.event_subtype])).toEqual([['new_candidate', 'manual']]);
    expect(events[0]!.payload).toMatchObject({ candidate: { name: 'Form Person', referrer: null }, offers: [] });
  });

  it('assigning a candidate to an offer: candidate_assigned with the placement’s locations', async () => {
    const before = lastId();
    ok(await platform.pipeline('post', `${ACME}/candidates/${ADA}/placements`, { offer_id: 102 }), 201);
    ok(await platform.pipeline('post', `${ACME}/candidates/${ADA}/placements`, { offer_id: 103 }), 201);
    const events = eventsAfter(before);
    expect(events.map((e) => [e.event_type, e.event_subtype, (e.payload as { offer: { id: number } }).offer.id])).toEqual([
      ['candidate_assigned', 'manual', 102],
      ['candidate_assigned', 'manual', 103],
    ]);
    // Assigned twice to the same offer: refused, no event.
    expect((await platform.pipeline('post', `${ACME}/candidates/${ADA}/placements`, { offer_id: 102 })).status).toBe(409);
    expect(eventsAfter(before)).toHaveLength(2);
  });

  it('moving, disqualifying and requalifying: candidate_moved with the details of each subtype', async () => {
    const before = lastId();
    const path = `${ACME}/candidates/${ADA}/placements/${BACKEND_OFFER}`;
    ok(await platform.pipeline('post', `${path}/move`, { stage_id: 3 }));
    const disqualified = await platform.pipeline('post', `${path}/disqualify`, { reason_id: 2 });
    ok(disqualified);
    expect(disqualified.body.placement).toMatchObject({ stage: INTERVIEW, disqualify_reason: { id: 2, name: 'Withdrew' } });
    ok(await platform.pipeline('post', `${path}/requalify`, {}));

    const events = eventsAfter(before);
    expect(events.map((e) => [e.event_type, e.event_subtype])).toEqual([
      ['candidate_moved', 'stage_changed'],
      ['candidate_moved', 'disqualified'],
      ['candidate_moved', 'requalified'],
    ]);
    expect(events.map((e) => (e.payload as unknown as { details: unknown }).details)).toEqual([
      { from_stage: APPLIED, to_stage: INTERVIEW },
      { to_stage: INTERVIEW, disqualify_reason: { id: 2, name: 'Withdrew' } },
      { to_stage: INTERVIEW },
    ]);
    for (const e of events) {
      expect(e.payload).toMatchObject({
        candidate: { id: ADA, name: 'Ada Lovelace', emails: ['ada@example.com'] },
        company: ACME_ENTITY,
        offer: { id: BACKEND_OFFER, title: 'Senior Backend Engineer' },
        placement_locations: [AMSTERDAM],
      });
      expect(e.payload).not.toHaveProperty('offer.status');
    }
  });

  it('refuses moves that make no sense, with no event', async () => {
    const before = lastId();
    const path = `${ACME}/candidates/${ADA}/placements/${BACKEND_OFFER}`;
    expect((await platform.pipeline('post', `${path}/move`, { stage_id: 1 })).status).toBe(409);
    expect((await platform.pipeline('post', `${path}/move`, { stage_id: 99 })).status).toBe(422);
    expect((await platform.pipeline('post', `${path}/requalify`, {})).status).toBe(409);
    expect((await platform.pipeline('post', `${path}/disqualify`, { reason_id: 99 })).status).toBe(422);
    expect((await platform.pipeline('post', `${path}/disqualify`, {})).status).toBe(422);
    expect((await platform.pipeline('post', `${ACME}/candidates/${ADA}/placements/102/move`, { stage_id: 2 })).status).toBe(404);
    expect((await platform.pipeline('post', `${ACME}/candidates/31/placements/201/move`, { stage_id: 2 })).status).toBe(404);
    ok(await platform.pipeline('post', `${path}/disqualify`, { reason_id: 1 }));
    expect((await platform.pipeline('post', `${path}/move`, { stage_id: 2 })).status).toBe(409);
    expect((await platform.pipeline('post', `${path}/disqualify`, { reason_id: 1 })).status).toBe(409);
    expect(eventsAfter(before)).toHaveLength(1);
  });

  it('deleting a candidate: candidate_deleted with the candidate as it was and its offers; the candidate is gone', async () => {
    const before = lastId();
    const res = await platform.pipeline('delete', `${ACME}/candidates/${ADA}`);
    ok(res, 204);
    const [event] = eventsAfter(before);
    expect([event!.event_type, event!.event_subtype]).toEqual(['candidate_deleted', 'manual']);
    expect(event!.payload).toMatchObject({
      candidate: { id: ADA, name: 'Ada Lovelace', emails: ['ada@example.com'], phones: ['+44 20 7946 0000'] },
      company: ACME_ENTITY,
      offers: [{ id: BACKEND_OFFER }],
    });
    await request(platform.app).get(`/api/pipeline/c/${ACME}/candidates/${ADA}`).expect(404);
    expect((await platform.pipeline('delete', `${ACME}/candidates/${ADA}`)).status).toBe(404);
    const listed = await request(platform.app).get(`/api/marketplace/c/${ACME}/candidates`).expect(200);
    expect(listed.body.candidates.map((c: { id: number }) => c.id)).not.toContain(ADA);
  });

  it('publishing, unpublishing and archiving offers: offer_published, offer_unpublished, offer_updated/status_changed', async () => {
    const before = lastId();
    ok(await platform.pipeline('post', `${ACME}/offers/104/status`, { status: 'published' }));
    ok(await platform.pipeline('post', `${ACME}/offers/104/status`, { status: 'draft' }));
    ok(await platform.pipeline('post', `${ACME}/offers/${BACKEND_OFFER}/status`, { status: 'archived' }));
    ok(await platform.pipeline('post', `${ACME}/offers/104/status`, { status: 'archived' }));
    expect((await platform.pipeline('post', `${ACME}/offers/104/status`, { status: 'archived' })).status).toBe(409);
    expect((await platform.pipeline('post', `${ACME}/offers/201/status`, { status: 'draft' })).status).toBe(404);

    const events = eventsAfter(before);
    expect(events.map((e) => [e.event_type, e.event_subtype, (e.payload as { offer: { id: number } }).offer.id])).toEqual([
      ['offer_published', 'manual', 104],
      ['offer_unpublished', 'manual', 104],
      ['offer_unpublished', 'manual', BACKEND_OFFER],
      ['offer_updated', 'status_changed', 104],
    ]);
    expect(events[0]!.payload).toMatchObject({ company: ACME_ENTITY, offer: { title: 'Marketing Intern' } });
    expect(events[0]!.payload).not.toHaveProperty('offer.status');
    expect(events[3]!.payload).toMatchObject({ offer: { status: 'archived' } });
    // The careers site follows: 104 was listed only while published.
    const listing = await request(platform.app).get('/careers/acme/api/offers/').expect(200);
    expect(listing.body.offers.map((o: { id: number }) => o.id)).not.toContain(BACKEND_OFFER);
  });

  it('editing an offer: offer_updated/offer_changed and tags_changed, with the status; no change, no event', async () => {
    const before = lastId();
    ok(await platform.pipeline('patch', `${ACME}/offers/${BACKEND_OFFER}`, { title: 'Staff Backend Engineer', department_id: 4 }));
    ok(await platform.pipeline('patch', `${ACME}/offers/${BACKEND_OFFER}`, { title: 'Staff Backend Engineer' }));
    ok(await platform.pipeline('put', `${ACME}/offers/${BACKEND_OFFER}/tags`, { tag_ids: [3, 1] }));
    ok(await platform.pipeline('put', `${ACME}/offers/${BACKEND_OFFER}/tags`, { tag_ids: [1, 3] }));
    expect((await platform.pipeline('put', `${ACME}/offers/${BACKEND_OFFER}/tags`, { tag_ids: [21] })).status).toBe(422);
    expect((await platform.pipeline('patch', `${ACME}/offers/${BACKEND_OFFER}`, { department_id: 21 })).status).toBe(422);

    const events = eventsAfter(before);
    expect(events.map((e) => [e.event_type, e.event_subtype])).toEqual([
      ['offer_updated', 'offer_changed'],
      ['offer_updated', 'tags_changed'],
    ]);
    expect(events[0]!.payload).toMatchObject({
      offer: { title: 'Staff Backend Engineer', department: { id: 4, name: 'Design' }, status: 'published' },
    });
    expect(events[1]!.payload).toMatchObject({
      offer: { tags: [{ id: 3, name: 'Customer facing' }, { id: 1, name: 'TypeScript' }], status: 'published' },
    });
  });

  it('a state change that fails leaves no event behind', async () => {
    const before = lastId();
    expect((await platform.pipeline('post', `${ACME}/candidates`, { name: 'X', email: 'x@example.com', offer_ids: [201] })).status).toBe(404);
    expect(eventsAfter(before)).toEqual([]);
    expect(platform.db.prepare("SELECT count(*) AS n FROM candidates WHERE email = 'x@example.com'").get()).toEqual({ n: 0 });
  });
});
