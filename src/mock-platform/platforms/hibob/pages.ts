import type { Request, Router } from 'express';
import { z } from 'zod';
import { forbidden, notFound } from '../../../lib/errors.js';
import { parseOr422 } from '../../../lib/http/validate.js';
import { idParam, param } from '../../path-params.js';
import type { PageKit } from '../../sandbox/page-kit.js';
import { deliveryProblem, isComplete, shownStatus, BOB_API_PATH, BOB_TOKEN_PATH, KIT_CALLBACK_PATH, KIT_WEBHOOKS_PATH, type Bob, type Made } from './service.js';
import type { Assessment, BobStore, Delivery } from './store.js';
import { SCOPE } from './wire.js';
import type { Attempt } from './webhooks.js';

/** A URL of the vendor's, as the Developer Portal takes one: absolute http(s), no credentials or fragment. */
const VendorUrl = z
  .url({ protocol: /^https?$/, error: (issue) => (issue.input === undefined ? 'is required' : 'must be an absolute http(s) URL') })
  .max(2000)
  .refine((u) => {
    // Checked whatever the checks before said: a text that is no URL is theirs to refuse.
    if (!URL.canParse(u)) return true;
    const url = new URL(u);
    return url.username === '' && url.password === '' && url.hash === '';
  }, 'must not hold credentials or a fragment');

/** The vendor's app as the Developer Portal's form (or a script) sets it. */
export const AppInput = z.object({
  name: z.string().trim().min(1, 'is required').max(200),
  redirect_uri: VendorUrl,
  webhook_url: VendorUrl,
});

const OrderForm = z.object({ package_id: z.string().min(1, 'choose a package').max(500) });

/** An attempt as the flash says it. */
const said = (what: string, sent: Attempt) => (sent.ok ? `${what} The vendor took the webhook (HTTP ${sent.status}).` : `${what} ${sent.message}`);

/**
 * The Bob companies' pages in the sandbox (`/hibob/companies/{id}`): the vendor's app as Bob's
 * Developer Portal holds it (its URLs, client and secrets, where the partner's settings point),
 * the install and the marketplace page it starts from, the catalog the vendor registered, the job
 * openings, the candidates, and the webhook deliveries; each candidate's page orders an assessment
 * from the catalog and shows its status, score and result link as the vendor's PATCHes arrive, what
 * each webhook did, and "Cancel assessment".
 */
