import { Router } from 'express';
import { z } from 'zod';
import { Codename, IntegerId, ReportId } from '../../contract/schemas.js';
import { conflict, notFound } from '../../lib/errors.js';
import { parseOr422 } from '../../lib/http/validate.js';
import { jsonBody } from '../body-readers.js';
import type { CompanyStore } from '../companies/store.js';
import type { PartnerStore } from '../partners/store.js';
import { toWire, type ReportStore } from './store.js';

/** A send the platform made itself, outside its marketplace: the send_candidate body's ids (§4.3). */
export const SentReport = z.object({
  report_id: ReportId,
  codename: Codename,
  company_id: IntegerId,
  candidate_id: IntegerId,
  test_id: z.union([z.string().trim().min(1).max(200), z.number().finite()]).transform(String),
  test_name: z.string().max(500).default(''),
});

/**
 * `POST /_mock/reports`: records a report as sent to a partner, as the marketplace does before its
 * send_candidate call, without making the call. For a tool that calls the partner's send_candidate
 * itself as the platform (the conformance checker, `npm run conformance -- --mock`): the partner's
 * report updates about that report are then taken (§3.2) where they would be answered 404, and a
 * partner that cancels a report its platform does not know (docs/report-delivery.md) keeps it.
 *
 * 201 `{report}` when recorded, 200 when the same report was recorded already; 404 for a partner,
 * company or candidate the platform does not have; 409 for a report id already used otherwise.
 */
export function sentReportsRouter(deps: { partners: PartnerStore; reports: ReportStore; companies: CompanyStore }): Router {
  const router = Router();
  router.post('/', jsonBody(4 * 1024), (req, res) => {
    const sent = parseOr422(SentReport, req.body ?? {});
    if (!deps.partners.find(sent.codename)) throw notFound('Unknown partner');
    if (!deps.companies.find(sent.company_id)) throw notFound('Unknown company');
    if (!deps.companies.candidate(sent.company_id, sent.candidate_id)) throw notFound('Unknown candidate');
    const { report, created } = deps.reports.create({
      id: sent.report_id,
      codename: sent.codename,
      companyId: sent.company_id,
      candidateId: sent.candidate_id,
      testId: sent.test_id,
      testName: sent.test_name,
      sentByUserId: null,
    });
    const same =
      report.codename === sent.codename && report.companyId === sent.company_id && report.candidateId === sent.candidate_id && report.testId === sent.test_id;
    if (!same) throw conflict('This report id was already used to send another test');
    res.status(created ? 201 : 200).json({ report: toWire(created ? deps.reports.markDelivered(report.id) : report) });
  });
  return router;
}
