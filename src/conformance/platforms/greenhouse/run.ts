import { Agent } from 'undici';
import { CALLBACK_TIMEOUT_MS } from '../../../contract/decisions.js';
import { probe } from '../../probe.js';
import { openReceiver, type ReceiverAddress } from '../../receiver.js';
import { recorder, type ConformanceRun } from '../../run.js';
import type { CheckResult } from '../../types.js';
import { GREENHOUSE_CHECKS, type GreenhouseContext } from './checks.js';
import { PATCH_RECEIVER, greenhouseTargets, resultsUrlFromGreenhouse } from './wire.js';

/** How long the checker waits for the PATCH by default (`--patch-timeout`). */
export const DEFAULT_PATCH_TIMEOUT_MS = 60_000;

export interface GreenhouseOptions {
  /** Where the four endpoints are: `<baseUrl>/list_tests` … (a kit partner's: `${PUBLIC_URL}/greenhouse`). */
  baseUrl: string;
  /** A customer's key, of an account with at least one test. */
  key: string;
  /** A second customer's key, for the tenant isolation checks. */
  otherKey?: string;
  /**
   * Post the interview's result through the partner's results endpoint, signed with its
   * VENDOR_RESULTS_SECRET; `url` has `{report_id}` where the interview id goes (default: the kit's
   * path beside the Greenhouse endpoints). Without it a person completes the test.
   */
  results?: { secret: string; url?: string };
  /** How long to wait for the PATCH (default 60 s). */
  patchTimeoutMs?: number;
  /**
   * Where the receiver of the PATCH listens, and so what the `url` of each send names: by default
   * 127.0.0.1 on a free port (`--receiver-host`, `--receiver-port`).
   */
  receiver?: ReceiverAddress;
  /** Each call's timeout (default 10 s, as the other platform's). */
  timeoutMs?: number;
  /** Told about each result as soon as it is known (the CLI prints it). */
  onResult?: (result: CheckResult) => void;
  /** Told what the person running the checker must do (complete the test by hand). */
  onNotice?: (text: string) => void;
}

/**
 * Drives a partner's Greenhouse endpoints over HTTP as Greenhouse does (docs/greenhouse.md) and
 * returns one result per check, in order. The `url` of its sends is on a receiver the checker runs
 * for the run (on 127.0.0.1 unless `receiver` says otherwise): the partner must run where it can
 * reach it. Throws a ConformanceSetupError when the receiver cannot listen there.
 */
export async function runGreenhouseConformance(options: GreenhouseOptions): Promise<ConformanceRun> {
  const receiver = await openReceiver(PATCH_RECEIVER, options.receiver);
  // One connection pool for the run, closed at the end so nothing keeps the process alive.
  const dispatcher = new Agent({ keepAliveTimeout: 1_000 });
  const { results, notRun, runAll } = recorder(options.onResult);
  try {
    const ctx: GreenhouseContext = {
      probe: probe({ timeoutMs: options.timeoutMs ?? CALLBACK_TIMEOUT_MS, dispatcher }),
      targets: greenhouseTargets(options.baseUrl),
      key: options.key,
      ...(options.otherKey !== undefined && { otherKey: options.otherKey }),
      receiver,
      ...(options.results && {
        results: { secret: options.results.secret, urlTemplate: options.results.url ?? resultsUrlFromGreenhouse(options.baseUrl) },
      }),
      patchTimeoutMs: options.patchTimeoutMs ?? DEFAULT_PATCH_TIMEOUT_MS,
      notice: options.onNotice ?? (() => {}),
      state: {},
    };
    await runAll(GREENHOUSE_CHECKS, ctx);
  } finally {
    await dispatcher.close();
    await receiver.close();
  }
  return { results, notRun };
}
