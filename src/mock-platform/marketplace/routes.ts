import { Router, type Response } from 'express';
import { z } from 'zod';
import { IntegerId, ReportId } from '../../contract/schemas.js';
import { notFound } from '../../lib/errors.js';
import { jsonBody } from '../body-readers.js';
import { parseOr422 } from '../../lib/http/validate.js';
import type { CompanyStore } from '../companies/store.js';
import type { PartnerStore } from '../partners/store.js';
import { toWire as reportToWire, type ReportStore, type StoredReport } from '../reports/store.js';
import { toJson as integrationToJson, type IntegrationStore } from './integrations.js';
import type { FailureKind } from './outcome.js';
import type { ActionResult, Marketplace } from './service.js';
import { companyIdParam, param } from '../path-params.js';

export const IntegrateBody = z.object({ token: z.string().trim().min(1, 'is required').max(500) });

export const SendBody = z.object({
  candidate_id: IntegerId,
  test_id: z.union([z.string().trim().min(1).max(200), z.number().finite()]).transform(String),
  test_name: z.string().trim().min(1, 'is required').max(500),
  report_id: ReportId.optional(),
  user_id: IntegerId.optional(),
});

/**
 * How a failed partner call answers on this API: the partner refused (the user can fix something)
 * or the partner is broken (a bad gateway, from the platform's point of view).
 */
const FAILURE_STATUS: Record<FailureKind, number> = { invalid_token: 422, partner_error: 422, problem: 502 };

/**
 * `/api/marketplace/c/{company_id}/…`: the recruiter's actions as a JSON API, for tests and
 * scripts; the sandbox UI performs the same actions through forms. Like the sandbox, it is
 * unauthenticated: the mock is a local tool.
 */
export function marketplaceRouter(deps: {
  marketplace: Marketplace;
  companies: CompanyStore;
  partners: PartnerStore;
  integrations: IntegrationStore;
  reports: ReportStore;
  bodyLimitBytes: number;
}): Router {
  const { marketplace, companies, partners, integrations, reports } = deps;
  const router = Router();
  const json = jsonBody(deps.bodyLimitBytes);

  const companyId = companyIdParam(companies);
  const answer = <T>(res: Response, result: ActionResult<T>, onOk: (value: T) => void) => {
    if (result.ok) return onOk(result.value);
    const { kind, message, callId } = result.failure;
    res.status(FAILURE_STATUS[kind]).json({ error: message, outcome: kind, call_id: callId });
  };

  router.get('/c/:companyId/partners', (req, res) => {
    const id = companyId(req);
    const byCodename = new Map(integrations.ofCompany(id).map((i) => [i.codename, i]));
    res.json({
      partners: partners.list().map((p) => {
        const integration = byCodename.get(p.codename);
        return {
          codename: p.codename,
          name: p.name,
          kind: p.kind,
          description: p.description,
          help_article: p.urls.help_article ?? null,
          integration: integration ? integrationToJson(integration) : null,
        };
      }),
    });
  });

  router.post('/c/:companyId/partners/:codename/integration', json, async (req, res) => {
    const id = companyId(req);
    const { token } = parseOr422(IntegrateBody, req.body ?? {});
    const result = await marketplace.integrate(id, param(req, 'codename'), token);
    answer(res, result, ({ integration, created }) => {
      res.status(created ? 201 : 200).json({ integration: integrationToJson(integration) });
    });
  });

  router.delete('/c/:companyId/partners/:codename/integration', (req, res) => {
    marketplace.disconnect(companyId(req), param(req, 'codename'));
    res.status(204).end();
  });

  router.get('/c/:companyId/partners/:codename/tests', async (req, res) => {
    const result = await marketplace.listTests(companyId(req), param(req, 'codename'));
    answer(res, result, (tests) => res.json({ tests }));
  });

  router.post('/c/:companyId/partners/:codename/send', json, async (req, res) => {
    const id = companyId(req);
    const body = parseOr422(SendBody, req.body ?? {});
    const result = await marketplace.send({
      companyId: id,
      codename: param(req, 'codename'),
      candidateId: body.candidate_id,
      testId: body.test_id,
      testName: body.test_name,
      reportId: body.report_id,
      userId: body.user_id,
    });
    answer(res, result, ({ report, created }) => {
      res.status(created ? 201 : 200).json({ report: reportJson(report) });
    });
  });

  router.get('/c/:companyId/candidates', (req, res) => {
    const id = companyId(req);
    res.json({
      candidates: companies.candidates(id).map((c) => ({
        id: c.id,
        name: c.name,
        email: c.email,
        phone: c.phone,
        reports: reports.ofCandidate(id, c.id).map(reportJson),
      })),
    });
  });

  router.get('/c/:companyId/reports/:reportId', (req, res) => {
    const id = companyId(req);
    const reportId = ReportId.safeParse(param(req, 'reportId'));
    // Failed sends are included here (with their delivery error), unlike on the candidate.
    const report = reportId.success ? reports.find(reportId.data) : undefined;
    if (!report || report.companyId !== id) throw notFound('Unknown report');
    res.json({ report: reportJson(report) });
  });

  router.post('/c/:companyId/reports/:reportId/cancel', async (req, res) => {
    const id = companyId(req);
    const reportId = ReportId.safeParse(param(req, 'reportId'));
    if (!reportId.success) throw notFound('Unknown report');
    const result = await marketplace.cancel(id, reportId.data);
    answer(res, result, (report) => res.status(202).json({ report: reportJson(report) }));
  });

  return router;
}

/** The report as the recruiter sees it: the wire shape plus how its send went. */
export function reportJson(r: StoredReport) {
  return {
    ...reportToWire(r),
    delivery: r.delivery,
    delivery_error: r.deliveryError,
    cancel_requested_at: r.cancelRequestedAt,
  };
}
