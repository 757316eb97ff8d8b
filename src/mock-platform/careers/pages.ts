import { Eta } from 'eta';
import { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { AppError } from '../../lib/errors.js';
import { companyOf, publishedOfferOf, type CareersContext } from './context.js';
import { offerPage, offerSummary } from './page-model.js';

/**
 * The sandbox careers page of a company: the published offers with department and tag filters, and
 * per offer a form generated from its screening questions. The form posts multipart/form-data with
 * bracketed names — exactly what an API client sends — and goes through the same validation, so the
 * page shows the API's 422 messages next to the fields. No scripts: the CSP forbids inline ones and
 * the page needs none.
 */
export function careersPages(ctx: CareersContext, viewsDir: string): Router {
  const eta = new Eta({ views: viewsDir, cache: true, autoEscape: true });
  const render = (res: Response, status: number, template: string, data: object) =>
    res.status(status).type('html').send(eta.render(template, data));
  const router = Router({ mergeParams: true });

  router.get('/', (req, res) => {
    const company = companyOf(ctx, req);
    const filters = { department: queryText(req, 'department'), tag: queryText(req, 'tag') };
    const offers = ctx.store.publishedOffers(company, filters);
    render(res, 200, './index', {
      title: `Careers at ${company.name}`,
      company,
      base: req.baseUrl,
      filters,
      choices: ctx.store.filterChoices(company),
      offers: offers.map((view) => offerSummary(view, req.baseUrl)),
    });
  });

  router.get(['/offers/:slug', '/offers/:slug/apply'], (req, res) => {
    const view = publishedOfferOf(ctx, req);
    const page = offerPage(view, req.baseUrl, queryText(req, 'lang'));
    render(res, 200, './offer', { title: `${page.offer.title} — ${view.company.name}`, company: view.company, ...page });
  });

  router.post('/offers/:slug/apply', async (req, res) => {
    const view = publishedOfferOf(ctx, req);
    const lang = queryText(req, 'lang');
    const { fields, files } = await ctx.readBody(req, res);
    try {
      const submitted = await ctx.applications.submit(view, fields, files, { async: true });
      render(res, 201, './applied', {
        title: `Application received — ${view.company.name}`,
        company: view.company,
        base: req.baseUrl,
        offerTitle: view.offer.title,
        candidate: submitted.candidate,
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 422) throw err;
      const page = offerPage(view, req.baseUrl, lang, { values: fields, errors: err.fields, message: err.message });
      render(res, 422, './offer', { title: `${page.offer.title} — ${view.company.name}`, company: view.company, ...page });
    }
  });

  router.use(htmlErrors(render));
  return router;
}

/** Client errors as a page; anything else is a bug for the app's error handler to log. */
function htmlErrors(render: (res: Response, status: number, template: string, data: object) => void): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    const status = (err as { status?: unknown } | null)?.status;
    if (res.headersSent || typeof status !== 'number' || status < 400 || status >= 500) return next(err);
    const message = err instanceof AppError ? err.message : status === 404 ? 'Not Found' : 'Bad Request';
    if (status === 413) res.set('Connection', 'close');
    render(res, status, './error', { title: message, status, message });
  };
}

function queryText(req: Request, name: string): string | undefined {
  const v: unknown = req.query[name];
  return typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 200) : undefined;
}
