import type { Dispatcher } from 'undici';
import type { CallbackHttpRequest } from '../../../contract/partner-calls.js';
import { redactHeaders } from '../../calls/redact.js';
import type { CallLog } from '../../calls/store.js';
import { callPartner } from '../../faults/play.js';
import { describeFault, type FaultStore } from '../../faults/store.js';
import { SIGNATURE_HEADER, maskedCode } from './wire.js';

/**
 * The calls Bob makes to the vendor, by the names the call log and the faults give them: a signed
 * webhook to its listener, and the browser's visit to its OAuth callback at the end of an install
 * (which the mock makes itself when a script installs the app).
 */
export const BOB_CALLS = ['hibob.webhook', 'hibob.install'] as const;
export type BobCall = (typeof BOB_CALLS)[number];

const WEBHOOK_USER_AGENT = 'Bob-Webhooks/1 (partner-integration-kit sandbox)';
const BROWSER_USER_AGENT = 'MockPlatform/1 (partner-integration-kit sandbox; the browser of a Bob install)';

/** What came back: the status and body, or why there was no answer. */
export type Answer = { ok: true; status: number; text: string } | { ok: false; error: string };

export type BobClient = ReturnType<typeof bobClient>;

/**
 * Makes Bob's calls to the vendor with one overall timeout each (the contract's
 * `sendCallbackRequest`, as every platform the mock plays; redirects are not followed), writes each
 * to the call log — the install's code masked in its URL, `Bob-Signature` kept (it proves nothing
 * without the secret) — and plays a fault armed on it (target `callback`): the vendor then receives
 * nothing.
 */
export function bobClient(deps: { calls: CallLog; timeoutMs: number; dispatcher?: Dispatcher; faults?: FaultStore }) {
  async function call(name: BobCall, req: CallbackHttpRequest, log: { url: string; reportId: string | null; outcome: (answer: Answer) => string }): Promise<Answer> {
    const sent = await callPartner(name, req, deps);
    const answer: Answer = sent.error === undefined ? { ok: true, status: sent.status!, text: sent.text! } : { ok: false, error: sent.error };
    deps.calls.record({
      direction: 'outbound',
      endpoint: name,
      method: req.method,
      url: log.url,
      reportId: log.reportId,
      requestHeaders: redactHeaders(req.headers),
      requestBody: typeof req.body === 'string' ? req.body : null,
      responseStatus: answer.ok ? answer.status : null,
      responseBody: answer.ok ? answer.text : null,
      error: answer.ok ? null : answer.error,
      outcome: log.outcome(answer),
      fault: sent.fault ? describeFault(sent.fault) : null,
      durationMs: sent.durationMs,
    });
    return answer;
  }

  return {
    /** `POST` the event's exact bytes to the listener, signed. */
    webhook(input: { url: string; body: string; signature: string; assessmentRequestId: string }): Promise<Answer> {
      return call(
        'hibob.webhook',
        {
          method: 'POST',
          url: input.url,
          headers: { 'content-type': 'application/json', 'user-agent': WEBHOOK_USER_AGENT, [SIGNATURE_HEADER.toLowerCase()]: input.signature },
          body: input.body,
        },
        { url: input.url, reportId: input.assessmentRequestId, outcome: (a) => (a.ok && a.status >= 200 && a.status < 300 ? 'success' : `delivery failed: ${failure(a)}`) },
      );
    },

    /** The browser arriving at the vendor's OAuth callback with an install's code, as Bob's redirect sends it. */
    install(url: string): Promise<Answer> {
      return call(
        'hibob.install',
        { method: 'GET', url, headers: { accept: 'text/html', 'user-agent': BROWSER_USER_AGENT } },
        { url: maskedCode(url), reportId: null, outcome: (a) => (a.ok && a.status >= 200 && a.status < 300 ? 'success' : `install not completed: ${failure(a)}`) },
      );
    },
  };
}

/** An answer that is no success, in a few words. */
export const failure = (a: Answer): string => (a.ok ? `HTTP ${a.status}` : a.error);
