import { setTimeout as sleep } from 'node:timers/promises';
import type { Fault } from './store.js';

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
