import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';
import { conflict, notFound, unprocessable } from '../../lib/errors.js';
import { payloadLoader } from '../careers/payloads.js';
import type { PlatformEvents } from '../events.js';

export interface Stage {
  id: number;
  name: string;
  category: string;
}

export interface DisqualifyReason {
  id: number;
  name: string;
}

/** A candidate's assignment to an offer, and where it stands in the pipeline. */
export interface Placement {
  id: number;
  offerId: number;
  offerTitle: string;
  stage: Stage;
  disqualifyReason: DisqualifyReason | null;
  disqualifiedAt: string | null;
  createdAt: string;
}

interface PlacementRow {
  id: number;
  offer_id: number;
  offer_title: string;
  stage_id: number;
  disqualify_reason_id: number | null;
  disqualified_at: string | null;
  created_at: string;
}

export type Pipeline = ReturnType<typeof pipeline>;

/**
 * How a candidate came in [seed, platform-contract.md §6.3, §6.4]: the subtype of new_candidate and candidate_assigned, and
 * the candidate's `source` it goes with (the interface document spells the subtype "imported", the source "import").
 */
export const SOURCE_OF_SUBTYPE = {
  manual: 'manual',
  imported: 'import',
  email: 'email',
  career_site: 'career_site',
} as const;
/** The ways a recruiter's action adds a candidate (careers applications are the careers site's). */
export type AddedHow = 'manual' | 'imported' | 'email';

export interface NewCandidate {
  name: string;
  email: string;
  phone: string | null;
  offerIds?: readonly number[];
}

/**
 * What a recruiter does to candidates, each a state change with its webhook event in one
 * transaction [seed, platform-contract.md §6.4]: add a candidate (new_candidate), assign one to an offer
 * (candidate_assigned), move, disqualify or requalify a placement (candidate_moved) and delete a
 * candidate (candidate_deleted). Subtypes are `manual` — a recruiter's clicks — except for
 * candidates imported (`imported`) or e-mailed in (`email`).
 */
