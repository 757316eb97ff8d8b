import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError, notFound } from '../errors.js';

/** Unknown routes answer 404 in the contract's JSON shape. */
export const notFoundHandler: RequestHandler = (_req, _res, next) => next(notFound());

/**
 * The one place errors become responses. `AppError`s carry their status; body-parser style errors
 * (from any `express.json()` a fork adds) are mapped by their `status`; anything else is a bug:
 * logged with its stack, answered 500 with a generic message.
 */
export function errorHandler(logger: Logger, securityHeaders: readonly string[]): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    let status: number;
    let body: { error: string; errors?: Record<string, string[]> };
    if (err instanceof AppError) {
      status = err.status;
      body = err.fields ? { error: err.message, errors: err.fields } : { error: err.message };
    } else if (isClientHttpError(err)) {
      status = err.status;
      body = { error: err.expose && err.message ? err.message : 'Bad Request' };
    } else {
      status = 500;
      body = { error: 'Internal Server Error' };
      logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    }
    // Errors can come from routes that skipped the helmet middleware (the callbacks).
    for (let i = 0; i < securityHeaders.length; i += 2) res.setHeader(securityHeaders[i]!, securityHeaders[i + 1]!);
    // A body we refused to read may still be arriving: close the connection after answering.
    if (status === 413) res.set('Connection', 'close');
    res.status(status).json(body);
  };
}

function isClientHttpError(err: unknown): err is { status: number; message: string; expose?: boolean } {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}
