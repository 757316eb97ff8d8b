import { Agent } from 'undici';
import { CALLBACK_TIMEOUT_MS } from '../contract/decisions.js';
import { ANSWER_CHECKS, CALLBACK_CHECKS, type CallbackContext } from './callback-checks.js';
import { PLATFORM_CHECKS, platformExchanges, startPlatform, type PlatformContext, type RunningPlatform } from './platform.js';
import { probe } from './probe.js';
import { RESULTS_CHECKS, resultsUrlFromCallbacks, type ResultsContext } from './results-checks.js';
import type { Check, CheckResult, ConformanceOptions, NotRun, Verdict } from './types.js';

export interface ConformanceRun {
  results: CheckResult[];
  /** Checks that could not run with the options given, and why. */
  notRun: { id: string; why: string }[];
}

/** Raised when the run cannot start (no targets or tokens, the mock platform refused the record). */
export class ConformanceSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConformanceSetupError';
  }
}

/**
 * Drives a partner server over HTTP as the platform does and returns one result per check, in
 * order: the callbacks (§4), then with `mock` the bundled mock platform's own flow and the report
 * updates the partner sends back (§3.2), then the checks over every answer (error bodies, timing).
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceRun> {
  const timeoutMs = options.timeoutMs ?? CALLBACK_TIMEOUT_MS;
  const kind = options.kind ?? 'assessment';
  let { targets, tokens } = options;
  let platform: RunningPlatform | undefined;
  if (options.mock) {
    platform = await startPlatform(options.mock, kind, targets);
    try {
      const given = await options.mock.ready?.(platform.settings);
      if (given?.targets) {
        targets = given.targets;
        await platform.register(targets);
      }
      if (given?.tokens) tokens = given.tokens;
    } catch (err) {
      await platform.close();
      throw err;
    }
  }

  // One connection pool for the run, closed at the end so nothing keeps the process alive.
  const dispatcher = new Agent({ keepAliveTimeout: 1_000 });
  const { results, notRun, record, runAll } = recorder(options.onResult);

  try {
    if (!targets || !tokens) throw new ConformanceSetupError('the callback URLs and two customer tokens are needed');
    const http = probe({ timeoutMs, dispatcher });
    const ctx: CallbackContext = { probe: http, targets, tokens, ...(platform && { platform }), state: { tests: {} } };
    await runAll(CALLBACK_CHECKS, ctx);

    if (options.results) {
      const { secret, url } = options.results;
      const rctx: ResultsContext = { probe: http, secret, urlTemplate: url ?? resultsUrlFromCallbacks(targets.sendCandidate), reports: ctx.state.created ?? [], state: {} };
      await runAll(RESULTS_CHECKS, rctx);
    } else {
      notRun.push(...RESULTS_CHECKS.map((c) => ({ id: c.id, why: 'give --results-secret' })));
    }

    const exchanges = [...http.exchanges];
    if (platform) {
      const pctx: PlatformContext = {
        url: platform.url,
        codename: options.mock!.codename,
        kind,
        tokens,
        updateTimeoutMs: options.mock!.updateTimeoutMs ?? 10_000,
        dispatcher,
        state: {},
      };
      await runAll(PLATFORM_CHECKS, pctx);
      exchanges.push(...(await platformExchanges(pctx)));
    } else {
      notRun.push(...PLATFORM_CHECKS.map((c) => ({ id: c.id, why: 'give --mock' })));
    }

    for (const check of ANSWER_CHECKS) {
      await record({ ...check, run: async () => check.run(exchanges, timeoutMs) }, undefined);
    }
  } finally {
    await dispatcher.close();
    await platform?.close();
  }
  return { results, notRun };
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
