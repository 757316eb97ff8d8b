import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { AppError, badRequest, notFound } from '../errors.js';

/** Unknown routes answer 404 in the contract's JSON shape. */
export const notFoundHandler: RequestHandler = (_req, _res, next) => next(notFound());

/** Whether the client would rather read a page than JSON: a browser's navigation (`Accept: text/html,…`), not a bare wildcard nor an API client. */
export const prefersHtml = (req: Request): boolean => req.accepts(['json', 'html']) === 'html';

/** The address a request asked for, as a person reads it: decoded (`wellFormedPath` let only what decodes through), cut at 120 characters. */
export function shownPath(req: Request): string {
  let path = req.path;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Left as sent.
  }
  return path.length > 120 ? `${path.slice(0, 120)}…` : path;
}

/**
 * Unknown routes on a server that has pages: a browser that asks for an address nobody serves gets
 * `page` (a 404 in the server's own layout, with a way back), an API client the contract's JSON, as
 * from `notFoundHandler`. Which one is read from `Accept` alone, so a script, `curl` and `fetch`
 * (a bare wildcard) keep the JSON they parse.
 */
export function notFoundPage(page: (req: Request, res: Response) => void): RequestHandler {
  return (req, res, next) => {
    if (!prefersHtml(req)) return next(notFound());
    res.status(404).set('Cache-Control', 'no-store');
    page(req, res);
  };
}

/**
 * A path whose percent-encoding does not decode (`/%c0`, `/assets/%c0%ae`, `/%zz`) is the client's
 * mistake: 400 in the contract's shape, before any route, page or static folder reads it. Left to
 * them, it is a 400 where a route's parameter is decoded, a 404 where a static folder gives up on
 * it, and a 500 where a page's error handler takes the router's `URIError` for a bug. Mount it
 * first, after the access log.
 */
export const wellFormedPath: RequestHandler = (req, _res, next) => {
  if (!req.path.includes('%')) return next();
  try {
    decodeURIComponent(req.path);
  } catch {
    return next(badRequest('Malformed percent-encoding in the URL path'));
  }
  next();
};

/** How the body parsers' (`express.json`, `express.raw`) errors read in the contract's shape. */
const BODY_ERRORS: Record<string, string> = {
  'entity.parse.failed': 'Malformed JSON body',
  'entity.too.large': 'Request body too large',
  'charset.unsupported': 'Content-Type must be application/json; charset=utf-8',
  'encoding.unsupported': 'Content-Encoding is not supported: send the body uncompressed',
  'request.aborted': 'The request body was not received in full',
};

/**
 * The one place errors become responses. `AppError`s carry their status (a 5xx one, such as the
 * database being unavailable, is logged as a warning with what caused it, without a stack); the
 * body parsers' errors are mapped by their `status` and `type`; anything else is a bug: logged
 * with its stack, answered 500 with a generic message.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    let status: number;
    let body: { error: string; errors?: Record<string, string[]> };
    if (err instanceof AppError) {
      status = err.status;
      body = err.fields ? { error: err.message, errors: err.fields } : { error: err.message };
      if (status >= 500) logger.warn({ cause: causeOf(err), method: req.method, path: req.path }, err.message);
    } else if (isClientHttpError(err)) {
      status = err.status;
      body = { error: BODY_ERRORS[err.type ?? ''] ?? (err.expose && err.message ? err.message : 'Bad Request') };
    } else {
      status = 500;
      body = { error: 'Internal Server Error' };
      logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    }
    // A body we refused to read may still be arriving: close the connection after answering.
    if (status === 413) res.set('Connection', 'close');
    res.status(status).json(body);
  };
}

function isClientHttpError(err: unknown): err is { status: number; message: string; expose?: boolean; type?: string } {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** What an error's `cause` said, for the log: its message only. */
function causeOf(err: Error): string | undefined {
  const { cause } = err;
  return cause instanceof Error ? cause.message : cause === undefined ? undefined : String(cause);
}
