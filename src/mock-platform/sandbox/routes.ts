import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { TERMINAL_REPORT_STATUSES } from '../../contract/decisions.js';
import { Codename, ReportId } from '../../contract/schemas.js';
import { AppError, forbidden, notFound } from '../../lib/errors.js';
import type { Logger } from '../../lib/http/logger.js';
import { shownPath } from '../../lib/http/error-handler.js';
import { parseOr422 } from '../../lib/http/validate.js';
import { timeHtml } from '../../lib/time.js';
import { issueApiToken } from '../api-tokens/routes.js';
import type { ApiTokenStore } from '../api-tokens/store.js';
import { CallQuery, callFilter } from '../calls/routes.js';
import type { CallLog } from '../calls/store.js';
import type { CompanyStore } from '../companies/store.js';
import type { OfferActions } from '../companies/offers.js';
import type { Pipeline } from '../companies/pipeline.js';
import { faultSpecSchema } from '../faults/routes.js';
import { describeFault, faultPlace, type FaultStore } from '../faults/store.js';
import type { MailLog } from '../mail.js';
import { toJson as integrationJson, type IntegrationStore } from '../marketplace/integrations.js';
import type { Marketplace } from '../marketplace/service.js';
import { partnerBaseUrl } from '../partners/base-url.js';
import type { PartnerStore, StoredPartner } from '../partners/store.js';
import { badgeScore } from '../reports/rules.js';
import type { ReportStore, StoredReport } from '../reports/store.js';
import type { MockWebhooks } from '../webhooks/index.js';
import type { PlatformSide } from '../platforms/plugin.js';
import { flashes, type Flash } from './flash.js';
import { testChoice, type PageKit } from './page-kit.js';
import { pretty } from './pretty.js';
import { registerPipelinePages } from './pipeline.js';
import { views } from './views.js';
import { registerWebhookPages } from './webhooks.js';
import { idParam, param } from '../path-params.js';
import { formBody } from '../body-readers.js';

export interface SandboxDeps {
  companies: CompanyStore;
  partners: PartnerStore;
  integrations: IntegrationStore;
  reports: ReportStore;
  tokens: ApiTokenStore;
  calls: CallLog;
  faults: FaultStore;
  mail: MailLog;
  marketplace: Marketplace;
  pipeline: Pipeline;
  offers: OfferActions;
  webhooks: MockWebhooks;
  /** The platforms the mock plays besides this one (platforms/): their pages and home sections. */
  platforms: readonly PlatformSide[];
  logger: Logger;
}

const KIND_LABELS: Record<string, string> = {
  assessment: 'Assessment',
  background_check: 'Background check',
  reference_check: 'Reference check',
};

const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);
/** A number typed in a form field; an empty field is absent. */
const formInt = z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional());

const IntegrateForm = z.object({ codename: Codename, token: z.string().trim().min(1, 'is required').max(500) });
const DisconnectForm = z.object({ codename: Codename });
const TestChoice = testChoice(z.object({ id: z.union([z.string().min(1), z.number()]), name: z.string().min(1).max(500) }));
const SendForm = z.object({ codename: Codename, test: TestChoice, report_id: ReportId });
const CandidateForm = z.object({
  name: z.string().trim().min(1, 'is required').max(200),
  email: z.string().trim().max(320).pipe(z.email('must be a valid e-mail address')),
  phone: z.preprocess(emptyToUndefined, z.string().trim().max(100).optional()),
  offer_id: formInt,
});
const ApiTokenForm = z.object({
  company_id: formInt.pipe(z.number().positive()),
  label: z.preprocess(emptyToUndefined, z.string().trim().max(100).optional()),
});
const FaultForm = z.object({
  endpoint: z.string().max(100),
  status: formInt,
  delay_ms: formInt,
  drop: z.literal('on').optional(),
  times: formInt,
});

