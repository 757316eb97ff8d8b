import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';
import { conflict, notFound, unprocessable } from '../../lib/errors.js';
import { payloadLoader } from '../careers/payloads.js';
import type { PlatformEvents } from '../events.js';

export type OfferStatus = 'draft' | 'published' | 'archived';
export const OFFER_STATUSES = ['draft', 'published', 'archived'] as const;

export interface OfferSummary {
  id: number;
  title: string;
  kind: string;
  status: OfferStatus;
  slug: string;
  departmentId: number | null;
  tagIds: number[];
  /** Where e-mailed applications for the offer go (platform-contract.md §7.1); null when it has no mailbox. */
  mailboxEmail: string | null;
  updatedAt: string;
}

export type OfferActions = ReturnType<typeof offerActions>;

/**
 * What a recruiter does to offers, each with its webhook event in one transaction [seed, platform-contract.md §6.4]:
 * publishing (offer_published), unpublishing or archiving a published offer (offer_unpublished),
 * and updating one (offer_updated: `offer_changed` for the title or department, `tags_changed`,
 * and `status_changed` for a status change that neither publishes nor unpublishes — draft ↔
 * archived) [kit decision for which change is which subtype].
 */
export function offerActions(db: Db, clock: Clock, events: PlatformEvents, publicUrl: string) {
  const payloads = payloadLoader(db, publicUrl);
  const offersOf = db.prepare<
    [number],
    { id: number; title: string; kind: string; status: OfferStatus; slug: string; department_id: number | null; mailbox_email: string | null; updated_at: string }
  >('SELECT id, title, kind, status, slug, department_id, mailbox_email, updated_at FROM offers WHERE company_id = ? ORDER BY id');
  const offerRow = db.prepare<[number, number], { id: number; status: OfferStatus; title: string; department_id: number | null }>(
    'SELECT id, status, title, department_id FROM offers WHERE company_id = ? AND id = ?',
  );
  const tagIdsOf = db.prepare<[number], { tag_id: number }>('SELECT tag_id FROM offer_tags WHERE offer_id = ? ORDER BY tag_id');
  const companyTag = db.prepare<[number, number], { id: number }>('SELECT id FROM tags WHERE company_id = ? AND id = ?');
  const companyDepartment = db.prepare<[number, number], { id: number }>('SELECT id FROM departments WHERE company_id = ? AND id = ?');
  const setStatus = db.prepare<[OfferStatus, string, string | null, number]>(
    'UPDATE offers SET status = ?, updated_at = ?, published_at = coalesce(?, published_at) WHERE id = ?',
  );
  const setDetails = db.prepare<[string, number | null, string, number]>(
    'UPDATE offers SET title = ?, department_id = ?, updated_at = ? WHERE id = ?',
  );
  const clearTags = db.prepare<[number]>('DELETE FROM offer_tags WHERE offer_id = ?');
  const addTag = db.prepare<[number, number]>('INSERT INTO offer_tags (offer_id, tag_id) VALUES (?, ?)');
  const touch = db.prepare<[string, number]>('UPDATE offers SET updated_at = ? WHERE id = ?');
  const tagsOf = db.prepare<[number], { id: number; name: string }>('SELECT id, name FROM tags WHERE company_id = ? ORDER BY name');

  const offerOf = (companyId: number, offerId: number) => {
    const offer = offerRow.get(companyId, offerId);
    if (!offer) throw notFound('Unknown offer');
    return offer;
  };
  const company = (companyId: number) => payloads.company(companyId)!;

  return {
    tags: (companyId: number): { id: number; name: string }[] => tagsOf.all(companyId),

    list(companyId: number): OfferSummary[] {
      return offersOf.all(companyId).map((o) => ({
        id: o.id,
        title: o.title,
        kind: o.kind,
        status: o.status,
        slug: o.slug,
        departmentId: o.department_id,
        tagIds: tagIdsOf.all(o.id).map((t) => t.tag_id),
        mailboxEmail: o.mailbox_email,
        updatedAt: o.updated_at,
      }));
    },

    setStatus(companyId: number, offerId: number, status: OfferStatus): void {
      db.transaction(() => {
        const offer = offerOf(companyId, offerId);
        if (offer.status === status) throw conflict(`The offer is already ${status}`);
        const at = isoAt(clock.now());
        setStatus.run(status, at, status === 'published' ? at : null, offerId);
        if (status === 'published') {
          events.emit(companyId, 'offer_published', 'manual', { company: company(companyId), offer: payloads.offer(offerId)! });
        } else if (offer.status === 'published') {
          events.emit(companyId, 'offer_unpublished', 'manual', { company: company(companyId), offer: payloads.offer(offerId)! });
        } else {
          events.emit(companyId, 'offer_updated', 'status_changed', {
            company: company(companyId),
            offer: payloads.offer(offerId, { withStatus: true })!,
          });
        }
      })();
    },

    /** offer_changed; an edit that changes nothing emits nothing. */
    edit(companyId: number, offerId: number, patch: { title?: string; departmentId?: number | null }): void {
      db.transaction(() => {
        const offer = offerOf(companyId, offerId);
        const title = patch.title ?? offer.title;
        const departmentId = patch.departmentId === undefined ? offer.department_id : patch.departmentId;
        if (departmentId !== null && !companyDepartment.get(companyId, departmentId)) {
          throw unprocessable(`department_id ${departmentId} is not a department of this company`, {
            department_id: ['is not a department of this company'],
          });
        }
        if (title === offer.title && departmentId === offer.department_id) return;
        setDetails.run(title, departmentId, isoAt(clock.now()), offerId);
        events.emit(companyId, 'offer_updated', 'offer_changed', {
          company: company(companyId),
          offer: payloads.offer(offerId, { withStatus: true })!,
        });
      })();
    },

    /** tags_changed, with the offer's new tags; the same set again emits nothing. */
    setTags(companyId: number, offerId: number, tagIds: readonly number[]): void {
      db.transaction(() => {
        offerOf(companyId, offerId);
        const wanted = [...new Set(tagIds)].sort((a, b) => a - b);
        const foreign = wanted.filter((id) => !companyTag.get(companyId, id));
        if (foreign.length) {
          throw unprocessable(`tag_ids ${foreign.join(', ')} are not tags of this company`, {
            tag_ids: foreign.map((id) => `${id} is not a tag of this company`),
          });
        }
        const current = tagIdsOf.all(offerId).map((t) => t.tag_id);
        if (current.length === wanted.length && current.every((id, i) => id === wanted[i])) return;
        clearTags.run(offerId);
        for (const id of wanted) addTag.run(offerId, id);
        touch.run(isoAt(clock.now()), offerId);
        events.emit(companyId, 'offer_updated', 'tags_changed', {
          company: company(companyId),
          offer: payloads.offer(offerId, { withStatus: true })!,
        });
      })();
    },
  };
}
