/** Time as the app sees it. Tests pass a fake one to run retry schedules without waiting. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const isoAt = (ms: number): string => new Date(ms).toISOString();
