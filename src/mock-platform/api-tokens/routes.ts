import { Router } from 'express';
import { z } from 'zod';
import { notFound, unprocessable } from '../../lib/errors.js';
import { jsonBody } from '../body-readers.js';
import { parseOr422 } from '../../lib/http/validate.js';
import type { CompanyStore } from '../companies/store.js';
import type { ApiToken, ApiTokenStore } from './store.js';

export const NewApiToken = z.object({
  company_id: z.number().int().positive(),
  /** The member the token is issued to; defaults to the company's first member. */
  user_id: z.number().int().positive().optional(),
  label: z.string().trim().min(1).max(100).optional(),
});

/**
 * `/_mock/api-tokens`: what the platform's "Settings → API tokens" page does. A new token is
 * shown once, in the 201 answer; only its digest is kept.
 */
export function apiTokensRouter(deps: { tokens: ApiTokenStore; companies: CompanyStore }): Router {
  const { tokens } = deps;
  const router = Router();

  router.get('/', (_req, res) => {
    res.json({ api_tokens: tokens.list().map(toJson) });
  });

  router.post('/', jsonBody(16 * 1024), (req, res) => {
    const input = parseOr422(NewApiToken, req.body ?? {});
    const { token, record } = issueApiToken(deps, input.company_id, input.user_id, input.label);
    res.status(201).json({ token, api_token: toJson(record) });
  });

  router.delete('/:id', (req, res) => {
    const revoked = /^\d{1,15}$/.test(req.params.id) ? tokens.revoke(Number(req.params.id)) : undefined;
    if (!revoked) throw notFound('Unknown API token');
    res.status(204).end();
  });

  return router;
}

/** Shared by the JSON endpoint and the sandbox's Admin page. */
export function issueApiToken(
  deps: { tokens: ApiTokenStore; companies: CompanyStore },
  companyId: number,
  userId: number | undefined,
  label: string | undefined,
) {
  const company = deps.companies.find(companyId);
  if (!company) throw unprocessable('company_id is not a company of this platform', { company_id: ['is unknown'] });
  const members = deps.companies.users(companyId);
  const user = userId === undefined ? members[0] : members.find((u) => u.id === userId);
  if (userId !== undefined && !user) {
    throw unprocessable('user_id is not a member of this company', { user_id: ['is not a member of this company'] });
  }
  return deps.tokens.issue({
    companyId,
    userId: user?.id ?? null,
    label: label ?? `API token of ${user?.name ?? company.name}`,
  });
}

export function toJson(t: ApiToken) {
  return {
    id: t.id,
    company_id: t.companyId,
    user_id: t.userId,
    label: t.label,
    hint: `…${t.hint}`,
    created_at: t.createdAt,
    revoked_at: t.revokedAt,
  };
}
