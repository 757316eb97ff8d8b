import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { parseJsonAnswer, type CallbackHttpRequest } from '../../../contract/partner-calls.js';
import { redactBody, redactHeaders } from '../../calls/redact.js';
import type { CallLog } from '../../calls/store.js';
import { describeFault, type FaultStore } from '../../faults/store.js';
import { callPartner } from '../../faults/play.js';
import { readAnswer } from './answers.js';

const USER_AGENT = 'MockPlatform/1 (partner-integration-kit sandbox; Greenhouse)';

/** The four calls Greenhouse makes to a partner, by the names the call log and the faults give them. */
export const GREENHOUSE_CALLS = ['greenhouse.list_tests', 'greenhouse.response_error', 'greenhouse.send_test', 'greenhouse.test_status'] as const;
export type GreenhouseCall = (typeof GREENHOUSE_CALLS)[number];

/** `Authorization: Basic base64(key + ":")`: the customer's key as the user name, an empty password. */
export const basicAuth = (apiKey: string) => `Basic ${Buffer.from(`${apiKey}:`, 'utf8').toString('base64')}`;

export interface GreenhouseRequest {
  call: GreenhouseCall;
  method: 'GET' | 'POST';
  url: string;
  apiKey: string;
  body?: unknown;
}

/**
 * What Greenhouse made of the answer: the value when it follows the call's schema; `failed` for
 * no answer or an error status (`refused` when the partner answered a 4xx: it said no, rather than
 * broke); `malformed` for a 2xx whose body breaks the rules, with one sentence per problem (what
 * `response_error` carries). `message` is what the recruiter is shown.
 */
export type Reading<T> =
  | { kind: 'read'; value: T }
  | { kind: 'failed'; message: string; refused: boolean }
  | { kind: 'malformed'; errors: string[]; message: string };

export interface ReadAs<S extends z.ZodType> {
  /** The rules a 2xx answer must follow; absent: any answer (response_error's). */
  schema?: S;
  /** The partner's name, in the messages. */
  partnerName: string;
  /** The partner_interview_id the call concerns (the call log's `report_id`), or how to find it in the answer. */
  interviewId?: string | ((value: z.output<S>) => string);
}

export type GreenhouseClient = ReturnType<typeof greenhouseClient>;

/**
 * Makes the calls Greenhouse makes to an assessment partner: JSON, Basic authentication with the
 * customer's key, one overall timeout per call (undici, through the contract's
 * `sendCallbackRequest`, as the marketplace's calls). The answer is read as Greenhouse reads it
 * (`Reading`), and the call written to the call log with what the recruiter was shown,
 * credentials redacted. A fault armed on the call (target `callback`) plays a
 * failing partner: the partner receives nothing.
 */
export function greenhouseClient(deps: { calls: CallLog; timeoutMs: number; dispatcher?: Dispatcher; faults?: FaultStore }) {
  return {
    async call<S extends z.ZodType = z.ZodUnknown>(req: GreenhouseRequest, as: ReadAs<S>): Promise<Reading<z.output<S>>> {
      const body = req.body === undefined ? undefined : JSON.stringify(req.body);
      const httpRequest: CallbackHttpRequest = {
        method: req.method,
        url: req.url,
        headers: {
          accept: 'application/json',
          authorization: basicAuth(req.apiKey),
          'user-agent': USER_AGENT,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body }),
      };

      const { status, text, error, durationMs, fault } = await callPartner(req.call, httpRequest, deps);
      const reading = read(req.call, as, status, text, error);
      const interviewId = typeof as.interviewId === 'function' ? (reading.kind === 'read' ? as.interviewId(reading.value) : undefined) : as.interviewId;

      deps.calls.record({
        direction: 'outbound',
        endpoint: req.call,
        method: req.method,
        url: req.url,
        reportId: interviewId ?? null,
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

function read<S extends z.ZodType>(
  call: GreenhouseCall,
  as: ReadAs<S>,
  status: number | undefined,
  text: string | undefined,
  error: string | undefined,
): Reading<z.output<S>> {
  const name = as.partnerName;
  if (status === undefined) return { kind: 'failed', message: `There was a problem with the ${name} API: ${error ?? 'no answer'}`, refused: false };
  const json = parseJsonAnswer(text);
  if (status === 401 || status === 403) return { kind: 'failed', message: `${name} refused the API key (HTTP ${status}).`, refused: true };
  if (status < 200 || status >= 300) {
    // The partner's own `{"error"}` when it gave one, cut to fit a one-line notice.
    const said = (json as { error?: unknown } | undefined)?.error;
    const detail = typeof said === 'string' && said.trim() !== '' ? `: ${said.trim().slice(0, 300)}` : '';
    return { kind: 'failed', message: `${name} answered HTTP ${status}${detail}`, refused: status >= 400 && status < 500 };
  }
  if (!as.schema) return { kind: 'read', value: json as z.output<S> };
  const parsed = json === undefined ? { ok: false as const, errors: ['the answer is not a JSON document'] } : readAnswer(as.schema, json);
  if (parsed.ok) return { kind: 'read', value: parsed.value };
  const apiCall = call.replace(/^greenhouse\./, '');
  return {
    kind: 'malformed',
    errors: parsed.errors,
    message: `${name} answered ${apiCall} with a malformed answer (reported with response_error): ${parsed.errors.join('; ')}`,
  };
}
