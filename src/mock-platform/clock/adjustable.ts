import { systemClock, type Clock } from '../../lib/clock.js';

/** A clock that can be moved forward: the mock's time is the base clock's plus an offset. */
export interface AdjustableClock extends Clock {
  /** Moves the clock `ms` forward (never back: the schedules assume time does not reverse). */
  advance(ms: number): void;
}

/**
 * The clock a running mock uses (`startMockPlatform`): the system clock (or the given one) plus an
 * offset that `POST /_mock/clock` grows, so retries, rate limits and the 30-day log can be driven
 * from outside without waiting.
 */
export function adjustableClock(base: Clock = systemClock): AdjustableClock {
  let offset = 0;
  return {
    now: () => base.now() + offset,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`a clock only moves forward (got ${ms} ms)`);
      offset += ms;
    },
  };
}

/** Whether `clock` can be moved (test clocks with `advance` can too). */
export function isAdjustable(clock: Clock): clock is AdjustableClock {
  return typeof (clock as Partial<AdjustableClock>).advance === 'function';
}
