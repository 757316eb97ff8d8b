import type { RequestHandler } from 'express';
import { symbols, type DestinationStream } from 'pino';
import { createAccessLogger, type Logger } from './logger.js';
import { readByAPerson } from './pretty-log.js';

/**
 * One log line per request, written when the response has been sent: method, path (never the
 * query string, which may carry ids), status and duration. Headers are not logged at all, so
 * credentials cannot leak through them — which is why the lines go through an access logger at
 * `logger`'s level that skips the redaction pass (it would cost more than the line itself). It
 * writes where `logger` writes, or to `destination` when given (`logDestination()` in the server).
 *
 * A 5xx is an `error`, anything else `info` — except where a person reads the lines at a terminal
 * (LOG_FORMAT=pretty, `npm run dev`'s default): there a request that went well (below 400) is
 * `debug`, so a few clicks in the sandbox do not scroll the banner and the failures away;
 * `LOG_LEVEL=debug` shows them.
 */
export function requestLog(logger: Logger, destination?: DestinationStream): RequestHandler {
  // Same fields as the logger's own (the server's name): the lines sit side by side in one output.
  const where = destination ?? (logger as unknown as Record<symbol, DestinationStream>)[symbols.streamSym];
  const access = createAccessLogger(logger.level, where, logger.bindings());
  const wentWell = readByAPerson(where) ? 'debug' : 'info';
  return (req, res, next) => {
    if (!access.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : wentWell;
      access[level]({ method: req.method, path: req.originalUrl.split('?', 1)[0], status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}
