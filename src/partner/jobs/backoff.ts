/**
 * How long the n-th retry (1-based) of a background job waits: `baseMs`·2ⁿ⁻¹, capped at `maxMs`,
 * then jittered to 50–100 % of that ("equal jitter"), so that jobs that failed together do not all
 * come back together, and none comes back much sooner than its step. The one backoff of the kit:
 * invitation starts, e-mails, report deliveries and webhook handling each pass their own steps.
 */
export function backoffMs(attempt: number, steps: { baseMs: number; maxMs: number }, random: () => number = Math.random): number {
  const ceiling = Math.min(steps.maxMs, steps.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling * (0.5 + random() / 2));
}
