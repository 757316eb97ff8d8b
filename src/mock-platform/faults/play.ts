import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { describeCallError, sendCallbackRequest, type CallbackHttpRequest } from '../../contract/partner-calls.js';
import type { Fault, FaultStore } from './store.js';

/**
 * A callback fault, played before the partner is called: the delay first (the call's timeout
 * still runs, so a delay past it is a timeout), then a dropped connection or an answer with the
 * status. Undefined when the call should then go to the partner after all (a delay alone). Every
 * call the mock makes to a partner plays its faults this way: the hiring platform's callbacks
 * (marketplace/partner-client.ts) and each plugin's (platforms/).
 */
export async function playFault(fault: Fault, endpoint: string, signal: AbortSignal): Promise<{ status: number; text: string } | undefined> {
  if (fault.delayMs > 0) await sleep(fault.delayMs, undefined, { signal });
  if (fault.drop) {
    // What undici reports when the server closes the connection without an answer.
    throw Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
  }
  if (fault.status !== null) return { status: fault.status, text: JSON.stringify({ error: `Injected fault: ${fault.status} on ${endpoint}` }) };
  return undefined;
}

/**
 * One call of the mock to the partner, as every platform it plays makes it: the fault armed on
 * `endpoint` (target `callback`) played, else the request sent (the contract's
 * `sendCallbackRequest`), all within `timeoutMs`. What came back, or why nothing did, how long it
 * took, and the fault played, if one was.
 */
export async function callPartner(
  endpoint: string,
  request: CallbackHttpRequest,
  deps: { timeoutMs: number; dispatcher?: Dispatcher; faults?: Pick<FaultStore, 'take'> },
): Promise<{ status?: number; text?: string; error?: string; durationMs: number; fault?: Fault }> {
  const started = performance.now();
  const signal = AbortSignal.timeout(deps.timeoutMs);
  const fault = deps.faults?.take(endpoint, 'callback');
  try {
    const injected = fault ? await playFault(fault, endpoint, signal) : undefined;
    const { status, text } = injected ?? (await sendCallbackRequest(request, { signal, dispatcher: deps.dispatcher }));
    return { status, text, durationMs: performance.now() - started, fault };
  } catch (err) {
    return { error: signal.aborted ? `timed out after ${deps.timeoutMs} ms` : describeCallError(err), durationMs: performance.now() - started, fault };
  }
}
