import type { Check, CheckResult, NotRun, Verdict } from './types.js';

/**
 * What every platform's run shares: its answer (one result per check, and the checks not run),
 * the error that stops a run before it sends anything, and the recorder that keeps the results.
 */

export interface ConformanceRun {
  results: CheckResult[];
  /** Checks that could not run with the options given, and why. */
  notRun: { id: string; why: string }[];
}

/**
 * Raised when a run cannot start (what it needs is missing, the platform's side it plays cannot
 * start or listen): the command prints the message alone and exits 1.
 */
export class ConformanceSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConformanceSetupError';
  }
}

/**
 * Where a run's results are kept: `record` runs one check and keeps its result (a check that
 * throws is a failed check; one whose run finds it cannot say anything is not run), `runAll` runs
 * a list in order, each when its `applies` says it can.
 */
export function recorder(onResult?: (result: CheckResult) => void) {
  const results: CheckResult[] = [];
  const notRun: ConformanceRun['notRun'] = [];
  const record = async <C>(check: Check<C>, ctx: C) => {
    const started = performance.now();
    let verdict: Verdict | NotRun;
    try {
      verdict = await check.run(ctx);
    } catch (err) {
      // A check that throws is a failed check (a network error the probe did not catch, a bug):
      // the run goes on and says what happened.
      verdict = { ok: false, detail: `the check could not run: ${(err as Error).message}` };
    }
    if ('notRun' in verdict) {
      notRun.push({ id: check.id, why: verdict.notRun });
      return;
    }
    const result = { id: check.id, section: check.section, name: check.name, ok: verdict.ok, detail: verdict.detail, ms: Math.round(performance.now() - started) };
    results.push(result);
    onResult?.(result);
  };
  const runAll = async <C>(checks: readonly Check<C>[], ctx: C) => {
    for (const check of checks) {
      const applies = check.applies?.(ctx) ?? true;
      if (applies === true) await record(check, ctx);
      else notRun.push({ id: check.id, why: applies });
    }
  };
  return { results, notRun, record, runAll };
}
