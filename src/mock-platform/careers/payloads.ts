import type { Db } from '../../lib/db.js';
import { careersStore, type LocationRow, type OfferView, type SimpleEntity } from './store.js';

/**
 * Webhook payload entities (platform-contract.md §6.3), built from the mock's rows. The careers site emits
 * new_candidate and candidate_assigned with them; the webhooks and pipeline code reuse them for the
 * other events. Timestamps here are ISO 8601 UTC (not the careers API's "… UTC" format).
 */

export interface CandidateRecord {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  source: string;
  photo_thumb_url: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * [kit decision] Where the mock serves a candidate's thumbnail (an image with their initials, see
 * `companies/photos.ts`): platform-contract.md §6.3 types `photo_thumb_url` as a string, so every candidate has one.
 */
export function candidateThumbUrl(publicUrl: string, candidateId: number): string {
  return `${publicUrl.replace(/\/+$/, '')}/photos/candidates/${candidateId}/thumb.svg`;
}

/**
 * Candidate. The mock keeps one e-mail and at most one phone; `referrer` is null as in the interface document's
 * sample. `photo_thumb_url` is the stored one if any, else the mock's own thumbnail of the candidate.
 */
export function candidatePayload(c: CandidateRecord, publicUrl: string): Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    emails: [c.email],
    phones: c.phone ? [c.phone] : [],
    photo_thumb_url: c.photo_thumb_url ?? candidateThumbUrl(publicUrl, c.id),
    source: c.source,
    referrer: null,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

/** SimpleEntity: Company, Tag, Department, DisqualifyReason. */
export function simpleEntity(e: SimpleEntity): SimpleEntity {
  return { id: e.id, name: e.name };
}

/** Location (webhook): `full_address` is country, state, city, postal code and street, as the interface document lists them. */
export function locationPayload(l: LocationRow): Record<string, unknown> {
  const parts = [l.country, l.state, l.city, l.postal_code, l.street].filter((p): p is string => !!p);
  return { id: l.id, country_code: l.country_code, state_code: l.state_code, full_address: parts.join(', ') };
}

/** Offer; `status` only where the event carries it (offer_updated). */
export function offerPayload(view: OfferView, options: { withStatus?: boolean } = {}): Record<string, unknown> {
  const { offer } = view;
  return {
    id: offer.id,
    title: offer.title,
    kind: offer.kind,
    slug: offer.slug,
    locations: view.locations.map(locationPayload),
    department: view.department ? simpleEntity(view.department) : null,
    tags: view.tags.map(simpleEntity),
    created_at: offer.created_at,
    updated_at: offer.updated_at,
    ...(options.withStatus ? { status: offer.status } : {}),
  };
}

/**
 * Loads the rows an event needs by id; undefined for ids that do not exist. `publicUrl` is where
 * the mock is reached, for the URLs the payloads carry.
 */
export function payloadLoader(db: Db, publicUrl: string) {
  const store = careersStore(db);
  const candidate = db.prepare<[number], CandidateRecord>(
    'SELECT id, name, email, phone, source, photo_thumb_url, created_at, updated_at FROM candidates WHERE id = ?',
  );
  const placementLocations = db.prepare<[number], LocationRow>(
    `SELECT l.* FROM placement_locations pl JOIN locations l ON l.id = pl.location_id
      WHERE pl.placement_id = ? ORDER BY l.id`,
  );
  return {
    candidate(id: number) {
      const row = candidate.get(id);
      return row && candidatePayload(row, publicUrl);
    },
    company(id: number) {
      const row = store.companyById(id);
      return row && simpleEntity(row);
    },
    offer(id: number, options: { withStatus?: boolean } = {}) {
      const view = store.offerById(id);
      return view && offerPayload(view, options);
    },
    placementLocations(placementId: number) {
      return placementLocations.all(placementId).map(locationPayload);
    },
  };
}
export type PayloadLoader = ReturnType<typeof payloadLoader>;
