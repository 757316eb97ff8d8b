import type { Dispatcher } from 'undici';
import { exchange, parseJsonAnswer, type CallbackHttpRequest, type TimedAnswer } from '../contract/partner-calls.js';
import type { Verdict } from './types.js';

export const USER_AGENT = 'PartnerConformance/1 (partner-integration-kit)';

/** One request the checker made and what came back, for the checks over every answer. */
export interface Exchange {
  /** e.g. `send_candidate POST (replay)`. */
  label: string;
  status?: number;
  contentType?: string;
  text?: string;
  json?: unknown;
  durationMs: number;
  error?: string;
  timedOut?: boolean;
}

export type Answer = TimedAnswer & { json: unknown; label: string };

export type Probe = ReturnType<typeof probe>;

/**
 * The checker's side of the wire: each platform builds its requests as that platform does (its
 * folder's wire.ts), and the probe sends them with the platform's timeout; a check that tests
 * robustness changes one thing in such a request (`variant`). Every exchange is kept, for the
 * checks that look at all answers (error bodies, timing).
 */
export function probe(options: { timeoutMs: number; dispatcher?: Dispatcher }) {
  const exchanges: Exchange[] = [];

  const send = async (label: string, req: CallbackHttpRequest): Promise<Answer> => {
    const answer = await exchange(req, options);
    const json = answer.ok ? parseJsonAnswer(answer.text) : undefined;
    const contentType = answer.ok ? headerOf(answer.headers['content-type']) : undefined;
    exchanges.push(
      answer.ok
        ? { label, status: answer.status, contentType, text: answer.text, json, durationMs: answer.durationMs }
        : { label, durationMs: answer.durationMs, error: answer.error, timedOut: answer.timedOut },
    );
    return { ...answer, json, label };
  };

  return {
    exchanges,
    timeoutMs: options.timeoutMs,
    send,
  };
}

/** A call as most platforms make it: a method, a URL (and query), an `Authorization` header or none, a JSON body or none. */
export interface JsonCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  /** The `Authorization` header as the platform sends it, another to test the partner, or none. */
  authorization: string | undefined;
  /** Serialised as JSON; absent: no body (a GET). */
  body?: unknown;
  /** Query parameters. */
  query?: Record<string, string>;
  /** More headers (a signature over the body, say). */
  headers?: Record<string, string>;
}

/** The request on the wire for `call`: JSON accepted, the checker's user agent, the body as JSON. */
export function jsonRequest(call: JsonCall): CallbackHttpRequest {
  const url = new URL(call.url);
  for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT, ...call.headers };
  if (call.authorization !== undefined) headers.authorization = call.authorization;
  const body = call.body === undefined ? undefined : JSON.stringify(call.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { method: call.method, url: url.href, headers, ...(body !== undefined && { body }) };
}

/** `Authorization: Basic base64("<user>:<password>")`; Greenhouse and Ashby send the customer's key with an empty password. */
export const basicAuth = (user: string, password = ''): string => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

/** `req` with some headers replaced (undefined: removed) and, optionally, another body. */
export function variant(req: CallbackHttpRequest, headers: Record<string, string | undefined>, body?: string | Buffer): CallbackHttpRequest {
  const next: Record<string, string> = { ...req.headers };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) delete next[name];
    else next[name] = value;
  }
  return { ...req, headers: next, ...(body !== undefined && { body }) };
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** An answer in a few words: `201 {"id":"…","status":"sent"}`, or why there was none. */
export function describeAnswer(answer: Answer, max = 120): string {
  if (!answer.ok) return `no answer: ${answer.error}`;
  const text = answer.text.replace(/\s+/g, ' ').trim();
  if (text === '') return String(answer.status);
  return `${answer.status} ${text.length > max ? `${text.slice(0, max)}…` : text}`;
}

export const is2xx = (answer: Answer): boolean => answer.ok && answer.status >= 200 && answer.status < 300;

/** Passes when the answer's status is `expected` (a number, or a test with its wording). */
export function expectStatus(answer: Answer, expected: number | { test: (status: number) => boolean; wording: string }): Verdict {
  if (!answer.ok) return { ok: false, detail: describeAnswer(answer) };
  const ok = typeof expected === 'number' ? answer.status === expected : expected.test(answer.status);
  const wording = typeof expected === 'number' ? String(expected) : expected.wording;
  return ok ? { ok: true, detail: String(answer.status) } : { ok: false, detail: `expected ${wording}, got ${describeAnswer(answer)}` };
}

export const TWO_XX = { test: (s: number) => s >= 200 && s < 300, wording: '2xx' };
export const FOUR_XX = { test: (s: number) => s >= 400 && s < 500, wording: '4xx' };
export const NOT_5XX = { test: (s: number) => s < 500, wording: 'an answer below 500' };

/** `{"error": "<non-empty string>"}`: how every 4xx carries its message (§3, §4). */
export function hasErrorMessage(json: unknown): boolean {
  const error = (json as { error?: unknown } | null | undefined)?.error;
  return typeof json === 'object' && json !== null && !Array.isArray(json) && typeof error === 'string' && error.trim() !== '';
}

/** Several verdicts as one: every one must pass; the details joined. */
export function allOf(parts: { label?: string; verdict: Verdict }[]): Verdict {
  const failed = parts.filter((p) => !p.verdict.ok);
  const shown = failed.length > 0 ? failed : parts;
  return {
    ok: failed.length === 0,
    detail: shown.map((p) => (p.label ? `${p.label}: ${p.verdict.detail}` : p.verdict.detail)).join('; '),
  };
}
