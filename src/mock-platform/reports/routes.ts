import { Router, type RequestHandler, type Response } from 'express';
import { PARTNER_SECRET_HEADER } from '../../contract/decisions.js';
import { ReportId } from '../../contract/schemas.js';
import { notFound, unauthorized } from '../../lib/errors.js';
import { jsonBody } from '../body-readers.js';
import { parseOr422 } from '../../lib/http/validate.js';
import type { CompanyStore } from '../companies/store.js';
import type { PartnerStore, StoredPartner } from '../partners/store.js';
import { AcceptedReportUpdate, applyReportUpdate } from './rules.js';
import { toWire, type ReportStore } from './store.js';
import { idParam, param } from '../path-params.js';

export interface ReportsRouterDeps {
  partners: PartnerStore;
  reports: ReportStore;
  companies: CompanyStore;
  /** Companies that integrated the partner (only they may be asked about). */
  isIntegrated: (companyId: number, codename: string) => boolean;
  endpoint: (name: string) => RequestHandler[];
  bodyLimitBytes: number;
}

/** §3.2 — what a partner sends back about the reports it was given, authenticated by its secret. */
export function reportsRouter(deps: ReportsRouterDeps): Router {
  const { partners, reports, companies, endpoint } = deps;
  const router = Router();
  const json = jsonBody(deps.bodyLimitBytes);

  // The partner secret only: a Bearer header (the customer token or an API token) is no substitute.
  const authenticate: RequestHandler = (req, res, next) => {
    const presented = req.headers[PARTNER_SECRET_HEADER];
    if (typeof presented !== 'string' || presented === '') {
      return next(
        unauthorized(
          req.headers.authorization
            ? 'Send the partner secret in the RT-PARTNER-SECRET header; a Bearer token is not accepted here'
            : 'Missing RT-PARTNER-SECRET header',
        ),
      );
    }
    const partner = partners.authenticateSecret(param(req, 'codename'), presented);
    if (!partner) return next(unauthorized('Invalid partner secret'));
    res.locals.partner = partner;
    next();
  };
  const partnerOf = (res: Response) => res.locals.partner as StoredPartner;

  router.patch('/:codename/reports/:reportId', ...endpoint('reports.update'), authenticate, json, (req, res) => {
    const partner = partnerOf(res);
    const id = ReportId.safeParse(param(req, 'reportId'));
    // Another partner's report answers exactly as an id that does not exist.
    const report = id.success ? reports.findVisible(id.data) : undefined;
    if (!report || report.codename !== partner.codename) throw notFound('Unknown report');
    const update = parseOr422(AcceptedReportUpdate, req.body ?? {});
    const fields = applyReportUpdate(report, partner.kind, update);
    res.json({ report: toWire(reports.update(report.id, fields)) });
  });

  router.get(
    '/:codename/c/:companyId/candidates/:candidateId/reports',
    ...endpoint('reports.list'),
    authenticate,
    (req, res) => {
      const partner = partnerOf(res);
      const companyId = idParam(req, 'companyId');
      const candidateId = idParam(req, 'candidateId');
      const known =
        companyId !== undefined &&
        candidateId !== undefined &&
        deps.isIntegrated(companyId, partner.codename) &&
        companies.candidate(companyId, candidateId) !== undefined;
      // A company that never integrated the partner is none of its business: same answer as unknown.
      if (!known) throw notFound('Unknown candidate');
      res.json({ reports: reports.ofCandidate(companyId, candidateId, partner.codename).map(toWire) });
    },
  );

  return router;
}
