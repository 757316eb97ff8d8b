import type { Request, Response } from 'express';
import { notFound } from '../../lib/errors.js';
import type { CareersApplications } from './apply.js';
import type { ApplicationRequest } from './request-body.js';
import type { CareersStore, CompanyRow, OfferView } from './store.js';

/** What the careers API and the careers pages share. */
export interface CareersContext {
  store: CareersStore;
  applications: CareersApplications;
  readBody(req: Request, res: Response): Promise<ApplicationRequest>;
  publicUrl: string;
}

/** The company of the `:subdomain` the router is mounted under; 404 when there is none. */
export function companyOf(ctx: CareersContext, req: Request): CompanyRow {
  const company = ctx.store.company(param(req, 'subdomain'));
  if (!company) throw notFound();
  return company;
}

/** The published offer of `:slug`; drafts and archived offers are 404 like unknown ones. */
export function publishedOfferOf(ctx: CareersContext, req: Request): OfferView {
  const view = ctx.store.publishedOffer(companyOf(ctx, req), param(req, 'slug'));
  if (!view) throw notFound();
  return view;
}

function param(req: Request, name: string): string {
  const value: unknown = req.params[name];
  return typeof value === 'string' ? value : '';
}