/**
 * The sandbox UI: what a recruiter clicks in the platform, as plain server-rendered pages. Every
 * form POSTs, then redirects to a page (POST → redirect → GET), so reloading never repeats an
 * action. Helmet's default Content-Security-Policy stays on: the one script, the candidate pages'
 * (`live-reports.js`, which keeps a page's reports current while one is in flight, on every
 * platform: `PageKit.livePart`), is a file of its own, and no page has an inline script or event
 * handler.
 */
export function sandboxRouter(deps: SandboxDeps): Router {
  const { companies, partners, integrations, reports, tokens, calls, faults, mail, marketplace } = deps;
  const router = Router();
  const flash = flashes();
  const form = formBody({ extended: false, limit: '32kb', parameterLimit: 50 });

  /** What every template may call. */
  const helpers = {
    kindLabel: (k: string) => KIND_LABELS[k] ?? k,
    badgeScore,
    // `<%~ it.time(iso) %>`: a moment, readable, with the exact ISO value in its tooltip.
    time: timeHtml,
  };
  const render = (req: Request, res: Response, template: string, data: Record<string, unknown>, status = 200) => {
    res
      .status(status)
      .type('html')
      .send(views.render(template, { ...data, flash: flash.take(req.query.flash), ...helpers }));
  };
  const fragment: PageKit['fragment'] = (template, data) => views.render(template, { ...data, ...helpers });
  const livePart: PageKit['livePart'] = (res, part) => {
    res.set('Cache-Control', 'no-store').json({ final: part.final, html: part.html });
  };

  /**
   * A form action: runs `fn`, then redirects back to `back` (or where `fn` says) with its message.
   * A refusal the user can act on (any 4xx) becomes an error message on that page.
   */
  const act =
    (back: (req: Request) => string, fn: (req: Request) => Promise<Flash | { flash: Flash; to: string }>): RequestHandler =>
    async (req, res) => {
      let result: Flash | { flash: Flash; to: string };
      try {
        result = await fn(req);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        result = { kind: 'error', text: err.message };
      }
      const { flash: message, to } = 'to' in result ? result : { flash: result, to: back(req) };
      const separator = to.includes('?') ? '&' : '?';
      res.redirect(303, `${to}${separator}flash=${flash.put(message)}`);
    };

  // Refuse form posts from other sites: the sandbox has no login, so this is what stops a page
  // elsewhere from driving it through the browser.
  const sameSite: RequestHandler = (req, _res, next) => {
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return next(forbidden('Cross-site form posts are refused'));
    next();
  };
  router.post('/{*any}', sameSite, form);

  const companyOf = (req: Request) => {
    const id = idParam(req, 'companyId');
    const company = id === undefined ? undefined : companies.find(id);
    if (!company) throw notFound('Unknown company');
    return company;
  };
  const partnerNames = () => new Map(partners.list().map((p) => [p.codename, p.name]));
  const kit: PageKit = { render, act, companyOf, fragment, livePart };

  // Browsers ask for it on every page; an empty answer keeps the console and the request log quiet.
  router.get('/favicon.ico', (_req, res) => {
    res.status(204).end();
  });

  router.get('/', (req, res) => {
    render(req, res, './home', {
      title: 'Sandbox',
      companies: companies.list(),
      platforms: deps.platforms.map((p) => p.home()),
      partners: partners.list(),
      companyName: (id: number) => companies.find(id)?.name ?? `#${id}`,
    });
  });

  router.get('/companies/:companyId', (req, res) => {
    const company = companyOf(req);
    const byCodename = new Map(integrations.ofCompany(company.id).map((i) => [i.codename, i]));
    const names = partnerNames();
    render(req, res, './company', {
      title: company.name,
      company,
      marketplace: partners.list().map((p) => {
        const integration = byCodename.get(p.codename);
        return { partner: p, integration: integration && integrationJson(integration) };
      }),
      candidates: companies.candidates(company.id).map((c) => ({
        candidate: c,
        badges: reports.ofCandidate(company.id, c.id).map((r) => badge(r, names)),
      })),
      offers: deps.offers.list(company.id),
      tags: deps.offers.tags(company.id),
    });
  });

  // "How to integrate", from the company's marketplace: what the company does to connect the
  // partner on this platform, and on the others the mock plays, with the addresses it involves.
  router.get('/companies/:companyId/marketplace/:codename', (req, res) => {
    const company = companyOf(req);
    const codename = Codename.safeParse(param(req, 'codename'));
    const partner = codename.success ? partners.find(codename.data) : undefined;
    if (!partner) throw notFound('No partner of that codename is in the marketplace');
    const integration = integrations.find(company.id, partner.codename);
    render(req, res, './how-to-integrate', {
      title: `How to integrate ${partner.name}`,
      company,
      partner,
      partnerBase: partnerBaseUrl(partner),
      integration: integration && integrationJson(integration),
      candidate: companies.candidates(company.id)[0],
      platforms: deps.platforms.map((p) => p.home()),
    });
  });

  router.post(
    '/companies/:companyId/integrations',
    act(
      (req) => `/companies/${param(req, 'companyId')}`,
      async (req) => {
        const company = companyOf(req);
        const input = parseOr422(IntegrateForm, req.body);
        const result = await marketplace.integrate(company.id, input.codename, input.token);
        if (!result.ok) return { kind: 'error', text: result.failure.message };
        const name = partners.find(input.codename)?.name ?? input.codename;
        return { kind: 'notice', text: result.value.created ? `${name} is integrated.` : `${name}: token replaced.` };
      },
    ),
  );

  router.post(
    '/companies/:companyId/integrations/delete',
    act(
      (req) => `/companies/${param(req, 'companyId')}`,
      async (req) => {
        const company = companyOf(req);
        const { codename } = parseOr422(DisconnectForm, req.body);
        marketplace.disconnect(company.id, codename);
        return { kind: 'notice', text: `${partners.find(codename)?.name ?? codename} is disconnected.` };
      },
    ),
  );

  router.post(
    '/companies/:companyId/candidates',
    act(
      (req) => `/companies/${param(req, 'companyId')}`,
      async (req) => {
        const company = companyOf(req);
        const input = parseOr422(CandidateForm, req.body);
        const candidateId = deps.pipeline.addCandidate(company.id, {
          name: input.name,
          email: input.email,
          phone: input.phone ?? null,
          offerIds: input.offer_id === undefined ? [] : [input.offer_id],
        });
        return {
          flash: { kind: 'notice', text: `${input.name} was added.` },
          to: `/companies/${company.id}/candidates/${candidateId}`,
        };
      },
    ),
  );

  const candidateOf = (req: Request, companyId: number) => {
    const candidateId = idParam(req, 'candidateId');
    const candidate = candidateId === undefined ? undefined : companies.candidate(companyId, candidateId);
    if (!candidate) throw notFound('Unknown candidate');
    return candidate;
  };
  /**
   * The candidate's reports as their page shows them, and the address its script asks while one is
   * in flight (`live`): sent and not yet completed, failed or canceled.
   */
  const reportsPart = (companyId: number, candidateId: number) => {
    const names = partnerNames();
    const sent = reports.ofCandidate(companyId, candidateId);
    const final = sent.every((r) => TERMINAL_REPORT_STATUSES.includes(r.status) && r.delivery !== 'pending');
    return {
      final,
      live: final ? undefined : `/companies/${companyId}/candidates/${candidateId}/live`,
      reports: sent.map((r) => ({
        report: r,
        partnerName: names.get(r.codename) ?? r.codename,
        cancelable: Boolean(r.urls.cancel) && !TERMINAL_REPORT_STATUSES.includes(r.status),
      })),
    };
  };

  router.get('/companies/:companyId/candidates/:candidateId', async (req, res) => {
    const company = companyOf(req);
    const candidate = candidateOf(req, company.id);
    const integrated = integrations
      .ofCompany(company.id)
      .map((i) => partners.find(i.codename))
      .filter((p): p is StoredPartner => p !== undefined);

    // Choosing a partner lists its tests, as the platform does when a user starts a send.
    const chosen = typeof req.query.partner === 'string' ? integrated.find((p) => p.codename === req.query.partner) : undefined;
    let tests: { value: string; name: string }[] | undefined;
    let testsError: string | undefined;
    if (chosen) {
      const result = await marketplace.listTests(company.id, chosen.codename);
      if (result.ok) tests = result.value.map((t) => ({ value: JSON.stringify({ id: t.id, name: t.name }), name: t.name }));
      else testsError = result.failure.message;
    }
    render(req, res, './candidate', {
      title: candidate.name,
      script: 'live-reports.js',
      company,
      candidate,
      ...reportsPart(company.id, candidate.id),
      integrated,
      chosen,
      tests,
      testsError,
      placements: deps.pipeline.placements(company.id, candidate.id),
      stages: deps.pipeline.stages(),
      reasons: deps.pipeline.disqualifyReasons(),
      offers: deps.offers.list(company.id),
      // Rendered into the form: submitting the same form twice sends the same report (a double click).
      reportId: randomUUID(),
    });
  });

  // The reports part alone, which the page asks for while a report is in flight: the partner's
  // first update (its links, "Cancel this test"), a result, a cancel, without a reload.
  router.get('/companies/:companyId/candidates/:candidateId/live', (req, res) => {
    const company = companyOf(req);
    const candidate = candidateOf(req, company.id);
    const part = reportsPart(company.id, candidate.id);
    livePart(res, { final: part.final, html: fragment('./candidate-reports', { ...part, company, candidate }) });
  });

  router.post(
    '/companies/:companyId/candidates/:candidateId/send',
    act(
      (req) => `/companies/${param(req, 'companyId')}/candidates/${param(req, 'candidateId')}`,
      async (req) => {
        const company = companyOf(req);
        const candidateId = idParam(req, 'candidateId') ?? 0;
        const input = parseOr422(SendForm, req.body);
        const result = await marketplace.send({
          companyId: company.id,
          codename: input.codename,
          candidateId,
          testId: String(input.test.id),
          testName: input.test.name,
          reportId: input.report_id,
        });
        if (!result.ok) return { kind: 'error', text: result.failure.message };
        return { kind: 'notice', text: `${input.test.name} was sent.` };
      },
    ),
  );

  router.post(
    '/companies/:companyId/reports/:reportId/cancel',
    act(
      // Back to the candidate's page the button was on, else the company's.
      (req) => {
        const candidateId = (req.body as { candidate_id?: unknown } | undefined)?.candidate_id;
        const candidatePage = typeof candidateId === 'string' && /^[1-9]\d{0,15}$/.test(candidateId) ? `/candidates/${candidateId}` : '';
        return `/companies/${param(req, 'companyId')}${candidatePage}`;
      },
      async (req) => {
        const company = companyOf(req);
        const reportId = ReportId.safeParse(param(req, 'reportId'));
        if (!reportId.success) throw notFound('Unknown report');
        const result = await marketplace.cancel(company.id, reportId.data);
        if (!result.ok) return { kind: 'error', text: result.failure.message };
        return { kind: 'notice', text: 'Cancel requested; the report changes when the partner confirms it.' };
      },
    ),
  );

  router.get('/calls', (req, res) => {
    const q = parseOr422(CallQuery, req.query);
    render(req, res, './calls', {
      title: 'Calls',
      query: q,
      calls: calls.list({ ...callFilter(q), limit: q.limit ?? 200, order: q.order ?? 'desc' }),
    });
  });

  router.get('/calls/:id', (req, res) => {
    const id = idParam(req, 'id');
    const call = id === undefined ? undefined : calls.find(id);
    if (!call) throw notFound('Unknown call');
    render(req, res, './call', { title: `Call ${call.id}`, call, pretty });
  });

  router.get('/admin', (req, res) => {
    render(req, res, './admin', {
      title: 'Admin',
      companies: companies.list(),
      tokens: tokens.list(),
      faults: faults.list().map((f) => ({ ...f, description: describeFault(f) })),
      endpoints: faults.endpoints(),
      callbacks: faults.callbacks(),
      mail: mail.list().slice(-50).reverse(),
    });
  });

  router.post(
    '/admin/api-tokens',
    act(
      () => '/admin',
      async (req) => {
        const input = parseOr422(ApiTokenForm, req.body);
        const { token, record } = issueApiToken({ tokens, companies }, input.company_id, undefined, input.label);
        return { kind: 'notice', text: `API token "${record.label}" created. Copy it now: it is not shown again.`, secret: token };
      },
    ),
  );

  router.post(
    '/admin/api-tokens/:id/revoke',
    act(
      () => '/admin',
      async (req) => {
        const id = idParam(req, 'id');
        const revoked = id === undefined ? undefined : tokens.revoke(id);
        if (!revoked) throw notFound('Unknown API token');
        return { kind: 'notice', text: `API token "${revoked.label}" revoked.` };
      },
    ),
  );

  router.post(
    '/admin/faults',
    act(
      () => '/admin',
      async (req) => {
        const input = parseOr422(FaultForm, req.body);
        // One list for both kinds: "callback:send_candidate" is a call the platform makes to the partner.
        const callback = /^callback:(.*)$/.exec(input.endpoint);
        const fault = faults.add(
          parseOr422(faultSpecSchema(faults), {
            target: callback ? 'callback' : 'platform',
            endpoint: callback ? callback[1] : input.endpoint,
            status: input.status,
            delayMs: input.delay_ms,
            drop: input.drop === 'on' ? true : undefined,
            times: input.times ?? 1,
          }),
        );
        return { kind: 'notice', text: `Fault armed on ${faultPlace(fault)}: ${describeFault(fault)}, ${fault.remaining} time(s).` };
      },
    ),
  );

  router.post(
    '/admin/faults/clear',
    act(
      () => '/admin',
      async () => {
        faults.clear();
        return { kind: 'notice', text: 'All faults cleared.' };
      },
    ),
  );

  router.post(
    '/admin/calls/clear',
    act(
      () => '/calls',
      async () => {
        calls.clear();
        return { kind: 'notice', text: 'Call history cleared.' };
      },
    ),
  );

  registerPipelinePages(router, kit, { companies, pipeline: deps.pipeline, offers: deps.offers });
  registerWebhookPages(router, kit, { companies, webhooks: deps.webhooks });
  for (const platform of deps.platforms) platform.pages?.(router, kit);

  // Pages answer errors as pages; the JSON APIs keep the app's JSON error handler. A 4xx that is not
  // an AppError (one of Express's own, say) is still the client's: its status, never a 500.
  const pageErrors: ErrorRequestHandler = (err, req, res, next) => {
    if (res.headersSent || req.path.startsWith('/api/') || req.path.startsWith('/_mock/')) return next(err);
    const known = err instanceof AppError;
    const clientStatus = known ? undefined : clientErrorStatus(err);
    if (!known && clientStatus === undefined) deps.logger.error({ err, path: req.path }, 'sandbox page failed');
    const status = known ? err.status : (clientStatus ?? 500);
    const message = known ? err.message : clientStatus !== undefined ? 'The request could not be read.' : 'Something went wrong; see the mock’s log.';
    render(req, res, './error', { title: 'Error', status, message }, status);
  };
  router.use(pageErrors);

  return router;
}

/**
 * The page a browser gets for an address the mock does not serve (the app's last route, for a
 * request that asks for HTML; API clients keep the JSON 404): the sandbox's layout, its menu, and
 * a way back.
 */
export function sandboxNotFoundPage(req: Request, res: Response): void {
  res
    .status(404)
    .type('html')
    .send(views.render('./error', { title: 'Not found', status: 404, message: `There is no page at ${shownPath(req)}.` }));
}

/** The status of an error a client caused (an http-errors 4xx), else undefined. */
function clientErrorStatus(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

function badge(r: StoredReport, names: Map<string, string>) {
  const partner = names.get(r.codename) ?? r.codename;
  const state = r.delivery === 'pending' ? 'sending…' : r.status;
  return { partner, state, status: r.status, score: r.score };
}
