import { Router } from 'express';
import { z } from 'zod';
import { notFound } from '../../lib/errors.js';
import { parseOr422 } from '../../lib/http/validate.js';
import type { CallLog } from './store.js';

const int = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a non-negative integer')
  .transform(Number);

/** Query of `GET /_mock/calls`; every filter is optional and they combine with AND. */
export const CallQuery = z.object({
  direction: z.enum(['inbound', 'outbound']).optional(),
  endpoint: z.string().max(100).optional(),
  codename: z.string().max(64).optional(),
  company_id: int.optional(),
  report_id: z.string().max(64).transform((s) => s.toLowerCase()).optional(),
  status: int.optional(),
  after_id: int.optional(),
  limit: int.pipe(z.number().min(1).max(1000)).optional(),
  order: z.enum(['asc', 'desc']).optional(),
});
/** The call log's filter from the query of `/_mock/calls` or the sandbox's calls page. */
export function callFilter(q: z.output<typeof CallQuery>) {
  return {
    direction: q.direction,
    endpoint: q.endpoint,
    codename: q.codename,
    companyId: q.company_id,
    reportId: q.report_id,
    status: q.status,
    afterId: q.after_id,
    limit: q.limit,
    order: q.order,
  };
}


/** `/_mock/calls`: the call history, for tests and the sandbox. Credentials are already redacted. */
export function callsRouter(calls: CallLog): Router {
  const router = Router();

  router.get('/', (req, res) => {
    const q = parseOr422(CallQuery, req.query);
    res.json({
      calls: calls.list(callFilter(q)),
    });
  });

  router.get('/:id', (req, res) => {
    const call = /^\d{1,15}$/.test(req.params.id) ? calls.find(Number(req.params.id)) : undefined;
    if (!call) throw notFound('Unknown call');
    res.json({ call });
  });

  router.delete('/', (_req, res) => {
    calls.clear();
    res.status(204).end();
  });

  return router;
}
