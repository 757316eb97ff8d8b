import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import { z } from 'zod';
import { AppError, notFound } from '../../lib/errors.js';
import { parseOr422 } from '../../lib/http/validate.js';
import { companyOf, publishedOfferOf, type CareersContext } from './context.js';
import { offerJson } from './offer-json.js';

/** An empty filter, "" or spaces, is no filter. */
const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const nameFilter = z.preprocess(blankToUndefined, z.string().trim().max(200).optional());
export const OffersQuery = z.object({ department: nameFilter, tag: nameFilter });
export const ApplyQuery = z.object({
  async: z.enum(['true', 'false', '1', '0']).optional().transform((v) => v === 'true' || v === '1'),
});

/**
 * The careers site API of one company (platform-contract.md §7.5, §7.6), mounted at `/careers/{subdomain}/api`:
 * public, unauthenticated, and open to browsers on other origins — vendors call it from their own
 * careers pages.
 */
export function careersApi(ctx: CareersContext): Router {
  const router = Router({ mergeParams: true });
  router.use(crossOrigin);

  router.get('/offers', (req, res) => {
    const company = companyOf(ctx, req);
    const filters = parseOr422(OffersQuery, req.query);
    const offers = ctx.store.publishedOffers(company, filters);
    res.json({ offers: offers.map((view) => offerJson(view, ctx.publicUrl)) });
  });

  // [kit decision] One offer answers as {"offer": Offer}.
  router.get('/offers/:slug', (req, res) => {
    res.json({ offer: offerJson(publishedOfferOf(ctx, req), ctx.publicUrl) });
  });

  router.post('/offers/:slug/candidates', async (req, res) => {
    const view = publishedOfferOf(ctx, req);
    const { async } = parseOr422(ApplyQuery, req.query);
    const { fields, files } = await ctx.readBody(req, res);
    const submitted = await ctx.applications.submit(view, fields, files, { async });
    res.status(201).json({ candidate: submitted.candidate });
    await submitted.attachPending();
  });

  router.use((_req, _res, next) => next(notFound()));
  router.use(notFoundAsPlainText);
  return router;
}

const crossOrigin: RequestHandler = (req, res, next) => {
  res.set('Access-Control-Allow-Origin', '*');
  // helmet's default (same-origin) would stop other sites' pages from reading the answers.
  res.set('Cross-Origin-Resource-Policy', 'cross-origin');
  if (req.method !== 'OPTIONS') return next();
  res.set('Access-Control-Allow-Methods', 'GET, POST');
  res.set('Access-Control-Allow-Headers', 'Content-Type');
  res.set('Access-Control-Max-Age', '600');
  res.status(204).end();
};

/**
 * platform-contract.md §8.2: the platform answers a careers 404 with `{"error":"Not Found"}` declared as text/plain,
 * and clients written against it expect exactly that. Every other error goes on to the app's
 * error handler (JSON).
 */
const notFoundAsPlainText: ErrorRequestHandler = (err, _req, res, next) => {
  if (!(err instanceof AppError) || err.status !== 404 || res.headersSent) return next(err);
  res.status(404).type('text/plain').send(JSON.stringify({ error: 'Not Found' }));
};
