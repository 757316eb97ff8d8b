import type { ErrorRequestHandler, Request, Response } from 'express';
import { AppError } from '../../lib/errors.js';
import { shownPath } from '../../lib/http/error-handler.js';
import type { Logger } from '../../lib/http/logger.js';
import { timeHtml } from '../../lib/time.js';
import { inlineCode } from './present.js';
import { views } from './views.js';

/**
 * What every page's template can call: `it.time(iso)` shows a moment readably (the ISO value in its
 * tooltip), `it.code(text)` shows a text's `backticked` parts as code. Both escape; output them raw.
 */
const HELPERS = { time: timeHtml, code: inlineCode };

/** Renders a page. Pages are personal (a candidate's test, a report's results): never cached. */
export function renderPage(res: Response, template: string, data: Record<string, unknown>, status = 200): void {
  res.status(status).set('Cache-Control', 'no-store').type('html').send(views.render(template, { ...HELPERS, ...data }));
}

/** Which header a page has: the dashboard's, or the public pages' with the vendor's name. */
export interface PageLayout {
  admin?: boolean;
  vendor?: string;
}

/** A page with a heading and a sentence: errors, "already done", "canceled". */
export function renderMessage(
  res: Response,
  status: number,
  message: { title: string; text: string; hint?: string; link?: { href: string; text: string } },
  layout: PageLayout = {},
): void {
  renderPage(res, './message', { ...message, ...layout, pageTitle: message.title }, status);
}

/**
 * The page a browser gets for an address this server does not serve (the app's last route, for a
 * request that asks for HTML; API clients keep the JSON 404): in the public pages' layout, with the
 * vendor's name, saying which address and where to go instead.
 */
export function notFoundMessage(vendor?: string): (req: Request, res: Response) => void {
  return (req, res) =>
    renderMessage(
      res,
      404,
      {
        title: 'Not found',
        text: `There is no page at ${shownPath(req)}.`,
        hint: 'A candidate opens their test from the link in their invitation e-mail; a recruiter, the results from the platform.',
        link: { href: '/', text: 'What this server is' },
      },
      { vendor },
    );
}

/**
 * Errors on browser routes become a friendly HTML page — never a stack trace, never JSON. An
 * `AppError` shows its message; anything else is a bug: logged, and answered with a generic page.
 */
export function pageErrors(logger: Logger, layout: PageLayout = {}): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    if (err instanceof AppError) {
      return renderMessage(res, err.status, { title: titleFor(err.status), text: err.message }, layout);
    }
    const status = (err as { status?: unknown } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return renderMessage(res, status, { title: titleFor(status), text: 'The request could not be read.' }, layout);
    }
    logger.error({ err, method: req.method, path: req.path }, 'unhandled error on a page');
    renderMessage(res, 500, { title: 'Something went wrong', text: 'Please try again in a few minutes.' }, layout);
  };
}

function titleFor(status: number): string {
  if (status === 404) return 'Not found';
  if (status === 403) return 'Not allowed';
  if (status === 401) return 'Sign-in required';
  if (status === 410) return 'No longer available';
  if (status === 413) return 'Too much data';
  return status >= 500 ? 'Something went wrong' : 'That did not work';
}
