import { randomBytes } from 'node:crypto';
import { Agent } from 'undici';
import { CALLBACK_TIMEOUT_MS } from '../../../contract/decisions.js';
import { probe } from '../../probe.js';
import { openReceiver, type ReceiverAddress } from '../../receiver.js';
import { ConformanceSetupError, recorder, type ConformanceRun } from '../../run.js';
import type { CheckResult } from '../../types.js';
import { ASHBY_CHECKS, type AshbyContext } from './checks.js';
import { UPDATE_RECEIVER, ashbyApiAnswer, ashbyTargets, resultsUrlFromAshby } from './wire.js';

/** How long the checker waits for each assessment.update by default (`--update-timeout`). */
export const DEFAULT_UPDATE_TIMEOUT_MS = 60_000;

/** What the partner under test must be set up with for the run: where Ashby's API is, and each customer's Ashby API key. */
export interface AshbySetup {
  /** The partner's ASHBY_API_URL: the checker's receiver. */
  apiUrl: string;
  /** The Ashby API key the partner must post the first customer's updates with, and the other customer's. */
  apiKeys: { key: string; otherKey: string };
  /** Which of them the checker made up for this run (they must be set in the partner), rather than was given. */
  madeUp: { key: boolean; otherKey: boolean };
}

/** What `ready` may give once the partner is started with the setup: its endpoints and keys, when known only then. */
export interface AshbyPartnerGiven {
  baseUrl?: string;
  key?: string;
  otherKey?: string;
}

export interface AshbyOptions {
  /** Where the three endpoints are: `<baseUrl>/assessment.list` … (a kit partner's: `${PUBLIC_URL}/ashby`). Absent only when `ready` gives it. */
  baseUrl?: string;
  /** A customer's key, of an account with at least one test. Absent only when `ready` gives it. */
  key?: string;
  /** A second customer's key, for the tenant isolation checks. */
  otherKey?: string;
  /** The customers' Ashby API keys as the partner has them; each one absent is made up for the run. */
  apiKeys?: { key?: string; otherKey?: string };
  /**
   * Post the candidate's progress and the result through the partner's results endpoint, signed
   * with its VENDOR_RESULTS_SECRET; `url` has `{report_id}` where the assessment id goes (default:
   * the kit's path beside the Ashby endpoints). Without it a person completes the assessment.
   */
  results?: { secret: string; url?: string };
  /** How long to wait for each update (default 60 s). */
  updateTimeoutMs?: number;
  /** Where the receiver playing Ashby's API listens: by default 127.0.0.1 on a free port (`--receiver-host`, `--receiver-port`). */
  receiver?: ReceiverAddress;
  /** Each call's timeout (default 10 s, as the other platforms'). */
  timeoutMs?: number;
  /**
   * Called once the receiver listens, with what the partner must be set up with: print it and wait
   * (the command line), or start the partner with it (tests), and give its endpoints and keys when
   * they are known only then.
   */
  ready?: (setup: AshbySetup) => Promise<AshbyPartnerGiven | void>;
  /** Told about each result as soon as it is known (the CLI prints it). */
  onResult?: (result: CheckResult) => void;
  /** Told what the person running the checker must do (complete the assessment by hand). */
  onNotice?: (text: string) => void;
}

/** An Ashby API key for one run, unguessable: the partner is told it, never anyone else. */
const madeUpKey = () => `conformance-ashby-${randomBytes(18).toString('hex')}`;

/**
 * Drives a partner's Ashby endpoints over HTTP as Ashby does (docs/ashby.md) and returns one result
 * per check, in order. Ashby's API, where the partner posts `assessment.update`, is a receiver the
 * checker runs for the run (on 127.0.0.1 unless `receiver` says otherwise): the partner's
 * ASHBY_API_URL must name it, and each customer's Ashby API key must be the one `ready` is told.
 * Throws a ConformanceSetupError when the receiver cannot listen, or no endpoint or key is known.
 */
export async function runAshbyConformance(options: AshbyOptions): Promise<ConformanceRun> {
  // The other customer's is made up even without its key: `ready` may give that key only now.
  const apiKeys = { key: options.apiKeys?.key ?? madeUpKey(), otherKey: options.apiKeys?.otherKey ?? madeUpKey() };
  const receiver = await openReceiver({ ...UPDATE_RECEIVER, answer: ashbyApiAnswer(Object.values(apiKeys)) }, options.receiver);
  // One connection pool for the run, closed at the end so nothing keeps the process alive.
  const dispatcher = new Agent({ keepAliveTimeout: 1_000 });
  const { results, notRun, runAll } = recorder(options.onResult);
  try {
    const given =
      (await options.ready?.({
        apiUrl: receiver.origin,
        apiKeys,
        madeUp: { key: options.apiKeys?.key === undefined, otherKey: options.apiKeys?.otherKey === undefined },
      })) ?? {};
    const baseUrl = given.baseUrl ?? options.baseUrl;
    const key = given.key ?? options.key;
    const otherKey = given.otherKey ?? options.otherKey;
    if (baseUrl === undefined || key === undefined) throw new ConformanceSetupError("the base URL of the partner's Ashby endpoints and a customer's key are needed");
    const ctx: AshbyContext = {
      probe: probe({ timeoutMs: options.timeoutMs ?? CALLBACK_TIMEOUT_MS, dispatcher }),
      targets: ashbyTargets(baseUrl),
      key,
      ...(otherKey !== undefined && { otherKey }),
      apiKeys,
      receiver,
      ...(options.results && { results: { secret: options.results.secret, urlTemplate: options.results.url ?? resultsUrlFromAshby(baseUrl) } }),
      updateTimeoutMs: options.updateTimeoutMs ?? DEFAULT_UPDATE_TIMEOUT_MS,
      notice: options.onNotice ?? (() => {}),
      state: { assessments: new Map() },
    };
    await runAll(ASHBY_CHECKS, ctx);
  } finally {
    await dispatcher.close();
    await receiver.close();
  }
  return { results, notRun };
}
