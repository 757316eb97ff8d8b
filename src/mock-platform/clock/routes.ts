import { Router, type RequestHandler } from 'express';
import { isIP } from 'node:net';
import { z } from 'zod';
import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import { conflict, forbidden } from '../../lib/errors.js';
import { jsonBody } from '../body-readers.js';
import { parseOr422 } from '../../lib/http/validate.js';
import { isAdjustable } from './adjustable.js';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** [kit decision] The longest single move: a year covers every schedule and the 30-day log. */
export const MAX_ADVANCE_MS = 366 * UNIT_MS.d;
const FORMAT = 'must be a duration like "30s", "45m", "2h" or "1d", or a whole number of milliseconds';

/** `"45m"` → 2 700 000; a number is milliseconds. A message instead when it is not a duration. */
export function durationMs(value: unknown): number | string {
  let ms: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || !Number.isInteger(value)) return FORMAT;
    ms = value;
  } else if (typeof value === 'string') {
    const match = /^\s*(-?)(\d{1,9})\s*([smhd])\s*$/.exec(value);
    if (!match) return FORMAT;
    ms = (match[1] ? -1 : 1) * Number(match[2]) * UNIT_MS[match[3] as keyof typeof UNIT_MS];
  } else if (value === undefined) {
    return 'is required';
  } else {
    return FORMAT;
  }
  if (ms < 0) return 'must not be negative: the clock only moves forward';
  if (ms > MAX_ADVANCE_MS) return 'must be at most 366 days';
  return ms;
}

const AdvanceBody = z.object({
  advance: z.unknown().transform((value, ctx) => {
    const ms = durationMs(value);
    if (typeof ms === 'string') {
      ctx.addIssue({ code: 'custom', message: ms });
      return z.NEVER;
    }
    return ms;
  }),
});

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 addresses. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return address === '::1';
}

/**
 * Refuses callers that are not on this machine (403), whatever address the mock listens on: moving
 * the clock changes what every company's schedules do.
 */
export const loopbackOnly: RequestHandler = (req, _res, next) => {
  if (isLoopback(req.socket.remoteAddress)) return next();
  next(forbidden('The mock’s clock can be moved from this machine only'));
};

/**
 * `/_mock/clock`: `GET` → `{"now": ISO}`; `POST {"advance": "45m"}` (or "30s", "2h", "1d", or
 * milliseconds) moves the clock forward and answers the new time, then wakes the webhook worker so
 * retries that fell due go out at once. 422 `{error, errors: {advance}}` for anything else.
 */
export function clockRouter(deps: { clock: Clock; wake: () => void }): Router {
  const { clock } = deps;
  const router = Router();
  router.use(loopbackOnly);

  router.get('/', (_req, res) => {
    res.json({ now: isoAt(clock.now()) });
  });

  router.post('/', jsonBody(4 * 1024), (req, res) => {
    const { advance } = parseOr422(AdvanceBody, req.body ?? {});
    if (!isAdjustable(clock)) throw conflict('This platform runs on a clock that cannot be moved');
    clock.advance(advance);
    deps.wake();
    res.json({ now: isoAt(clock.now()) });
  });

  return router;
}
