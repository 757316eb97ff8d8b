import { request, type Dispatcher } from 'undici';
import { WEBHOOK_SIGNATURE_HEADER, WEBHOOK_USER_AGENT } from '../../contract/decisions.js';
import { signWebhookBody } from '../../contract/signature.js';
import { MAX_LOGGED_RESPONSE, type RequestOutcome } from './store.js';

export interface SignedRequest {
  headers: Record<string, string>;
  body: string;
}

/**
 * The request the platform sends [seed, platform-contract.md §6.1, §1.1]: POST, JSON, `User-Agent: Service-Webhooks`, and
 * `X-Service-Signature`: lowercase hex HMAC-SHA256 of exactly these body bytes under the secret.
 */
export function signedRequest(secret: string, body: string): SignedRequest {
  return {
    headers: {
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      [WEBHOOK_SIGNATURE_HEADER]: signWebhookBody(secret, body),
    },
    body,
  };
}

export type WebhookSender = (url: string, req: SignedRequest) => Promise<RequestOutcome>;

/**
 * Sends one webhook request with undici and reports how it went; never throws. One overall timeout
 * covers connecting, the headers and the body [seed, platform-contract.md §6.4: "a request times out after 10 seconds"].
 * Redirects are not followed: anything but a 200 is a failure. Only the start of the response body
 * is kept, for the log.
 */
export function webhookSender(options: { timeoutMs: number; dispatcher?: Dispatcher }): WebhookSender {
  const { timeoutMs, dispatcher } = options;
  return async (url, req) => {
    const started = performance.now();
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await request(url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        ...(dispatcher && { dispatcher }),
      });
      const responseBody = await readStart(res.body);
      return { responseStatus: res.statusCode, responseBody, error: null, durationMs: performance.now() - started };
    } catch (err) {
      const error = signal.aborted || timedOut(err) ? `timed out after ${timeoutMs} ms` : describe(err);
      return { responseStatus: null, responseBody: null, error, durationMs: performance.now() - started };
    }
  };
}

/** The first MAX_LOGGED_RESPONSE bytes; the rest is discarded without being buffered. */
async function readStart(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size < MAX_LOGGED_RESPONSE) chunks.push(chunk);
    size += chunk.length;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return size > MAX_LOGGED_RESPONSE ? text.slice(0, MAX_LOGGED_RESPONSE) : text;
}

/**
 * undici's own timers for the headers and the body, set to the same limit as the signal: whichever
 * of them fires first, the request timed out (the log would otherwise say one or the other by chance).
 */
function timedOut(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}

function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : undefined;
  const message = typeof e.message === 'string' ? e.message : String(err);
  return code ? `connection error: ${code}: ${message}` : `connection error: ${message}`;
}
