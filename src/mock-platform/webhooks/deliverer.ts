import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import {
  WEBHOOK_LOG_RETENTION_MS,
  WEBHOOK_RATE_LIMIT_DELAY_MS,
  WEBHOOK_RATE_LIMIT_PER_MINUTE,
  WEBHOOK_RETRY_DELAYS_MS,
} from '../../contract/decisions.js';
import type { Logger } from '../../lib/http/logger.js';
import type { CompanyStore } from '../companies/store.js';
import type { MailLog } from '../mail.js';
import { signedRequest, type WebhookSender } from './sender.js';
import type { DueDelivery, RequestOutcome, WebhookStore } from './store.js';

/** [seed §6] The first attempt plus at most nine retries. */
export const MAX_ATTEMPTS = 1 + WEBHOOK_RETRY_DELAYS_MS.length;
const RATE_WINDOW_MS = 60_000;
/** Deliveries taken from the table per query, and requests in flight at once. */
const BATCH = 50;
const DEFAULT_CONCURRENCY = 8;

export interface DelivererDeps {
  store: WebhookStore;
  companies: CompanyStore;
  send: WebhookSender;
  mail: MailLog;
  clock: Clock;
  logger: Logger;
  /** The request timeout; a claimed delivery's lease runs a minute past it. */
  timeoutMs: number;
  /** For the rate limit's ± 5 minutes; Math.random by default. */
  random?: () => number;
  concurrency?: number;
}

export type WebhookDeliverer = ReturnType<typeof webhookDeliverer>;

/**
 * The delivery worker. Each `runOnce()` sends every delivery that is due now and returns when all
 * their answers are recorded; the schedule lives in `webhook_deliveries`, so a fake clock and a few
 * calls run days of retries in milliseconds, and a restarted platform resumes where it stopped.
 *
 * Per delivery [seed §6, §8]: over the company's rate limit (trial 5, others 100 requests in the
 * last minute) it waits 10 min ± 5 min without an attempt being counted; otherwise the request is
 * sent with `attempt_count` = attempts so far + 1, the same `id` and `created_at`. Only a 200 is a
 * success. After failed attempt n ≤ 9 the next is due `WEBHOOK_RETRY_DELAYS_MS[n-1]` after the
 * failure; after the tenth the delivery has failed. The chosen members are e-mailed when a
 * delivery first fails and when it is given up [kit decision: not on every retry].
 */
export function webhookDeliverer(deps: DelivererDeps) {
  const { store, companies, send, mail, clock, logger } = deps;
  const random = deps.random ?? Math.random;
  const concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;
  const leaseMs = deps.timeoutMs + 60_000;

  const overLimit = (companyId: number): boolean => {
    const plan = companies.find(companyId)?.plan ?? 'standard';
    const limit = WEBHOOK_RATE_LIMIT_PER_MINUTE[plan];
    return store.eventRequestsSince(companyId, isoAt(clock.now() - RATE_WINDOW_MS)) >= limit;
  };

  const envelope = (d: DueDelivery, attemptCount: number): string =>
    JSON.stringify({
      id: d.eventId,
      attempt_count: attemptCount,
      created_at: d.eventCreatedAt,
      event_type: d.eventType,
      event_subtype: d.eventSubtype,
      payload: JSON.parse(d.payload) as unknown,
    });

  /** Synchronous, so no other run can take the same delivery between the check and the claim. */
  function take(d: DueDelivery) {
    if (overLimit(d.companyId)) {
      const { base, jitter } = WEBHOOK_RATE_LIMIT_DELAY_MS;
      const delay = base + (2 * random() - 1) * jitter;
      store.postpone(d.id, clock.now() + delay);
      logger.debug({ deliveryId: d.id, delayMs: Math.round(delay) }, 'webhook delivery delayed by the rate limit');
      return undefined;
    }
    return store.claim(d, clock.now() + leaseMs, (attemptCount) => signedRequest(d.secret, envelope(d, attemptCount)));
  }

  async function attempt(d: DueDelivery, claimed: { attemptCount: number; requestId: number; headers: Record<string, string>; body: string }) {
    const outcome = await send(d.url, { headers: claimed.headers, body: claimed.body });
    const failedAt = clock.now();
    if (outcome.responseStatus === 200) {
      store.settle(claimed.requestId, d.id, outcome, { status: 'delivered', at: null });
      return;
    }
    const n = claimed.attemptCount;
    const retryIn = n < MAX_ATTEMPTS ? WEBHOOK_RETRY_DELAYS_MS[n - 1] : undefined;
    const nextAt = retryIn === undefined ? null : failedAt + retryIn;
    store.settle(claimed.requestId, d.id, outcome, { status: nextAt === null ? 'failed' : 'pending', at: nextAt });
    logger.info(
      { deliveryId: d.id, eventId: d.eventId, attempt: n, status: outcome.responseStatus, error: outcome.error, nextAttemptAt: nextAt && isoAt(nextAt) },
      'webhook delivery failed',
    );
    if (n === 1 || nextAt === null) notify(d, n, outcome, nextAt);
  }

  function notify(d: DueDelivery, attemptCount: number, outcome: RequestOutcome, nextAt: number | null): void {
    const answer = outcome.responseStatus !== null ? `answered HTTP ${outcome.responseStatus}` : `failed: ${outcome.error}`;
    const next =
      nextAt === null
        ? 'No more automatic retries will be made; retry it from the request log once the endpoint is fixed.'
        : `The next attempt is at ${isoAt(nextAt)}.`;
    for (const member of store.recipientEmails(d.webhookId)) {
      mail.send({
        companyId: d.companyId,
        to: member.email,
        subject: `Webhook "${d.webhookName}" failed to deliver ${d.eventType} (event ${d.eventId})`,
        body:
          `Hi ${member.name},\n\nthe webhook "${d.webhookName}" could not deliver event ${d.eventId} ` +
          `(${d.eventType}/${d.eventSubtype}) to ${d.url}: attempt ${attemptCount} of ${MAX_ATTEMPTS} ${answer}.\n${next}\n`,
        kind: 'webhook_failure',
      });
    }
  }

  return {
    /** Sends everything due now; resolves with the number of requests sent once all are recorded. */
    async runOnce(): Promise<number> {
      store.prune(clock.now() - WEBHOOK_LOG_RETENTION_MS);
      const inFlight = new Set<Promise<void>>();
      let sent = 0;
      // Claimed and postponed deliveries stop being due, so each query moves on to the rest.
      for (let due = store.due(BATCH); due.length > 0; due = store.due(BATCH)) {
        for (const d of due) {
          const claimed = take(d);
          if (!claimed) continue;
          sent += 1;
          const p: Promise<void> = attempt(d, claimed)
            .catch((err: unknown) => logger.error({ err, deliveryId: d.id }, 'webhook delivery could not be recorded'))
            .finally(() => inFlight.delete(p));
          inFlight.add(p);
          if (inFlight.size >= concurrency) await Promise.race(inFlight);
        }
      }
      await Promise.all(inFlight);
      return sent;
    },
  };
}
