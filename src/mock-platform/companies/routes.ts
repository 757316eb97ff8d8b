import { Router, type Request } from 'express';
import { z } from 'zod';
import { IntegerId } from '../../contract/schemas.js';
import { notFound } from '../../lib/errors.js';
import { jsonBody } from '../body-readers.js';
import { parseOr422 } from '../../lib/http/validate.js';
import { companyIdParam, idParam } from '../path-params.js';
import { OFFER_STATUSES, type OfferActions, type OfferSummary } from './offers.js';
import type { Pipeline, Placement } from './pipeline.js';
import type { CompanyStore } from './store.js';

const ids = (max: number) => z.array(IntegerId).max(max);

const name = z.string().trim().min(1, 'is required').max(200);
const email = z.string().trim().max(320).pipe(z.email('must be a valid e-mail address'));
const phone = z.string().trim().max(100).nullish();

export const NewCandidateBody = z.object({ name, email, phone, offer_ids: ids(20).optional() });
/** [kit decision] An import is a list of people, optionally all onto one offer; all or none are added. */
export const MAX_IMPORT = 100;
export const ImportBody = z.object({
  candidates: z.array(z.object({ name, email, phone })).min(1, 'must list at least one candidate').max(MAX_IMPORT),
  offer_id: IntegerId.optional(),
});
/** An e-mail to an offer's mailbox: the sender becomes a candidate on that offer. */
export const EmailInBody = z.object({ offer_id: IntegerId, from_name: name, from_email: email, phone });
export const AssignBody = z.object({ offer_id: IntegerId, location_ids: ids(20).optional() });
export const MoveBody = z.object({ stage_id: IntegerId });
export const DisqualifyBody = z.object({ reason_id: IntegerId });
export const RequalifyBody = z.object({ stage_id: IntegerId.optional() });
export const OfferStatusBody = z.object({ status: z.enum(OFFER_STATUSES) });
export const OfferEditBody = z.object({
  title: z.string().trim().min(1, 'is required').max(200).optional(),
  department_id: IntegerId.nullable().optional(),
});
export const OfferTagsBody = z.object({ tag_ids: ids(50) });

/**
 * `/api/pipeline/c/{company_id}/…`: a recruiter's pipeline and offer actions as a JSON API, each of
 * which emits its webhook event. Unauthenticated like the marketplace API: the mock is a local tool.
 *
 *   GET    stages                                             stages and disqualify reasons
 *   POST   candidates                         {name, email, phone?, offer_ids?}     new_candidate/manual
 *   POST   candidates/import                  {candidates: [{name, email, phone?}], offer_id?}  …/imported, source import
 *   POST   candidates/email-in                {offer_id, from_name, from_email, phone?}  …/email, source email
 *   GET    candidates/{id}                                    the candidate's placements
 *   DELETE candidates/{id}
 *   POST   candidates/{id}/placements         {offer_id, location_ids?}
 *   POST   candidates/{id}/placements/{offer_id}/move        {stage_id}
 *   POST   candidates/{id}/placements/{offer_id}/disqualify  {reason_id}
 *   POST   candidates/{id}/placements/{offer_id}/requalify   {stage_id?}
 *   GET    offers
 *   POST   offers/{id}/status                 {status: draft | published | archived}
 *   PATCH  offers/{id}                        {title?, department_id?}
 *   PUT    offers/{id}/tags                   {tag_ids}
 */