export function registerBobPages(router: Router, kit: PageKit, deps: { bob: Bob; store: BobStore; publicUrl: string }): void {
  const { bob, store, publicUrl } = deps;
  const { render, act } = kit;

  const companyOf = (req: Request) => bob.company(param(req, 'companyId'));
  const candidateOf = (req: Request, companyId: string) => {
    const id = idParam(req, 'candidateId');
    const candidate = id === undefined ? undefined : store.candidate(companyId, id);
    if (!candidate) throw notFound('Unknown candidate');
    return candidate;
  };
  const companyPage = (req: Request) => `/hibob/companies/${encodeURIComponent(param(req, 'companyId'))}`;
  const candidatePage = (req: Request) => `${companyPage(req)}/candidates/${param(req, 'candidateId')}`;
  /** The candidate page of an assessment or delivery in the path, else the company page. */
  const pageOfAssessment = (req: Request, assessmentId: number | undefined) => {
    const a = assessmentId === undefined ? undefined : store.assessment(assessmentId);
    return a && a.companyId === param(req, 'companyId') ? `${companyPage(req)}/candidates/${a.candidateId}` : companyPage(req);
  };
  const deliveryView = (d: Delivery) => ({ delivery: d, problem: deliveryProblem(d), requestId: store.assessment(d.assessment)?.requestId ?? '' });
  const assessmentView = (a: Assessment) => ({
    assessment: a,
    badge: shownStatus(a),
    complete: isComplete(a),
    requester: store.employee(a.requesterId),
    job: store.jobOpening(a.jobOpeningId),
    problem: bob.problemOf(a),
    deliveries: store.deliveriesOf(a.id).map(deliveryView),
    updates: store.updatesOf(a.id),
  });

  router.get('/hibob/companies/:companyId', (req, res) => {
    const company = companyOf(req);
    render(req, res, '@hibob/company', {
      title: `${company.name} (Bob)`,
      company,
      app: bob.app(),
      urls: { token: `${publicUrl}${BOB_TOKEN_PATH}`, api: `${publicUrl}${BOB_API_PATH}` },
      paths: { callback: KIT_CALLBACK_PATH, webhooks: KIT_WEBHOOKS_PATH },
      exchanged: store.accessTokensIssued(company.id) > 0,
      packages: store.packages(company.id),
      jobs: store.jobOpenings(company.id),
      candidates: store.candidates(company.id).map((c) => ({ candidate: c, badges: store.ofCandidate(c.id).map(shownStatus) })),
      deliveries: store.recentDeliveries(company.id, 20).map(deliveryView),
    });
  });

  router.post(
    '/hibob/companies/:companyId/app',
    act(companyPage, async (req) => {
      companyOf(req);
      const input = parseOr422(AppInput, req.body);
      const app = bob.registerApp({ name: input.name, redirectUri: input.redirect_uri, webhookUrl: input.webhook_url });
      return { kind: 'notice', text: `${app.name}'s app is saved: Bob sends installs to its redirect URI and every company's events to its webhook listener.` };
    }),
  );

  // Bob's marketplace: the vendor's app, and the company's consent.
  router.get('/hibob/companies/:companyId/marketplace', (req, res) => {
    const company = companyOf(req);
    render(req, res, '@hibob/marketplace', { title: `Marketplace · ${company.name} (Bob)`, company, app: bob.app(), scope: SCOPE });
  });

  // Install (or decline): Bob sends the browser to the app's redirect URI. A link, not a form: a
  // redirect to another site after a form post is what the sandbox's Content-Security-Policy
  // (form-action 'self') forbids. Like the sandbox's form posts, only from the sandbox itself.
  router.get('/hibob/companies/:companyId/marketplace/install', (req, res) => {
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') throw forbidden('An install starts from the marketplace page of the sandbox');
    const company = companyOf(req);
    res.redirect(302, req.query.decline !== undefined ? bob.declined(company.id) : bob.consent(company.id));
  });

  router.get('/hibob/companies/:companyId/candidates/:candidateId', (req, res) => {
    const company = companyOf(req);
    const candidate = candidateOf(req, company.id);
    render(req, res, '@hibob/candidate', {
      title: `${candidate.firstName} ${candidate.lastName}`,
      company,
      candidate,
      job: store.jobOpening(candidate.jobOpeningId),
      app: bob.app(),
      packages: bob.activePackages(company.id),
      assessments: store.ofCandidate(candidate.id).map(assessmentView),
    });
  });

  router.post(
    '/hibob/companies/:companyId/candidates/:candidateId/assessments',
    act(candidatePage, async (req) => {
      const company = companyOf(req);
      const candidate = candidateOf(req, company.id);
      const { package_id } = parseOr422(OrderForm, req.body);
      const { assessment, sent }: Made = await bob.order(company.id, candidate.id, package_id);
      const text = said(`${assessment.packageName} was ordered for ${candidate.firstName} (assessmentRequestId ${assessment.requestId}).`, sent);
      return { kind: sent.ok ? 'notice' : 'error', text };
    }),
  );

  router.post(
    '/hibob/companies/:companyId/assessments/:assessmentId/cancel',
    act(
      (req) => pageOfAssessment(req, idParam(req, 'assessmentId')),
      async (req) => {
        const company = companyOf(req);
        const id = idParam(req, 'assessmentId');
        if (id === undefined) throw notFound('Unknown assessment');
        const { assessment, sent } = await bob.cancel(company.id, id);
        return { kind: sent.ok ? 'notice' : 'error', text: said(`${assessment.packageName} was cancelled.`, sent) };
      },
    ),
  );

  router.post(
    '/hibob/companies/:companyId/deliveries/:deliveryId/again',
    act(
      (req) => {
        const id = idParam(req, 'deliveryId');
        return pageOfAssessment(req, id === undefined ? undefined : store.delivery(id)?.assessment);
      },
      async (req) => {
        const company = companyOf(req);
        const id = idParam(req, 'deliveryId');
        if (id === undefined) throw notFound('Unknown webhook delivery');
        const sent = await bob.deliverAgain(company.id, id);
        return { kind: sent.ok ? 'notice' : 'error', text: said('Bob delivered the same event again, as its at-least-once delivery may.', sent) };
      },
    ),
  );
}
