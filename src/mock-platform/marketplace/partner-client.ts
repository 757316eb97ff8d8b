import { setTimeout as sleep } from 'node:timers/promises';
import { request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import type { CallLog } from '../calls/store.js';
import { redactBody, redactHeaders } from '../calls/redact.js';
import { describeFault, type CALLBACK_ENDPOINTS, type Fault, type FaultStore } from '../faults/store.js';
import { failureOf, problemMessage, type Failure } from './outcome.js';

/** Larger answers are refused: a partner's callbacks answer small JSON documents. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
const USER_AGENT = 'MockPlatform/1 (partner-integration-kit sandbox)';

export type CallbackName = (typeof CALLBACK_ENDPOINTS)[number];

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
 * Makes the platform's calls to a partner (§4): JSON, the customer token, one overall timeout per
 * call (headers and body together). Every call is written to the call log with its answer and the
 * outcome the user was shown. With `schema`, a 2xx whose body does not match is a failure too.
 * A fault armed on the callback (`faults`, target `callback`) plays a failing partner server.
 */
export function partnerClient(deps: { calls: CallLog; timeoutMs: number; dispatcher?: Dispatcher; faults?: FaultStore }) {
  return {
    async call<S extends z.ZodType = z.ZodUnknown>(req: CallbackRequest, schema?: S): Promise<CallbackResult<z.output<S>>> {
      const bodyText = req.body === undefined ? undefined : JSON.stringify(req.body);
      const headers: Record<string, string> = {
        accept: 'application/json',
        authorization: `Bearer ${req.token}`,
        'user-agent': USER_AGENT,
      };
      if (bodyText !== undefined) headers['content-type'] = 'application/json';

      const started = performance.now();
      const signal = AbortSignal.timeout(deps.timeoutMs);
      const fault = deps.faults?.take(req.endpoint, 'callback');
      let status: number | undefined;
      let text: string | undefined;
      let error: string | undefined;
      try {
        const injected = fault ? await playFault(fault, req.endpoint, signal) : undefined;
        if (injected) {
          status = injected.status;
          text = injected.text;
        } else {
          const res = await request(req.url, {
            method: req.method,
            headers,
            body: bodyText,
            signal,
            ...(deps.dispatcher && { dispatcher: deps.dispatcher }),
          });
          status = res.statusCode;
          text = await readText(res.body);
        }
      } catch (err) {
        error = signal.aborted ? `timed out after ${deps.timeoutMs} ms` : describe(err);
      }
      const durationMs = performance.now() - started;

      let result: { ok: true; status: number; value: z.output<S> } | { ok: false; failure: Failure };
      if (error !== undefined || status === undefined) {
        result = { ok: false, failure: { kind: 'problem', message: problemMessage(req.partner.name) } };
      } else {
        const body = parseJson(text);
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
        requestHeaders: redactHeaders(headers),
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

/**
 * A callback fault, played before the partner is called: the delay first (the call's timeout
 * still runs, so a delay past it is a timeout), then a dropped connection or an answer with the
 * status. Undefined when the call should then go to the partner after all (a delay alone).
 */
async function playFault(fault: Fault, endpoint: string, signal: AbortSignal): Promise<{ status: number; text: string } | undefined> {
  if (fault.delayMs > 0) await sleep(fault.delayMs, undefined, { signal });
  if (fault.drop) {
    // What undici reports when the server closes the connection without an answer.
    throw Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
  }
  if (fault.status !== null) return { status: fault.status, text: JSON.stringify({ error: `Injected fault: ${fault.status} on ${endpoint}` }) };
  return undefined;
}

async function readText(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw new Error(`response larger than ${MAX_RESPONSE_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** "connection error: ECONNREFUSED …" — the code first, it is what a developer searches for. */
function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : undefined;
  const message = typeof e.message === 'string' ? e.message : String(err);
  return code ? `connection error: ${code}: ${message}` : `connection error: ${message}`;
}
