import type { RequestHandler } from 'express';
import type { Logger } from './logger.js';

/**
 * One log line per request, written when the response has been sent: method, path (never the
 * query string, which may carry ids), status and duration. Headers are not logged at all, so
 * credentials cannot leak through them.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (!logger.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : 'info';
      logger[level]({ method: req.method, path: req.originalUrl.split('?', 1)[0], status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}
