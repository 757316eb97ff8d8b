import { Router } from 'express';
import { z } from 'zod';
import { notFound } from '../../lib/errors.js';
import { jsonBody } from '../body-readers.js';
import { parseOr422 } from '../../lib/http/validate.js';
import { FAULT_TARGETS, type Fault, type FaultStore } from './store.js';

/** Longest injectable delay: long enough to outlast any client timeout a test wants to hit. */
export const MAX_FAULT_DELAY_MS = 120_000;

export function faultSpecSchema(faults: FaultStore) {
  return z
    .object({
      target: z.enum(FAULT_TARGETS).default('platform'),
      endpoint: z.string(),
      status: z.number().int().min(400).max(599).optional(),
      delayMs: z.number().int().min(0).max(MAX_FAULT_DELAY_MS).optional(),
      drop: z.literal(true).optional(),
      times: z.number().int().min(1).max(1000).default(1),
    })
    .superRefine((f, ctx) => {
      const known: readonly string[] = f.target === 'callback' ? faults.callbacks() : faults.endpoints();
      if (!known.includes(f.endpoint)) ctx.addIssue({ code: 'custom', path: ['endpoint'], message: `must be one of: ${known.join(', ')}` });
    })
    .refine((f) => f.status !== undefined || f.delayMs !== undefined || f.drop, {
      message: 'give status, delayMs or drop',
      path: ['status'],
    })
    .refine((f) => !(f.drop && f.status !== undefined), {
      message: 'a dropped connection has no status',
      path: ['drop'],
    });
}

/** `/_mock/faults`: arm, list and clear injected faults (see store.ts). */
export function faultsRouter(faults: FaultStore): Router {
  const router = Router();

  router.get('/', (_req, res) => {
    res.json({ faults: faults.list().map(toJson), endpoints: faults.endpoints(), callbacks: faults.callbacks() });
  });

  router.post('/', jsonBody(16 * 1024), (req, res) => {
    // Built per request: the endpoint list is complete only once every router is mounted.
    const spec = parseOr422(faultSpecSchema(faults), req.body ?? {});
    res.status(201).json({ fault: toJson(faults.add(spec)) });
  });

  router.delete('/', (_req, res) => {
    faults.clear();
    res.status(204).end();
  });

  router.delete('/:id', (req, res) => {
    if (!/^\d{1,9}$/.test(req.params.id) || !faults.remove(Number(req.params.id))) throw notFound('Unknown fault');
    res.status(204).end();
  });

  return router;
}

export function toJson(f: Fault) {
  return {
    id: f.id,
    target: f.target,
    endpoint: f.endpoint,
    status: f.status,
    delayMs: f.delayMs,
    drop: f.drop,
    remaining: f.remaining,
    createdAt: f.createdAt,
  };
}
