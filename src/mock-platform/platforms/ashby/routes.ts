import { setTimeout as sleep } from 'node:timers/promises';
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import { AppError } from '../../../lib/errors.js';
import { basicKey } from '../../../lib/http/basic-key.js';
import { jsonBody } from '../../body-readers.js';
import { describeFault, type FaultStore } from '../../faults/store.js';
import { ASHBY_API_PATH, type Ashby } from './service.js';
import type { AshbyCompany } from './store.js';
import { ashbyError } from './wire.js';

/** The partner's `assessment.update` in the call log and the faults (a fault there is a plain HTTP answer: a 5xx, a delay, a drop). */
export const UPDATE_ENDPOINT = 'ashby.assessment.update';

/**
 * A fault Ashby plays in its own words: the next `assessment.update` is answered 200 with
 * `success: false`, as Ashby answers "what would be 4XX errors". The fault's status picks the
 * `errorInfo.code` (`SUCCESS_FALSE_CODES`); a delay or a drop is played as on the endpoint.
 */
export const SUCCESS_FALSE_ENDPOINT = 'ashby.assessment.update.success_false';

/**
 * The `errorInfo.code` of a `success: false` fault, by the fault's status: what the request
 * would have been refused for. Any other status: `injected_fault`, a code the partner cannot place.
 */
export const SUCCESS_FALSE_CODES: Readonly<Record<number, { code: string; message: string }>> = {
  400: { code: 'invalid_input', message: 'Request payload is malformed' },
  403: { code: 'missing_endpoint_permission', message: 'The API key lacks the candidatesWrite permission' },
  404: { code: 'assessment_not_found', message: 'Assessment not found' },
  422: { code: 'invalid_input', message: 'Request payload is malformed' },
};

/**
 * Ashby's API as the partner calls it, on the mock (the partner's ASHBY_API_URL is
 * `{mock}/ashby/api`):
 *
 *   POST /ashby/api/assessment.update   Basic with the company's Ashby API key, an empty password
 *
 * A missing or malformed credential is a 401, a key no company has (or one replaced since) a 403,
 * as Ashby documents; both in Ashby's error envelope. A body that is not JSON, or breaks the rules,
 * or names no assessment of the company, is 200 with `success: false` (`service.receiveUpdate`).
 * Logged and faulted as `ashby.assessment.update`; `ashby.assessment.update.success_false` is a
 * fault the plugin plays itself, with Ashby's `success: false`.
 */
export function ashbyRouter(deps: { ashby: Ashby; faults: FaultStore; endpoint: (name: string) => RequestHandler[]; bodyLimitBytes: number }): Router {
  const { ashby } = deps;
  const router = Router();
  deps.faults.register(SUCCESS_FALSE_ENDPOINT);

  const successFalse: RequestHandler = async (req, res, next) => {
    const fault = deps.faults.take(SUCCESS_FALSE_ENDPOINT);
    if (!fault) return next();
    res.locals.fault = `${describeFault(fault)} (as success: false)`;
    if (fault.delayMs > 0) await sleep(fault.delayMs);
    if (fault.drop) return void req.socket.destroy();
    if (fault.status === null) return next();
    const { code, message } = SUCCESS_FALSE_CODES[fault.status] ?? { code: 'injected_fault', message: `An error Ashby does not name (fault status ${fault.status})` };
    res.status(200).json(ashbyError(code, `Injected fault: ${message}`));
  };

  const authenticate: RequestHandler = (req, res, next) => {
    const key = basicKey(req.headers.authorization);
    if (key === undefined) {
      res.setHeader('WWW-Authenticate', 'Basic realm="Ashby"');
      return void res.status(401).json(ashbyError('unauthorized', 'Missing API key: send the Ashby API key as the Basic user name, with an empty password'));
    }
    const company = ashby.companyOf(key);
    if (!company) return void res.status(403).json(ashbyError('forbidden', 'Invalid API key: it is no company\'s Ashby API key, or it was replaced by a new one'));
    res.locals.company = company;
    next();
  };

  router.post(`${ASHBY_API_PATH}/assessment.update`, ...deps.endpoint(UPDATE_ENDPOINT), successFalse, authenticate, jsonBody(deps.bodyLimitBytes), (req, res) => {
    const answer = ashby.receiveUpdate(res.locals.company as AshbyCompany, req.body);
    res.locals.call = { reportId: answer.assessmentId };
    res.status(answer.status).json(answer.body);
  });

  // After the route: a body it could not read is answered as Ashby answers what would be a 4xx.
  router.use(ASHBY_API_PATH, bodyErrors);
  return router;
}

const bodyErrors: ErrorRequestHandler = (err, _req, res, next) => {
  if (!(err instanceof AppError) || res.headersSent) return next(err);
  // A body refused unread may still be arriving: close the connection after answering.
  if (err.status === 413) res.set('Connection', 'close');
  res.status(200).json(ashbyError('invalid_input', `Request payload is malformed: ${err.message}`));
};
