import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { parseJsonAnswer, type CallbackHttpRequest } from '../../../contract/partner-calls.js';
import { basicHeader } from '../../../lib/http/basic-key.js';
import { redactBody, redactHeaders } from '../../calls/redact.js';
import type { CallLog } from '../../calls/store.js';
import { callPartner } from '../../faults/play.js';
import { describeFault, type FaultStore } from '../../faults/store.js';
import { readBody, saidIn } from './wire.js';

const USER_AGENT = 'MockPlatform/1 (partner-integration-kit sandbox; Ashby)';

/** The calls Ashby makes to a partner, by the names the call log and the faults give them. */
export const ASHBY_CALLS = ['ashby.assessment.list', 'ashby.assessment.start', 'ashby.assessment.cancel'] as const;
export type AshbyCall = (typeof ASHBY_CALLS)[number];

/**
 * What Ashby made of the answer: the value when it follows the call's schema, else `failed` with
 * what the recruiter is shown; `refused` when the partner said no (a 4xx, or Ashby's 200 with
 * `success: false`) rather than broke (no answer, a 5xx, an answer Ashby cannot read).
 */
export type Reading<T> = { kind: 'read'; value: T } | { kind: 'failed'; message: string; refused: boolean };

export interface AshbyRequest {
  call: AshbyCall;
  /** The partner's base URL: the call is `POST {base}/<call>`. */
  baseUrl: string;
  /** The key the partner gave the customer: the Basic user name, the password empty. */
  apiKey: string;
  body: unknown;
}

export interface ReadAs<S extends z.ZodType> {
  schema: S;
  partnerName: string;
  /** The assessment the call concerns (the call log's `report_id`), or how to find it in the answer. */
  assessmentId?: string | ((value: z.output<S>) => string);
}

export type AshbyClient = ReturnType<typeof ashbyClient>;

/**
 * Makes the calls Ashby makes to an assessment partner: `POST {base}/assessment.*`, JSON, Basic
 * authentication with the customer's key and an empty password, one overall timeout per call
 * (the contract's `sendCallbackRequest`, as every platform the mock plays). The answer is read as
 * Ashby reads it (`Reading`) and the call written to the call log with what the recruiter was
 * shown, credentials redacted. A fault armed on the call (target `callback`) plays a failing
 * partner: the partner receives nothing.
 */
export function ashbyClient(deps: { calls: CallLog; timeoutMs: number; dispatcher?: Dispatcher; faults?: FaultStore }) {
  return {
    async call<S extends z.ZodType>(req: AshbyRequest, as: ReadAs<S>): Promise<Reading<z.output<S>>> {
      const body = JSON.stringify(req.body);
      const url = `${req.baseUrl.replace(/\/+$/, '')}/${req.call.replace(/^ashby\./, '')}`;
      const httpRequest: CallbackHttpRequest = {
        method: 'POST',
        url,
        headers: { accept: 'application/json', authorization: basicHeader(req.apiKey), 'content-type': 'application/json', 'user-agent': USER_AGENT },
        body,
      };

      const { status, text, error, durationMs, fault } = await callPartner(req.call, httpRequest, deps);
      const reading = read(req.call, as, status, text, error);
      const assessmentId = typeof as.assessmentId === 'function' ? (reading.kind === 'read' ? as.assessmentId(reading.value) : undefined) : as.assessmentId;

      deps.calls.record({
        direction: 'outbound',
        endpoint: req.call,
        method: 'POST',
        url,
        reportId: assessmentId ?? null,
        requestHeaders: redactHeaders(httpRequest.headers),
        requestBody: redactBody(body),
        responseStatus: status ?? null,
        responseBody: text ?? null,
        error: error ?? null,
        outcome: reading.kind === 'read' ? 'success' : reading.message,
        fault: fault ? describeFault(fault) : null,
        durationMs,
      });
      return reading;
    },
  };
}

function read<S extends z.ZodType>(call: AshbyCall, as: ReadAs<S>, status: number | undefined, text: string | undefined, error: string | undefined): Reading<z.output<S>> {
  const name = as.partnerName;
  if (status === undefined) return { kind: 'failed', message: `There was a problem with the ${name} API: ${error ?? 'no answer'}`, refused: false };
  const json = parseJsonAnswer(text);
  const said = saidIn(json);
  if (status === 401 || status === 403) return { kind: 'failed', message: `${name} refused the API key (HTTP ${status}).`, refused: true };
  // Ashby documents both answers of a start: 409 "already being assessed", 422 a message it shows its user.
  if (call === 'ashby.assessment.start' && status === 409) {
    return { kind: 'failed', message: `The candidate is already being assessed (${name} answered HTTP 409${said ? `: ${said}` : ''}).`, refused: true };
  }
  if (call === 'ashby.assessment.start' && status === 422 && said) return { kind: 'failed', message: said, refused: true };
  if (status < 200 || status >= 300) {
    return { kind: 'failed', message: `${name} answered HTTP ${status}${said ? `: ${said}` : ''}`, refused: status >= 400 && status < 500 };
  }
  const apiCall = call.replace(/^ashby\./, '');
  if (json === undefined) return { kind: 'failed', message: `${name} answered ${apiCall} with an answer Ashby cannot read: it is not JSON`, refused: false };
  // What would be a 4xx, Ashby's way: 200 with `success: false` and an `errorInfo`.
  if ((json as { success?: unknown }).success === false) {
    return { kind: 'failed', message: `${name} refused: ${said ?? 'success: false, without an errorInfo'}`, refused: true };
  }
  const parsed = readBody(as.schema, json);
  if (parsed.ok) return { kind: 'read', value: parsed.value };
  return { kind: 'failed', message: `${name} answered ${apiCall} with an answer Ashby cannot read: ${parsed.errors.join('; ')}`, refused: false };
}
