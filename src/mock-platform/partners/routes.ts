import { Router, type RequestHandler } from 'express';
import { Codename, PartnerPatch, PartnerRequest } from '../../contract/schemas.js';
import { conflict, notFound, unprocessable } from '../../lib/errors.js';
import { jsonBody } from '../body-readers.js';
import { parseOr422 } from '../../lib/http/validate.js';
import { apiTokenOf, requireCompanyToken } from '../api-tokens/middleware.js';
import type { ApiTokenStore } from '../api-tokens/store.js';
import { toWire, type PartnerStore } from './store.js';
import { param } from '../path-params.js';

export interface PartnersRouterDeps {
  partners: PartnerStore;
  tokens: ApiTokenStore;
  /** Per-endpoint middleware (call log, fault injection) — see app.ts. */
  endpoint: (name: string) => RequestHandler[];
  bodyLimitBytes: number;
}

const PATH = '/:codename/c/:companyId/partner';

/** §3.1 — the partner record at `/api/p/{codename}/c/{company_id}/partner`. */
export function partnersRouter(deps: PartnersRouterDeps): Router {
  const { partners, endpoint } = deps;
  const router = Router();
  const auth = requireCompanyToken(deps.tokens);
  const json = jsonBody(deps.bodyLimitBytes);

  const owned = (codename: string, companyId: number) => {
    const partner = Codename.safeParse(codename).success ? partners.findOwned(codename, companyId) : undefined;
    if (!partner) throw notFound('Unknown partner');
    return partner;
  };

  // Create, or replace when the same company posts its own codename again (201 / 200).
  router.post(PATH, ...endpoint('partners.create'), auth, json, (req, res) => {
    const codename = Codename.safeParse(param(req, 'codename'));
    if (!codename.success) {
      const message = codename.error.issues[0]?.message ?? 'is invalid';
      throw unprocessable(`codename ${message}`, { codename: [message] });
    }
    const request = parseOr422(PartnerRequest, req.body ?? {});
    checkInputNames(request.inputs);
    const saved = partners.save(codename.data, apiTokenOf(res).companyId, request);
    if (saved.outcome === 'taken') throw conflict(`The codename "${codename.data}" is taken by another company`);
    res.status(saved.outcome === 'created' ? 201 : 200).json({ partner: toWire(saved.partner) });
  });

  router.get(PATH, ...endpoint('partners.read'), auth, (req, res) => {
    res.json({ partner: toWire(owned(param(req, 'codename'), apiTokenOf(res).companyId)) });
  });

  router.patch(PATH, ...endpoint('partners.update'), auth, json, (req, res) => {
    const partner = owned(param(req, 'codename'), apiTokenOf(res).companyId);
    const changes = parseOr422(PartnerPatch, req.body ?? {});
    checkInputNames(changes.inputs);
    res.json({ partner: toWire(partners.patch(partner, changes)) });
  });

  router.delete(PATH, ...endpoint('partners.delete'), auth, (req, res) => {
    const partner = owned(param(req, 'codename'), apiTokenOf(res).companyId);
    partners.remove(partner);
    res.status(204).end();
  });

  return router;
}

/**
 * Each input becomes a key of the send_candidate body (its `name`, else its `kind`, §4.3), so two
 * inputs with the same key would overwrite each other.
 */
function checkInputNames(inputs: { kind: string; name?: string | undefined }[] | undefined): void {
  if (!inputs) return;
  const seen = new Set<string>();
  for (const input of inputs) {
    const key = input.name ?? input.kind;
    if (seen.has(key)) {
      throw unprocessable(`inputs have two entries named "${key}"`, { inputs: [`"${key}" appears more than once`] });
    }
    seen.add(key);
  }
}