export function pipeline(db: Db, clock: Clock, events: PlatformEvents, publicUrl: string) {
  const payloads = payloadLoader(db, publicUrl);
  const stageRows = db.prepare<[], Stage>('SELECT id, name, category FROM pipeline_stages ORDER BY position');
  const stageById = db.prepare<[number], Stage>('SELECT id, name, category FROM pipeline_stages WHERE id = ?');
  const reasonRows = db.prepare<[], DisqualifyReason>('SELECT id, name FROM disqualify_reasons ORDER BY id');
  const reasonById = db.prepare<[number], DisqualifyReason>('SELECT id, name FROM disqualify_reasons WHERE id = ?');
  const candidateRow = db.prepare<[number, number], { id: number }>(
    'SELECT id FROM candidates WHERE company_id = ? AND id = ? AND deleted_at IS NULL',
  );
  const offerRow = db.prepare<[number, number], { id: number; title: string }>(
    'SELECT id, title FROM offers WHERE company_id = ? AND id = ?',
  );
  const offerLocationIds = db.prepare<[number], { location_id: number }>(
    'SELECT location_id FROM offer_locations WHERE offer_id = ? ORDER BY position, location_id',
  );
  const placementsOf = db.prepare<[number], PlacementRow>(
    `SELECT p.id, p.offer_id, o.title AS offer_title, p.stage_id, p.disqualify_reason_id, p.disqualified_at, p.created_at
       FROM placements p JOIN offers o ON o.id = p.offer_id WHERE p.candidate_id = ? ORDER BY p.id`,
  );
  const insertCandidate = db.prepare<[number, string, string, string | null, string, string, string], { id: number }>(
    `INSERT INTO candidates (company_id, name, email, phone, source, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const insertPlacement = db.prepare<[number, number, string], { id: number }>(
    'INSERT INTO placements (candidate_id, offer_id, created_at) VALUES (?, ?, ?) RETURNING id',
  );
  const insertPlacementLocation = db.prepare<[number, number]>(
    'INSERT INTO placement_locations (placement_id, location_id) VALUES (?, ?)',
  );
  const setStage = db.prepare<[number, number]>(
    'UPDATE placements SET stage_id = ?, disqualify_reason_id = NULL, disqualified_at = NULL WHERE id = ?',
  );
  const setDisqualified = db.prepare<[number, string, number]>(
    'UPDATE placements SET disqualify_reason_id = ?, disqualified_at = ? WHERE id = ?',
  );
  const touchCandidate = db.prepare<[string, number]>('UPDATE candidates SET updated_at = ? WHERE id = ?');
  const deleteCandidate = db.prepare<[string, string, number]>(
    'UPDATE candidates SET deleted_at = ?, updated_at = ? WHERE id = ?',
  );

  const candidateOf = (companyId: number, candidateId: number): number => {
    if (!candidateRow.get(companyId, candidateId)) throw notFound('Unknown candidate');
    return candidateId;
  };
  const offerOf = (companyId: number, offerId: number) => {
    const offer = offerRow.get(companyId, offerId);
    if (!offer) throw notFound('Unknown offer');
    return offer;
  };
  const stageOf = (stageId: number): Stage => {
    const stage = stageById.get(stageId);
    if (!stage) throw unprocessable(`stage_id ${stageId} is not a pipeline stage`, { stage_id: ['is not a pipeline stage'] });
    return stage;
  };
  const toPlacement = (r: PlacementRow): Placement => ({
    id: r.id,
    offerId: r.offer_id,
    offerTitle: r.offer_title,
    stage: stageById.get(r.stage_id)!,
    disqualifyReason: r.disqualify_reason_id === null ? null : (reasonById.get(r.disqualify_reason_id) ?? null),
    disqualifiedAt: r.disqualified_at,
    createdAt: r.created_at,
  });
  const placementOf = (companyId: number, candidateId: number, offerId: number): Placement => {
    candidateOf(companyId, candidateId);
    const row = placementsOf.all(candidateId).find((p) => p.offer_id === offerId);
    if (!row) throw notFound('The candidate is not assigned to this offer');
    return toPlacement(row);
  };
  const stageJson = (s: Stage) => ({ id: s.id, name: s.name, category: s.category });

  /** The payload keys every candidate_moved carries, read after the change. */
  const movedPayload = (companyId: number, candidateId: number, placement: Placement, details: Record<string, unknown>) => ({
    candidate: payloads.candidate(candidateId)!,
    company: payloads.company(companyId)!,
    offer: payloads.offer(placement.offerId)!,
    details,
    placement_locations: payloads.placementLocations(placement.id),
  });

  const assign = (companyId: number, candidateId: number, offerId: number, locationIds: readonly number[] | undefined, at: string) => {
    const own = offerLocationIds.all(offerId).map((r) => r.location_id);
    const chosen = locationIds ?? (own.length === 1 ? own : []);
    const foreign = chosen.filter((id) => !own.includes(id));
    if (foreign.length) {
      throw unprocessable(`location_ids ${foreign.join(', ')} are not locations of this offer`, {
        location_ids: foreign.map((id) => `${id} is not a location of this offer`),
      });
    }
    if (placementsOf.all(candidateId).some((p) => p.offer_id === offerId)) {
      throw conflict('The candidate is already assigned to this offer');
    }
    const { id } = insertPlacement.get(candidateId, offerId, at)!;
    for (const locationId of new Set(chosen)) insertPlacementLocation.run(id, locationId);
    return id;
  };

  /** Inside the caller's transaction: the candidate, its placements and its events. */
  const add = (companyId: number, input: NewCandidate, how: AddedHow): number => {
    const at = isoAt(clock.now());
    const offerIds = [...new Set(input.offerIds ?? [])];
    for (const offerId of offerIds) offerOf(companyId, offerId);
    const { id } = insertCandidate.get(companyId, input.name, input.email, input.phone, SOURCE_OF_SUBTYPE[how], at, at)!;
    const placementIds = offerIds.map((offerId) => assign(companyId, id, offerId, undefined, at));
    const candidate = payloads.candidate(id)!;
    const company = payloads.company(companyId)!;
    events.emit(companyId, 'new_candidate', how, {
      candidate,
      company,
      offers: offerIds.map((offerId) => payloads.offer(offerId)!),
    });
    offerIds.forEach((offerId, i) => {
      events.emit(companyId, 'candidate_assigned', how, {
        candidate,
        company,
        offer: payloads.offer(offerId)!,
        placement_locations: payloads.placementLocations(placementIds[i]!),
      });
    });
    return id;
  };

  return {
    stages: (): Stage[] => stageRows.all(),
    disqualifyReasons: (): DisqualifyReason[] => reasonRows.all(),
    placements(companyId: number, candidateId: number): Placement[] {
      candidateOf(companyId, candidateId);
      return placementsOf.all(candidateId).map(toPlacement);
    },

    /**
     * A candidate a recruiter adds — by hand (`manual`), by importing a list (`imported`, source
     * `import`) or from an e-mail to an offer's mailbox (`email`) — maybe straight onto offers:
     * new_candidate, then candidate_assigned per offer, both with that subtype.
     */
    addCandidate(companyId: number, input: NewCandidate, how: AddedHow = 'manual'): number {
      return db.transaction(() => add(companyId, input, how))();
    },

    /** Several candidates from one import, all or none (a bad row adds nobody); their ids in order. */
    importCandidates(companyId: number, inputs: readonly NewCandidate[]): number[] {
      return db.transaction(() => inputs.map((input) => add(companyId, input, 'imported')))();
    },

    /** Assigns an existing candidate to an offer (job or talent pool): candidate_assigned. */
    assign(companyId: number, candidateId: number, offerId: number, locationIds?: readonly number[]): Placement {
      return db.transaction(() => {
        candidateOf(companyId, candidateId);
        offerOf(companyId, offerId);
        const at = isoAt(clock.now());
        const placementId = assign(companyId, candidateId, offerId, locationIds, at);
        touchCandidate.run(at, candidateId);
        events.emit(companyId, 'candidate_assigned', 'manual', {
          candidate: payloads.candidate(candidateId)!,
          company: payloads.company(companyId)!,
          offer: payloads.offer(offerId)!,
          placement_locations: payloads.placementLocations(placementId),
        });
        return placementOf(companyId, candidateId, offerId);
      })();
    },

    /** candidate_moved / stage_changed. A disqualified placement is requalified first. */
    move(companyId: number, candidateId: number, offerId: number, stageId: number): Placement {
      return db.transaction(() => {
        const placement = placementOf(companyId, candidateId, offerId);
        const to = stageOf(stageId);
        if (placement.disqualifyReason) throw conflict('The candidate is disqualified; requalify them first');
        if (placement.stage.id === to.id) throw conflict(`The candidate is already in ${to.name}`);
        setStage.run(to.id, placement.id);
        touchCandidate.run(isoAt(clock.now()), candidateId);
        events.emit(
          companyId,
          'candidate_moved',
          'stage_changed',
          movedPayload(companyId, candidateId, placement, { from_stage: stageJson(placement.stage), to_stage: stageJson(to) }),
        );
        return placementOf(companyId, candidateId, offerId);
      })();
    },

    /** candidate_moved / disqualified, in the stage the candidate is in. */
    disqualify(companyId: number, candidateId: number, offerId: number, reasonId: number): Placement {
      return db.transaction(() => {
        const placement = placementOf(companyId, candidateId, offerId);
        const reason = reasonById.get(reasonId);
        if (!reason) throw unprocessable(`reason_id ${reasonId} is not a disqualify reason`, { reason_id: ['is not a disqualify reason'] });
        if (placement.disqualifyReason) throw conflict('The candidate is already disqualified');
        const at = isoAt(clock.now());
        setDisqualified.run(reason.id, at, placement.id);
        touchCandidate.run(at, candidateId);
        events.emit(
          companyId,
          'candidate_moved',
          'disqualified',
          movedPayload(companyId, candidateId, placement, {
            to_stage: stageJson(placement.stage),
            disqualify_reason: { id: reason.id, name: reason.name },
          }),
        );
        return placementOf(companyId, candidateId, offerId);
      })();
    },

    /** candidate_moved / requalified, back to the stage they were in unless another is named. */
    requalify(companyId: number, candidateId: number, offerId: number, stageId?: number): Placement {
      return db.transaction(() => {
        const placement = placementOf(companyId, candidateId, offerId);
        if (!placement.disqualifyReason) throw conflict('The candidate is not disqualified');
        const to = stageId === undefined ? placement.stage : stageOf(stageId);
        setStage.run(to.id, placement.id);
        touchCandidate.run(isoAt(clock.now()), candidateId);
        events.emit(companyId, 'candidate_moved', 'requalified', movedPayload(companyId, candidateId, placement, { to_stage: stageJson(to) }));
        return placementOf(companyId, candidateId, offerId);
      })();
    },

    /**
     * candidate_deleted: the payload is the candidate as it was, with the offers it was assigned to.
     * The row is kept, marked deleted, as the platform's reports still point at it.
     */
    deleteCandidate(companyId: number, candidateId: number): void {
      db.transaction(() => {
        candidateOf(companyId, candidateId);
        const payload = {
          candidate: payloads.candidate(candidateId)!,
          company: payloads.company(companyId)!,
          offers: placementsOf.all(candidateId).map((p) => payloads.offer(p.offer_id)!),
        };
        const at = isoAt(clock.now());
        deleteCandidate.run(at, at, candidateId);
        events.emit(companyId, 'candidate_deleted', 'manual', payload);
      })();
    },
  };
}
