import type { RequestHandler } from 'express';
import type { Logger } from '../../lib/http/logger.js';
import { redactBody, redactHeaders } from './redact.js';
import type { CallLog } from './store.js';

/**
 * Records a call a partner makes to the platform (partners and reports APIs) once it is answered —
 * or once the connection closed without an answer (a dropped-connection fault). Mounted per route,
 * after the path parameters are known and before any fault or handler runs, so faulted and refused
 * calls are logged too.
 */
export function inboundLog(calls: CallLog, logger: Logger, endpoint: string): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const params = req.params as Record<string, string | undefined>;
    let responseBody: string | undefined;
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      // res.json() ends here with the serialised string.
      if (typeof body === 'string') responseBody = body;
      else if (Buffer.isBuffer(body)) responseBody = body.toString('utf8');
      return send(body);
    };

    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const answered = res.writableFinished;
      // What a handler learnt of the call that its path does not say (the Greenhouse PATCH's test).
      const context = (res.locals.call ?? {}) as { companyId?: number; reportId?: string };
      try {
        calls.record({
          direction: 'inbound',
          endpoint,
          method: req.method,
          url: req.originalUrl,
          codename: params.codename ?? null,
          companyId: context.companyId ?? toInt(params.companyId),
          reportId: context.reportId ?? params.reportId ?? null,
          requestHeaders: redactHeaders(req.headers),
          requestBody: req.body === undefined ? null : redactBody(JSON.stringify(req.body)),
          responseStatus: answered ? res.statusCode : null,
          responseBody: answered ? redactBody(responseBody) : null,
          error: answered ? null : 'connection closed without an answer',
          fault: (res.locals.fault as string | undefined) ?? null,
          durationMs: performance.now() - started,
        });
      } catch (err) {
        // Logging must never break the API it observes (e.g. a request finishing during shutdown).
        logger.warn({ err, endpoint }, 'could not record inbound call');
      }
    };
    res.once('finish', record);
    res.once('close', record);
    next();
  };
}

function toInt(value: string | undefined): number | null {
  return value !== undefined && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : null;
}
