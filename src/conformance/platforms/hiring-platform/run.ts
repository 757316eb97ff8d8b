import { Agent } from 'undici';
import { CALLBACK_TIMEOUT_MS } from '../../../contract/decisions.js';
import { probe } from '../../probe.js';
import { RESULTS_CHECKS, type ResultsContext } from '../../results-checks.js';
import { ConformanceSetupError, recorder, type ConformanceRun } from '../../run.js';
import { ANSWER_CHECKS, CALLBACK_CHECKS, type CallbackContext } from './callback-checks.js';
import { PLATFORM_CHECKS, platformExchanges, startPlatform, type PlatformContext, type RunningPlatform } from './mock.js';
import type { ConformanceOptions } from './types.js';
import { callbackProbe, resultsUrlFromCallbacks } from './wire.js';

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
    const http = callbackProbe(probe({ timeoutMs, dispatcher }));
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

