import { Router, type RequestHandler, type Response } from 'express';
import { formBody, jsonBody } from '../../body-readers.js';
import { param } from '../../path-params.js';
import type { BobOAuth } from './oauth.js';
import { BOB_API_PATH, BOB_TOKEN_PATH, type ApiAnswer, type Bob } from './service.js';
import { maskedOAuth } from './wire.js';

/** Bob's endpoints the partner calls, by their names in the call log and the faults. */
export const BOB_ENDPOINTS = {
  token: 'hibob.oauth.token',
  register: 'hibob.assessments.packages',
  delete: 'hibob.assessments.packages.delete',
  details: 'hibob.assessments.get',
  update: 'hibob.assessments.update',
} as const;

/**
 * Bob as the partner calls it, on the mock (the partner's HIBOB_TOKEN_URL is `{mock}/hibob/oauth2/v1/apps/token`,
 * its HIBOB_API_URL `{mock}/hibob/api/v1`):
 *
 *   POST  /hibob/oauth2/v1/apps/token                                   RFC 6749 grants (oauth.ts)
 *   POST  /hibob/api/v1/hiring/assessments/packages                     the company's catalog replaced: 201
 *   POST  /hibob/api/v1/hiring/assessments/packages/delete              packages deleted: 204
 *   GET   /hibob/api/v1/hiring/assessments/{assessmentRequestId}        the order's details
 *   PATCH /hibob/api/v1/hiring/assessments/{assessmentRequestId}        status, score, result link: 204
 *
 * The API takes the company's access token (`Authorization: Bearer`): none, one Bob did not issue,
 * or one that expired is a 401 with RFC 6750's `WWW-Authenticate`; an order of another company's
 * is a 404. Each endpoint is logged and takes faults under its name (BOB_ENDPOINTS), before it
 * authenticates; the token URL's codes, secrets and tokens are masked in the call log.
 */
export function bobRouter(deps: { bob: Bob; oauth: BobOAuth; endpoint: (name: string) => RequestHandler[]; bodyLimitBytes: number }): Router {
  const { bob, oauth } = deps;
  const router = Router();
  const json = jsonBody(deps.bodyLimitBytes);

  /**
   * Mounted before the call log's handlers: what the handler sends with `res.locals.wire` set goes
   * out as that text, while the log records what the handler passed (the answer, tokens masked).
   */
  const logMasked: RequestHandler = (_req, res, next) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => send(typeof res.locals.wire === 'string' ? res.locals.wire : body);
    next();
  };

  router.post(BOB_TOKEN_PATH, logMasked, ...deps.endpoint(BOB_ENDPOINTS.token), formBody({ extended: false, limit: deps.bodyLimitBytes }), (req, res) => {
    const read = formOf(req.body);
    // The log shows the request without its code, secret or refresh token.
    if (read !== undefined) req.body = maskedOAuth(req.body as Record<string, unknown>);
    const result = oauth.token(read === 'repeated' ? undefined : read, req.headers.authorization);
    res.set({ 'cache-control': 'no-store', pragma: 'no-cache' });
    if (result.status === 200) {
      res.locals.wire = JSON.stringify(result.body);
      return void res.status(200).json(maskedOAuth(result.body));
    }
    if (read === 'repeated') result.body.error_description = 'A parameter is given more than once (RFC 6749 §3.2)';
    if (result.basic) res.set('www-authenticate', 'Basic realm="Bob"');
    res.status(result.status).json(result.body);
  });

  const authenticate: RequestHandler = (req, res, next) => {
    const who = oauth.bearer(req.headers.authorization);
    if (!who.ok) {
      res.set(
        'www-authenticate',
        who.error === 'invalid_request' ? 'Bearer realm="Bob"' : `Bearer realm="Bob", error="invalid_token", error_description="${who.description}"`,
      );
      return void res.status(401).json({ error: who.description });
    }
    res.locals.companyId = who.companyId;
    next();
  };
  const answer = (res: Response, a: ApiAnswer) => (a.body === undefined ? res.status(a.status).end() : res.status(a.status).json(a.body));
  const companyOf = (res: Response) => res.locals.companyId as string;
  const assessment = `${BOB_API_PATH}/hiring/assessments/:assessmentRequestId`;
  /** Before the call log's handlers: a call about an order is logged with it, a faulted one too. */
  const scope: RequestHandler = (req, res, next) => {
    res.locals.call = { reportId: param(req, 'assessmentRequestId').slice(0, 100) };
    next();
  };

  router.post(`${BOB_API_PATH}/hiring/assessments/packages`, ...deps.endpoint(BOB_ENDPOINTS.register), authenticate, json, (req, res) => {
    answer(res, bob.registerCatalog(companyOf(res), req.body));
  });
  router.post(`${BOB_API_PATH}/hiring/assessments/packages/delete`, ...deps.endpoint(BOB_ENDPOINTS.delete), authenticate, json, (req, res) => {
    answer(res, bob.deletePackages(companyOf(res), req.body));
  });
  router.get(assessment, scope, ...deps.endpoint(BOB_ENDPOINTS.details), authenticate, (req, res) => {
    answer(res, bob.details(companyOf(res), param(req, 'assessmentRequestId')));
  });
  router.patch(assessment, scope, ...deps.endpoint(BOB_ENDPOINTS.update), authenticate, json, (req, res) => {
    answer(res, bob.update(companyOf(res), param(req, 'assessmentRequestId'), req.body));
  });
  return router;
}

/** The form's fields as text, 'repeated' when one is given more than once; undefined when the body was not a form. */
function formOf(body: unknown): Record<string, string> | 'repeated' | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const entries = Object.entries(body as Record<string, unknown>);
  if (entries.some(([, v]) => typeof v !== 'string')) return 'repeated';
  return Object.fromEntries(entries) as Record<string, string>;
}
