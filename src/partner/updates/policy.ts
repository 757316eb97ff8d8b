/**
 * How report updates are delivered to the platform: every number of the retry policy, in one place.
 * [kit decision] throughout — the contract says nothing about how a partner retries.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const DELIVERY_TIMEOUTS = {
  /** TCP (and TLS) connection set-up. */
  connectMs: 5 * SECOND,
  /** From the request sent to the response's headers. */
  headersMs: 10 * SECOND,
  /** Between chunks of the response body. */
  bodyMs: 10 * SECOND,
} as const;

export const DELIVERY_RETRY = {
  /** The first retry waits about this long; each further one twice as long… (jobs/backoff.ts) */
  baseMs: 10 * SECOND,
  /** …up to this cap. */
  maxMs: HOUR,
  /** A platform's Retry-After is honoured up to this; a broken header cannot park an update for weeks. */
  maxRetryAfterMs: 6 * HOUR,
  /** Nor can `Retry-After: 0` make the worker spin. */
  minRetryAfterMs: SECOND,
  /** An update that has failed for this long is given up (dead letter); the dashboard can retry it. */
  giveUpAfterMs: 3 * DAY,
} as const;

/**
 * How long the delivery log keeps requests, and settled updates (delivered, superseded, canceled):
 * 30 days, as the platform's own webhook log. Pending and dead updates stay until they settle.
 */
export const DELIVERY_LOG_RETENTION_MS = 30 * DAY;

/** Reports delivered at the same time; one report's updates are always sent one request at a time. */
export const DELIVERY_CONCURRENCY = 4;
/** Stored of each response body, for the dashboard. */
export const STORED_RESPONSE_BYTES = 4096;

/**
 * What an answer means for an update:
 * - 2xx: delivered.
 * - 408, 425, 429 and 5xx: the platform is busy or broken — try again later.
 * - Anything else (400, 401, 403, 404, 422, but also 3xx, 405, 409, 410, 413…): the same request
 *   would be refused again; it goes to the dead letters at once, for an operator to look at.
 */
export function outcomeOf(status: number): 'delivered' | 'retry' | 'dead' {
  if (status >= 200 && status < 300) return 'delivered';
  if (status >= 500 || status === 408 || status === 425 || status === 429) return 'retry';
  return 'dead';
}

/**
 * [kit decision] The platform first: a candidate is never invited to a report the platform does
 * not know. The platform learns of a report from its own send_candidate call, but a partner cannot
 * tell whether the platform received the 201 it answered: when that answer is lost (a crash after
 * the commit, a cut connection), the platform marks the send failed and hides the report. So:
 *
 * - the invitation e-mail is queued only when the platform first accepts (2xx) an update of the
 *   report — the start's urls.show and urls.cancel, the report's first update. Until then it waits,
 *   through every retry of that update (5xx, 408, 425, 429, timeouts, connection errors), and past
 *   its give-up, until an operator's "Retry now" gets it through;
 * - a 404 (contract §3.2: unknown report) to an update of a report the platform has never accepted
 *   an update of cancels the invitation: nothing was e-mailed, and the platform is not told (it has
 *   no report to tell);
 * - once the platform has accepted one update, a 404 never cancels: the platform knew the report,
 *   so it was deleted since, and the candidate, already invited, keeps the link; the update is a
 *   dead letter as any other 4xx. The platform answers the same 404 for a report it never saw and
 *   for one deleted, so only the platform's own earlier 2xx tells them apart — and a real
 *   invitation is never lost to a late 404.
 *
 * What an answer says about the report: `known` (2xx), `unknown` (404), nothing otherwise.
 */
export function reportKnown(status: number | null): 'known' | 'unknown' | undefined {
  if (status === null) return undefined;
  if (status >= 200 && status < 300) return 'known';
  return status === 404 ? 'unknown' : undefined;
}

/**
 * A Retry-After header (RFC 9110 §10.2.3): delay in seconds, or an HTTP date. undefined when absent
 * or unreadable; otherwise clamped to [minRetryAfterMs, maxRetryAfterMs].
 */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  let ms: number;
  if (/^\d{1,10}$/.test(value)) ms = Number(value) * SECOND;
  else {
    // Every HTTP-date form (IMF-fixdate, RFC 850, asctime) starts with the day's name.
    const at = /^[A-Za-z]{3}/.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(DELIVERY_RETRY.maxRetryAfterMs, Math.max(DELIVERY_RETRY.minRetryAfterMs, ms));
}
