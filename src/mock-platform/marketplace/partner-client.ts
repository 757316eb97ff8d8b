import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { callbackRequest, parseJsonAnswer } from '../../contract/partner-calls.js';
import type { CallLog } from '../calls/store.js';
import { redactBody, redactHeaders } from '../calls/redact.js';
import { callPartner } from '../faults/play.js';
import { describeFault, type PLATFORM_CALLBACKS, type FaultStore } from '../faults/store.js';
import { failureOf, problemMessage, type Failure } from './outcome.js';

const USER_AGENT = 'MockPlatform/1 (partner-integration-kit sandbox)';

export type CallbackName = (typeof PLATFORM_CALLBACKS)[number];

export interface CallbackRequest {
  endpoint: CallbackName;
  method: 'GET' | 'POST';
  url: string;
  /** The customer token, sent as `Authorization: Bearer`. */
  token: string;
  body?: unknown;
  partner: { codename: string; name: string };
  companyId: number;
  reportId?: string;
}

export type CallbackResult<T> = { callId: number } & ({ ok: true; status: number; value: T } | { ok: false; failure: Failure });

export type PartnerClient = ReturnType<typeof partnerClient>;

/**
 * Makes the platform's calls to a partner (§4) as the contract's `partner-calls.ts` makes them
 * (JSON, the customer token, one overall timeout per call, headers and body together). Every call
 * is written to the call log with its answer and the outcome the user was shown. With `schema`, a 2xx whose body does not match is a failure too.
 * A fault armed on the callback (`faults`, target `callback`) plays a failing partner server.
 */
export function partnerClient(deps: { calls: CallLog; timeoutMs: number; dispatcher?: Dispatcher; faults?: FaultStore }) {
  return {
    async call<S extends z.ZodType = z.ZodUnknown>(req: CallbackRequest, schema?: S): Promise<CallbackResult<z.output<S>>> {
      const httpRequest = callbackRequest({ method: req.method, url: req.url, token: req.token, body: req.body }, USER_AGENT);
      const bodyText = httpRequest.body?.toString();

      const sent = await callPartner(req.endpoint, httpRequest, deps);
      const { status, text, durationMs, fault } = sent;
      let { error } = sent;

      let result: { ok: true; status: number; value: z.output<S> } | { ok: false; failure: Failure };
      if (error !== undefined || status === undefined) {
        result = { ok: false, failure: { kind: 'problem', message: problemMessage(req.partner.name) } };
      } else {
        const body = parseJsonAnswer(text);
        const failure = failureOf(status, body, req.partner.name);
        if (failure) result = { ok: false, failure };
        else if (!schema) result = { ok: true, status, value: body as z.output<S> };
        else {
          const parsed = schema.safeParse(body);
          if (parsed.success) result = { ok: true, status, value: parsed.data };
          else {
            error = `unexpected response body: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
            result = { ok: false, failure: { kind: 'problem', message: problemMessage(req.partner.name) } };
          }
        }
      }

      const callId = deps.calls.record({
        direction: 'outbound',
        endpoint: req.endpoint,
        method: req.method,
        url: req.url,
        codename: req.partner.codename,
        companyId: req.companyId,
        reportId: req.reportId ?? null,
        requestHeaders: redactHeaders(httpRequest.headers),
        requestBody: redactBody(bodyText),
        responseStatus: status ?? null,
        responseBody: text ?? null,
        error: error ?? null,
        outcome: result.ok ? 'success' : result.failure.message,
        fault: fault ? describeFault(fault) : null,
        durationMs,
      });
      return { ...result, callId };
    },
  };
}
