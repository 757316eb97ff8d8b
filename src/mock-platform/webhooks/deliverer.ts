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

/** [seed, platform-contract.md §6.4] The first attempt plus at most nine retries. */
export const MAX_ATTEMPTS = 1 + WEBHOOK_RETRY_DELAYS_MS.length;
const RATE_WINDOW_MS = 60_000;
/** Deliveries taken from the table per query. */
const BATCH = 50;
/** [kit decision] Requests in flight at once, in all, and to any one endpoint (URL). */
const DEFAULT_CONCURRENCY = 8;
const DEFAULT_PER_ENDPOINT = 2;
/** How often `wake()` forgets requests older than 30 days (on the platform's clock). */
const PRUNE_EVERY_MS = 60_000;

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
  /** Most requests in flight to one URL, so one slow endpoint cannot take every slot. */
  perEndpoint?: number;
}

export type WebhookDeliverer = ReturnType<typeof webhookDeliverer>;

/**
 * The delivery worker: a bounded pool of requests (8 in all, 2 per endpoint URL). A free slot takes
 * the next due delivery at once — oldest due first, skipping endpoints that already have their two
 * in flight — so an endpoint that never answers ties up two slots for the 10 s timeout while every
 * other endpoint's deliveries keep going out. `wake()` fills the free slots now (after an event,
 * "retry now", a clock change, and every second when started); each finished request fills its
 * slot again. `runOnce()` fills them and returns once everything due now is sent and recorded. The
 * schedule lives in `webhook_deliveries`, so a fake clock and a few calls run days of retries in
 * milliseconds, and a restarted platform resumes where it stopped.
 *
 * Per delivery [seed, platform-contract.md §6.4, §8.3]: over the company's rate limit (trial 5, others 100 requests in the
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
  const perEndpoint = deps.perEndpoint ?? DEFAULT_PER_ENDPOINT;
  const leaseMs = deps.timeoutMs + 60_000;

  /** Requests in flight, by delivery id; and how many go to each URL. */
  const inFlight = new Map<number, Promise<void>>();
  const perUrl = new Map<string, number>();
  let started = 0;
  let lastPrune: number | undefined;

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
    // A "retry now" of a given-up or canceled delivery is one attempt: it goes back where it was.
    const retryIn = d.manualFrom === null && n < MAX_ATTEMPTS ? WEBHOOK_RETRY_DELAYS_MS[n - 1] : undefined;
    const nextAt = retryIn === undefined ? null : failedAt + retryIn;
    store.settle(claimed.requestId, d.id, outcome, { status: nextAt === null ? (d.manualFrom ?? 'failed') : 'pending', at: nextAt });
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

  const busy = (url: string) => (perUrl.get(url) ?? 0) >= perEndpoint;

  function start(d: DueDelivery, claimed: NonNullable<ReturnType<typeof take>>): void {
    started += 1;
    perUrl.set(d.url, (perUrl.get(d.url) ?? 0) + 1);
    const p = attempt(d, claimed)
      .catch((err: unknown) => logger.error({ err, deliveryId: d.id }, 'webhook delivery could not be recorded'))
      .finally(() => {
        inFlight.delete(d.id);
        const left = (perUrl.get(d.url) ?? 1) - 1;
        if (left > 0) perUrl.set(d.url, left);
        else perUrl.delete(d.url);
        // The freed slot takes the next due delivery at once.
        fill();
      });
    inFlight.set(d.id, p);
  }

  /**
   * Starts due deliveries, oldest first, while slots are free; synchronous, so no other caller can
   * take the same delivery between the check and the claim. Endpoints with their share in flight
   * are left out of the query, so their backlog never hides other endpoints' due deliveries.
   */
  function fill(): void {
    while (inFlight.size < concurrency) {
      const saturated = [...perUrl].filter(([, n]) => n >= perEndpoint).map(([url]) => url);
      const due = store.due(BATCH, { urls: saturated, ids: [...inFlight.keys()] });
      let moved = false;
      for (const d of due) {
        if (inFlight.size >= concurrency) return;
        // Its URL filled up earlier in this batch: the next query leaves it out.
        if (busy(d.url)) continue;
        // Claimed, postponed (rate limit) or gone: either way it is no longer due.
        moved = true;
        const claimed = take(d);
        if (claimed) start(d, claimed);
      }
      if (!moved) return;
    }
  }

  const prune = () => {
    const now = clock.now();
    lastPrune = now;
    store.prune(now - WEBHOOK_LOG_RETENTION_MS);
  };

  /** Resolves once no request is in flight (those started meanwhile included). */
  async function idle(): Promise<void> {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()]);
  }

  return {
    /**
     * Fills the free slots with what is due now, without waiting for anything. Forgets log entries
     * past 30 days first, at most once a minute of the platform's clock (at once after it jumps).
     */
    wake(): void {
      const now = clock.now();
      if (lastPrune === undefined || now - lastPrune >= PRUNE_EVERY_MS || now < lastPrune) prune();
      fill();
    },

    /** Sends everything due now; resolves with the number of requests sent once all are recorded. */
    async runOnce(): Promise<number> {
      prune();
      const before = started;
      fill();
      await idle();
      return started - before;
    },

    idle,

    /** Requests in flight now. */
    inFlight: (): number => inFlight.size,
  };
}
