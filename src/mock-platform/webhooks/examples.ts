import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../contract/decisions.js';
import { SOURCE_OF_SUBTYPE } from '../companies/pipeline.js';

/**
 * Example events for "test payload" requests [seed, platform-contract.md §6.1]: the envelope and payload of a real event
 * of the chosen type, with made-up people and jobs (a test must not leak a real candidate), plus
 * the `test` key. The id is 0, which no real event has.
 */
export function exampleEvent(company: { id: number; name: string }, eventType: WebhookEventType, createdAt: string) {
  const subtype = WEBHOOK_EVENT_TYPES[eventType][0];
  return {
    id: 0,
    attempt_count: 1,
    created_at: createdAt,
    event_type: eventType,
    event_subtype: subtype,
    payload: examplePayload({ id: company.id, name: company.name }, eventType, subtype, createdAt),
    test: true,
  };
}

function examplePayload(
  company: { id: number; name: string },
  eventType: WebhookEventType,
  subtype: string,
  at: string,
): Record<string, unknown> {
  const location = { id: 1, country_code: 'NL', state_code: 'NH', full_address: 'Netherlands, North Holland, Amsterdam, 1015 BS, Herengracht 1' };
  const candidate = {
    id: 1,
    name: 'Jane Example',
    emails: ['jane@example.com'],
    phones: ['+31 20 123 4567'],
    photo_thumb_url: 'https://photos.example.com/candidates/1/thumb.png',
    // An example of how-it-came-in events agrees with its subtype (an e-mailed candidate has source email).
    source: (SOURCE_OF_SUBTYPE as Record<string, string>)[subtype] ?? 'manual',
    referrer: null,
    created_at: at,
    updated_at: at,
  };
  const offer = {
    id: 1,
    title: 'Example Engineer',
    kind: 'job',
    locations: [location],
    slug: 'example-engineer',
    department: { id: 1, name: 'Engineering' },
    tags: [{ id: 1, name: 'Example' }],
    created_at: at,
    updated_at: at,
  };
  switch (eventType) {
    case 'new_candidate':
    case 'candidate_deleted':
      return { candidate, company, offers: [offer] };
    case 'candidate_assigned':
      return { candidate, company, offer, placement_locations: [location] };
    case 'candidate_moved':
      return {
        candidate,
        company,
        offer,
        details: {
          from_stage: { id: 1, name: 'Applied', category: 'apply' },
          to_stage: { id: 3, name: 'Interview', category: 'interview' },
        },
        placement_locations: [location],
      };
    case 'offer_published':
    case 'offer_unpublished':
      return { company, offer };
    case 'offer_updated':
      return { company, offer: { ...offer, status: 'published' } };
  }
}
