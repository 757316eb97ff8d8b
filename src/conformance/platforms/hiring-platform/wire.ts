import { callbackRequest, type CallbackCall, type CallbackHttpRequest } from '../../../contract/partner-calls.js';
import { USER_AGENT, type Probe } from '../../probe.js';
import { resultsUrlBeside } from '../../results-checks.js';
import type { Targets } from './types.js';

/**
 * How the recruiting platform calls a partner (platform-contract.md §4): its three callbacks,
 * `Authorization: Bearer <customer token>`, JSON bodies — built by the contract's own calling code
 * (src/contract/partner-calls.ts), which the bundled mock's marketplace uses too, so what the
 * checker proves is what the platform sends.
 */

/** The callbacks under a base URL: `<base>/validate_token`, `<base>/tests`, `<base>/send_candidate`. */
export function callbackTargets(baseUrl: string): Targets {
  const base = baseUrl.replace(/\/+$/, '');
  return { validateToken: `${base}/validate_token`, tests: `${base}/tests`, sendCandidate: `${base}/send_candidate` };
}

/**
 * The results URL for a partner whose callbacks are `${PUBLIC_URL}/callbacks/…`, as the kit's:
 * the send_candidate URL without `/callbacks/send_candidate`, then the kit's results path.
 */
export const resultsUrlFromCallbacks = (sendCandidateUrl: string): string => resultsUrlBeside(sendCandidateUrl, 'send_candidate', 'callbacks');

/** The run's probe, and the platform's own requests built and sent through it. */
export type CallbackProbe = Probe & {
  /** The request the platform makes. */
  request(call: CallbackCall): CallbackHttpRequest;
  /** The platform's request, then sent. */
  call(label: string, call: CallbackCall): ReturnType<Probe['send']>;
};

export function callbackProbe(probe: Probe): CallbackProbe {
  return {
    ...probe,
    request: (call) => callbackRequest(call, USER_AGENT),
    call: (label, call) => probe.send(label, callbackRequest(call, USER_AGENT)),
  };
}
