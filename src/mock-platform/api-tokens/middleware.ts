import type { RequestHandler, Response } from 'express';
import { unauthorized } from '../../lib/errors.js';
import { bearerToken } from '../../lib/http/authorization.js';
import type { ApiToken, ApiTokenStore } from './store.js';
import { param } from '../path-params.js';

/**
 * The partners API's authentication (§3.1): `Authorization: Bearer <API_TOKEN>`, where the token
 * is a personal API token of a member of the company named in the path [kit decision].
 */
export function requireCompanyToken(tokens: ApiTokenStore): RequestHandler {
  return (req, res, next) => {
    const presented = bearerToken(req.headers.authorization);
    if (presented === undefined) return next(unauthorized('Missing API token: send Authorization: Bearer <API_TOKEN>'));
    const token = tokens.authenticate(presented);
    if (!token) return next(unauthorized('Invalid API token'));
    const companyId = param(req, 'companyId');
    if (String(token.companyId) !== companyId) {
      return next(unauthorized('This API token does not belong to the company in the path'));
    }
    res.locals.apiToken = token;
    next();
  };
}

export const apiTokenOf = (res: Response): ApiToken => res.locals.apiToken as ApiToken;
