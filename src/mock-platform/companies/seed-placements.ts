import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';

/**
 * The seeded candidates' places in the pipeline, so the sandbox can move, disqualify and delete
 * them from the start (run after `seedCompanies` and `seedCareers`; no events: nothing happened).
 */
export const SEED_PLACEMENTS = [
  { candidateId: 17, offerId: 101, stageId: 1, locationIds: [11] },
  { candidateId: 18, offerId: 102, stageId: 2, locationIds: [11] },
  { candidateId: 19, offerId: 101, stageId: 3, locationIds: [12] },
  { candidateId: 31, offerId: 201, stageId: 1, locationIds: [21] },
] as const;

export function seedPlacements(db: Db, clock: Clock): void {
  const exists = db.prepare<[number, number], { id: number }>('SELECT id FROM placements WHERE candidate_id = ? AND offer_id = ?');
  const candidate = db.prepare<[number], { id: number }>('SELECT id FROM candidates WHERE id = ?');
  const offer = db.prepare<[number], { id: number }>('SELECT id FROM offers WHERE id = ?');
  const insert = db.prepare<[number, number, number, string], { id: number }>(
    'INSERT INTO placements (candidate_id, offer_id, stage_id, created_at) VALUES (?, ?, ?, ?) RETURNING id',
  );
  const location = db.prepare<[number, number]>('INSERT INTO placement_locations (placement_id, location_id) VALUES (?, ?)');
  const at = isoAt(clock.now());
  db.transaction(() => {
    for (const p of SEED_PLACEMENTS) {
      if (!candidate.get(p.candidateId) || !offer.get(p.offerId) || exists.get(p.candidateId, p.offerId)) continue;
      const { id } = insert.get(p.candidateId, p.offerId, p.stageId, at)!;
      for (const locationId of p.locationIds) location.run(id, locationId);
    }
  })();
}
