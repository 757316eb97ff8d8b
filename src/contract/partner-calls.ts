import { request, type Dispatcher } from 'undici';

/**
 * How the platform calls a partner's callback (platform-contract.md §4): JSON both ways, the
 * customer token as `Authorization: Bearer`, one overall timeout per call (headers and body
 * together), and a bounded answer. The bundled mock's marketplace and the conformance checker
 * both call partners through this one implementation, so what the checker proves is what the
 * platform sends.
 */

/** Larger answers are refused: a partner's callbacks answer small JSON documents. */
export const MAX_CALLBACK_ANSWER_BYTES = 1024 * 1024;

export interface CallbackCall {
  method: 'GET' | 'POST';
  url: string;
  /** The customer token, sent as `Authorization: Bearer`. */
  token: string;
  /** Serialised as JSON; absent: no body and no Content-Type (a GET). */
  body?: unknown;
}

/** A request on the wire: what `sendCallbackRequest` sends, byte for byte. */
export interface CallbackHttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface CallbackHttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as UTF-8 text ('' when there is none). */
  text: string;
}

/** The request the platform sends for `call`. */
export function callbackRequest(call: CallbackCall, userAgent: string): CallbackHttpRequest {
  const body = call.body === undefined ? undefined : JSON.stringify(call.body);
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: `Bearer ${call.token}`,
    'user-agent': userAgent,
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { method: call.method, url: call.url, headers, ...(body !== undefined && { body }) };
}

/**
 * Sends `req` and reads the answer, up to MAX_CALLBACK_ANSWER_BYTES. Throws on a connection error,
 * an answer too large, or when `signal` aborts (the caller's timeout covers headers and body).
 */
export async function sendCallbackRequest(
  req: CallbackHttpRequest,
  options: { signal: AbortSignal; dispatcher?: Dispatcher },
): Promise<CallbackHttpAnswer> {
  const res = await request(req.url, {
    method: req.method as Dispatcher.HttpMethod,
    headers: req.headers,
    body: req.body,
    signal: options.signal,
    ...(options.dispatcher && { dispatcher: options.dispatcher }),
  });
  return { status: res.statusCode, headers: res.headers, text: await readText(res.body) };
}

export type TimedAnswer =
  | ({ ok: true; durationMs: number } & CallbackHttpAnswer)
  | { ok: false; durationMs: number; timedOut: boolean; error: string };

/** `sendCallbackRequest` with its own timeout, never throwing: the answer or why there was none. */
export async function exchange(
  req: CallbackHttpRequest,
  options: { timeoutMs: number; dispatcher?: Dispatcher },
): Promise<TimedAnswer> {
  const started = performance.now();
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const answer = await sendCallbackRequest(req, { signal, dispatcher: options.dispatcher });
    return { ok: true, durationMs: performance.now() - started, ...answer };
  } catch (err) {
    const durationMs = performance.now() - started;
    if (signal.aborted) return { ok: false, durationMs, timedOut: true, error: `timed out after ${options.timeoutMs} ms` };
    return { ok: false, durationMs, timedOut: false, error: describeCallError(err) };
  }
}

async function readText(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_CALLBACK_ANSWER_BYTES) {
      body.destroy();
      throw new Error(`response larger than ${MAX_CALLBACK_ANSWER_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** "connection error: ECONNREFUSED …" — the code first, it is what a developer searches for. */
export function describeCallError(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : undefined;
  const message = typeof e.message === 'string' ? e.message : String(err);
  return code ? `connection error: ${code}: ${message}` : `connection error: ${message}`;
}

/** The answer's body as JSON, or undefined when it is empty or not JSON. */
export function parseJsonAnswer(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