export function pipelineRouter(deps: { pipeline: Pipeline; offers: OfferActions; companies: CompanyStore; bodyLimitBytes: number }): Router {
  const { pipeline, offers, companies } = deps;
  const router = Router();
  const json = jsonBody(deps.bodyLimitBytes);

  const companyId = companyIdParam(companies);
  const id = (req: Request, name: string, what: string): number => {
    const value = idParam(req, name);
    if (value === undefined) throw notFound(`Unknown ${what}`);
    return value;
  };
  const candidateId = (req: Request) => id(req, 'candidateId', 'candidate');
  const offerId = (req: Request) => id(req, 'offerId', 'offer');

  router.get('/c/:companyId/stages', (req, res) => {
    companyId(req);
    res.json({ stages: pipeline.stages(), disqualify_reasons: pipeline.disqualifyReasons() });
  });

  router.post('/c/:companyId/candidates', json, (req, res) => {
    const company = companyId(req);
    const body = parseOr422(NewCandidateBody, req.body ?? {});
    const created = pipeline.addCandidate(company, {
      name: body.name,
      email: body.email,
      phone: body.phone ?? null,
      offerIds: body.offer_ids,
    });
    res.status(201).json(candidateJson(companies, pipeline, company, created));
  });

  router.post('/c/:companyId/candidates/import', json, (req, res) => {
    const company = companyId(req);
    const body = parseOr422(ImportBody, req.body ?? {});
    const created = pipeline.importCandidates(
      company,
      body.candidates.map((c) => ({
        name: c.name,
        email: c.email,
        phone: c.phone ?? null,
        offerIds: body.offer_id === undefined ? [] : [body.offer_id],
      })),
    );
    res.status(201).json({ candidates: created.map((id) => candidateJson(companies, pipeline, company, id).candidate) });
  });

  router.post('/c/:companyId/candidates/email-in', json, (req, res) => {
    const company = companyId(req);
    const body = parseOr422(EmailInBody, req.body ?? {});
    const created = pipeline.addCandidate(
      company,
      { name: body.from_name, email: body.from_email, phone: body.phone ?? null, offerIds: [body.offer_id] },
      'email',
    );
    res.status(201).json(candidateJson(companies, pipeline, company, created));
  });

  router.get('/c/:companyId/candidates/:candidateId', (req, res) => {
    const company = companyId(req);
    res.json(candidateJson(companies, pipeline, company, candidateId(req)));
  });

  router.delete('/c/:companyId/candidates/:candidateId', (req, res) => {
    pipeline.deleteCandidate(companyId(req), candidateId(req));
    res.status(204).end();
  });

  router.post('/c/:companyId/candidates/:candidateId/placements', json, (req, res) => {
    const company = companyId(req);
    const body = parseOr422(AssignBody, req.body ?? {});
    res.status(201).json({ placement: placementJson(pipeline.assign(company, candidateId(req), body.offer_id, body.location_ids)) });
  });

  router.post('/c/:companyId/candidates/:candidateId/placements/:offerId/move', json, (req, res) => {
    const company = companyId(req);
    const body = parseOr422(MoveBody, req.body ?? {});
    res.json({ placement: placementJson(pipeline.move(company, candidateId(req), offerId(req), body.stage_id)) });
  });

  router.post('/c/:companyId/candidates/:candidateId/placements/:offerId/disqualify', json, (req, res) => {
    const company = companyId(req);
    const body = parseOr422(DisqualifyBody, req.body ?? {});
    res.json({ placement: placementJson(pipeline.disqualify(company, candidateId(req), offerId(req), body.reason_id)) });
  });

  router.post('/c/:companyId/candidates/:candidateId/placements/:offerId/requalify', json, (req, res) => {
    const company = companyId(req);
    const body = parseOr422(RequalifyBody, req.body ?? {});
    res.json({ placement: placementJson(pipeline.requalify(company, candidateId(req), offerId(req), body.stage_id)) });
  });

  router.get('/c/:companyId/offers', (req, res) => {
    res.json({ offers: offers.list(companyId(req)).map(offerJson) });
  });

  router.post('/c/:companyId/offers/:offerId/status', json, (req, res) => {
    const company = companyId(req);
    const body = parseOr422(OfferStatusBody, req.body ?? {});
    offers.setStatus(company, offerId(req), body.status);
    res.json({ offer: offerJson(findOffer(offers, company, offerId(req))) });
  });

  router.patch('/c/:companyId/offers/:offerId', json, (req, res) => {
    const company = companyId(req);
    const body = parseOr422(OfferEditBody, req.body ?? {});
    offers.edit(company, offerId(req), { title: body.title, departmentId: body.department_id });
    res.json({ offer: offerJson(findOffer(offers, company, offerId(req))) });
  });

  router.put('/c/:companyId/offers/:offerId/tags', json, (req, res) => {
    const company = companyId(req);
    const body = parseOr422(OfferTagsBody, req.body ?? {});
    offers.setTags(company, offerId(req), body.tag_ids);
    res.json({ offer: offerJson(findOffer(offers, company, offerId(req))) });
  });

  return router;
}

function findOffer(offers: OfferActions, companyId: number, offerId: number): OfferSummary {
  const offer = offers.list(companyId).find((o) => o.id === offerId);
  if (!offer) throw notFound('Unknown offer');
  return offer;
}

function candidateJson(companies: CompanyStore, pipeline: Pipeline, companyId: number, candidateId: number) {
  const c = companies.candidate(companyId, candidateId);
  if (!c) throw notFound('Unknown candidate');
  return {
    candidate: {
      id: c.id,
      name: c.name,
      email: c.email,
      phone: c.phone,
      source: c.source,
      placements: pipeline.placements(companyId, candidateId).map(placementJson),
      created_at: c.createdAt,
      updated_at: c.updatedAt,
    },
  };
}

export function placementJson(p: Placement) {
  return {
    id: p.id,
    offer_id: p.offerId,
    offer_title: p.offerTitle,
    stage: p.stage,
    disqualify_reason: p.disqualifyReason,
    disqualified_at: p.disqualifiedAt,
    created_at: p.createdAt,
  };
}

function offerJson(o: OfferSummary) {
  return { id: o.id, title: o.title, kind: o.kind, status: o.status, slug: o.slug, department_id: o.departmentId, tag_ids: o.tagIds, updated_at: o.updatedAt };
}
