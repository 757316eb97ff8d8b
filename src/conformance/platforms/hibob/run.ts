import { randomBytes } from 'node:crypto';
import { Agent } from 'undici';
import { probe } from '../../probe.js';
import { openReceiver, type ReceiverAddress } from '../../receiver.js';
import { ConformanceSetupError, recorder, type ConformanceRun } from '../../run.js';
import type { CheckResult } from '../../types.js';
import { playBob } from './bob.js';
import { HIBOB_CHECKS, type HibobContext } from './checks.js';
import { API_PATH, BOB_RECEIVER, LISTENER_TIMEOUT_MS, TOKEN_PATH, hibobTargets, newCompanyId, resultsUrlFromHibob } from './wire.js';

/** How long the checker waits by default for each call the partner makes to Bob (`--call-timeout`). */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** What the partner under test must be set up with for the run: where Bob is, its app's credentials, and the companies the run installs. */
export interface HibobSetup {
  /** The partner's HIBOB_API_URL and HIBOB_TOKEN_URL: the checker's receiver. */
  apiUrl: string;
  tokenUrl: string;
  /** The partner's HIBOB_CLIENT_ID, HIBOB_CLIENT_SECRET and HIBOB_WEBHOOK_SECRET. */
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
  /** Which of them the checker made up for this run (to be set in the partner), rather than was given. */
  madeUp: { clientId: boolean; clientSecret: boolean; webhookSecret: boolean };
  /** The Bob companies the run installs: A, whose orders it makes, and B. */
  companies: { a: string; b: string };
}

/** What `ready` may give once the partner is started with the setup: its HiBob base, when known only then. */
export interface HibobPartnerGiven {
  baseUrl?: string;
}

export interface HibobOptions {
  /** The partner's HiBob base: `<base>/oauth/callback` and `<base>/webhooks` (a kit partner's: `${PUBLIC_URL}/hibob`). Absent only when `ready` gives it. */
  baseUrl?: string;
  /** The app's credentials and webhook secret as the partner has them; each one absent is made up for the run. */
  app?: { clientId?: string; clientSecret?: string; webhookSecret?: string };
  /** The Bob company ids to install; each one absent is made up for the run. */
  companies?: { a?: string; b?: string };
  /**
   * Post results through the partner's results endpoint, signed with its VENDOR_RESULTS_SECRET;
   * `url` has `{report_id}` where Bob's assessmentRequestId goes (default: the kit's path beside the
   * HiBob base). Without it the update checks are not run.
   */
  results?: { secret: string; url?: string };
  /** How long to wait for each call the partner makes to Bob (default 60 s). */
  callTimeoutMs?: number;
  /** Where the receiver playing Bob listens: by default 127.0.0.1 on a free port (`--receiver-host`, `--receiver-port`). */
  receiver?: ReceiverAddress;
  /**
   * Called once the receiver listens, with what the partner must be set up with: print it and wait
   * (the command line), or start the partner with it (tests), and give its base when known only then.
   */
  ready?: (setup: HibobSetup) => Promise<HibobPartnerGiven | void>;
  /** Told about each result as soon as it is known (the CLI prints it). */
  onResult?: (result: CheckResult) => void;
}

const madeUp = (what: string) => `conformance-hibob-${what}-${randomBytes(18).toString('hex')}`;

/**
 * Plays Bob against a partner's HiBob side (docs/hibob.md) and returns one result per check, in
 * order. Bob's token URL and API are a receiver the checker runs for the run (on 127.0.0.1 unless
 * `receiver` says otherwise): the partner's HIBOB_API_URL and HIBOB_TOKEN_URL must name it, and its
 * client id, client secret and webhook secret be the ones `ready` is told. Throws a
 * ConformanceSetupError when the receiver cannot listen, or no base is known.
 */
export async function runHibobConformance(options: HibobOptions): Promise<ConformanceRun> {
  const app = {
    clientId: options.app?.clientId ?? madeUp('client'),
    clientSecret: options.app?.clientSecret ?? madeUp('secret'),
    webhookSecret: options.app?.webhookSecret ?? madeUp('webhook'),
  };
  const companies = { a: options.companies?.a ?? newCompanyId(), b: options.companies?.b ?? newCompanyId() };
  if (companies.a === companies.b) throw new ConformanceSetupError('companies A and B must be two Bob companies');
  const bob = playBob(app);
  const receiver = await openReceiver({ ...BOB_RECEIVER, answer: (request) => bob.answer(request) }, options.receiver);
  // One connection pool for the run, closed at the end so nothing keeps the process alive.
  const dispatcher = new Agent({ keepAliveTimeout: 1_000 });
  const { results, notRun, runAll } = recorder(options.onResult);
  try {
    const given =
      (await options.ready?.({
        apiUrl: receiver.url(API_PATH),
        tokenUrl: receiver.url(TOKEN_PATH),
        ...app,
        madeUp: { clientId: options.app?.clientId === undefined, clientSecret: options.app?.clientSecret === undefined, webhookSecret: options.app?.webhookSecret === undefined },
        companies,
      })) ?? {};
    const baseUrl = given.baseUrl ?? options.baseUrl;
    if (baseUrl === undefined) throw new ConformanceSetupError("the partner's HiBob base URL is needed");
    const ctx: HibobContext = {
      // Bob's 10 seconds for the listener's answer; the callback and the results endpoint get as long.
      probe: probe({ timeoutMs: LISTENER_TIMEOUT_MS, dispatcher }),
      targets: hibobTargets(baseUrl),
      bob,
      companies,
      webhookSecret: app.webhookSecret,
      ...(options.results && { results: { secret: options.results.secret, urlTemplate: options.results.url ?? resultsUrlFromHibob(baseUrl) } }),
      callTimeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      state: { codes: {}, installed: {}, named: new Map(), refused: [] },
    };
    await runAll(HIBOB_CHECKS, ctx);
  } finally {
    bob.close();
    await dispatcher.close();
    await receiver.close();
  }
  return { results, notRun };
}
