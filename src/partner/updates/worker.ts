import { backoffMs } from '../jobs/backoff.js';
import { claimsInHand } from '../jobs/lease.js';
import { heldBatch } from '../jobs/loop.js';
import type { Agent, Dispatcher } from 'undici';
import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Logger } from '../../lib/http/logger.js';
import type { Prelude, Sql } from '../../lib/sql.js';
import type { InvitationUpdate } from '../invitations/update.js';
import { DeliveryNotYet, type DeliveryRequest, type DeliveryTarget, type Platform } from '../platforms/platform.js';
import type { ConnectionStore } from '../connections/store.js';
import { isEmptyUpdate, mergeUpdates, withoutFieldsSetBy } from './body.js';
import type { AlongWith, DeliveryAttempt, QueuedUpdate, StoredTarget, UpdateOutbox } from './outbox.js';
import {
  DELIVERY_CONCURRENCY,
  DELIVERY_LOG_RETENTION_MS,
  DELIVERY_RETRY,
  DELIVERY_TIMEOUTS,
  outcomeOf,
  retryAfterMs,
  STORED_RESPONSE_BYTES,
} from './policy.js';

const USER_AGENT = 'partner-integration-kit/0.1 (report delivery)';
/** Heads taken per query; the loop queries again until nothing is due. */
const BATCH = 50;
const PRUNE_EVERY_MS = 60 * 60_000;

export interface DeliveryTimeouts {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
}

/** What deliveries go through: `deliveryAgent()` in production; an undici Agent or MockAgent does too. */
export interface DeliveryClient {
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
}

/**
 * The HTTP client deliveries use in production: an undici Agent with connect, headers and body
 * timeouts on every request, made on the first delivery — importing undici was a fifth of the
 * partner's start-up, and a partner that is not registered yet delivers nothing.
 */
export function deliveryAgent(timeouts: DeliveryTimeouts = DELIVERY_TIMEOUTS) {
  let agent: Promise<Agent> | undefined;
  const made = () =>
    (agent ??= import('undici').then(
      ({ Agent }) =>
        new Agent({
          connect: { timeout: timeouts.connectMs },
          headersTimeout: timeouts.headersMs,
          bodyTimeout: timeouts.bodyMs,
          keepAliveTimeout: 4_000,
        }),
    ));
  return {
    request: async (options: Dispatcher.RequestOptions) => (await made()).request(options),
    /** Lets requests in flight finish, then closes the connections. */
    close: async () => agent && (await agent).close(),
    /** Closes the connections at once, requests in flight with them. */
    destroy: async () => agent && (await agent).destroy(),
  };
}

export interface DeliveryWorkerDeps {
  outbox: UpdateOutbox;
  /** Where a platform's deliveries find the customer's credential (`DeliveryTarget.credential`). */
  connections?: Pick<ConnectionStore, 'credential'>;
  clock: Clock;
  logger: Logger;
  /** Where requests go through: `deliveryAgent()` in production, an undici Agent or MockAgent in tests. */
  dispatcher: DeliveryClient;
  /** The platforms the partner speaks, by name: each invitation's updates go to its own. */
  platforms: ReadonlyMap<string, Platform>;
  timeouts?: DeliveryTimeouts;
  random?: () => number;
  concurrency?: number;
  /** How long a claimed report is this instance's to deliver (jobs/lease.ts). */
  leaseMs: number;
  /**
   * What the platform's answer says about the report (`reportKnown`, policy.ts): recorded in the
   * same commit as the delivery — the lifecycle's `platformAnswered`, which queues the invitation
   * e-mail on the first acceptance and cancels an invitation the platform does not know. One
   * statement on PostgreSQL, carrying the delivery's record when given it as `prelude`
   * (outbox.ts, `AlongWith`). True when it changed something.
   */
  recordAnswer?: (tx: Sql, reportId: string, answer: { accepted: true } | { accepted: false; reason: string }, prelude?: Prelude) => Promise<boolean>;
  /** Told once `recordAnswer` changed something and committed, with the answer: an e-mail may be due (the lifecycle's `answerRecorded`). */
  onRecorded?: (answer: { accepted: boolean }) => void;
}

export interface DeliveryRun {
  delivered: number;
  retried: number;
  dead: number;
  superseded: number;
  /** Why a platform's updates were not sent, when some could not be (the others' went out). */
  waiting?: string;
}

export type DeliveryWorker = ReturnType<typeof deliveryWorker>;

/**
 * Sends queued report updates to the platform of each invitation, as that platform asks
 * (`Platform.deliveryRequest`: the hiring platform's `PATCH …/reports/{id}`, Greenhouse's PATCH to
 * the URL it gave); an update a platform has nothing to hear of is settled without a request.
 *
 * Order: a report's updates are sent strictly in sequence. The oldest pending update of a report
 * goes out together with every newer pending one, merged into one body (later fields win); newer
 * updates queued while that request is in flight wait for it. So the platform never receives an
 * older status after a newer one, and a report that was retried for an hour still ends with one
 * request carrying its latest state.
 *
 * Retries (numbers in policy.ts): 5xx, 408/425/429, timeouts and connection errors wait with
 * exponential backoff and jitter, or as long as Retry-After says; after the give-up window the
 * updates become dead letters. Other 4xx are dead letters at once. All of it is stored in the
 * outbox, so a restarted process carries on where it stopped; an update whose answer was lost in a
 * crash is sent again (at least once, never out of order). On SQLite the deliveries that finish
 * together are recorded in one commit, at the latest 100 ms after the first of them finished
 * (`heldBatch`): that bounds what a crash sends again. On PostgreSQL each is recorded as soon as it
 * is done, in one statement.
 *
 * What an answer says about the report itself (`reportKnown`, the platform-first decision in
 * policy.ts) is recorded with it through `recordAnswer`: the first 2xx lets the invitation e-mail
 * go, a 404 before any 2xx cancels the invitation.
 */
export function deliveryWorker(deps: DeliveryWorkerDeps) {
  const { outbox, clock, logger, dispatcher, platforms } = deps;
  const timeouts = deps.timeouts ?? DELIVERY_TIMEOUTS;
  const random = deps.random ?? Math.random;
  const concurrency = deps.concurrency ?? DELIVERY_CONCURRENCY;
  let nextPruneAt = Number.NEGATIVE_INFINITY;
  /** Aborted by `stop`: requests in flight are abandoned. */
  const abandon = new AbortController();

  type Sent =
    | { kind: 'answer'; status: number; retryAfter: string | string[] | undefined; body: string }
    | { kind: 'error'; error: string }
    | { kind: 'stopped' };

  async function send(request: DeliveryRequest): Promise<Sent> {
    const url = new URL(request.url);
    // Ended by a last bound on the whole exchange, in case a server trickles its body forever, or
    // by `stop`. A timer cleared and a listener removed once the exchange is over: with
    // AbortSignal.timeout, whose timer cannot be cleared, and AbortSignal.any, every delivery left
    // a timer and two signals alive for the whole bound (25 s), 50,000 of each at 2,000
    // deliveries a second, and cost some 50 µs to make.
    const exchange = new AbortController();
    let timedOut = false;
    const overall = setTimeout(() => ((timedOut = true), exchange.abort()), timeouts.connectMs + timeouts.headersMs + timeouts.bodyMs).unref();
    const abandoned = () => exchange.abort();
    abandon.signal.addEventListener('abort', abandoned);
    try {
      const res = await dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: request.method,
        headers: { accept: 'application/json', 'user-agent': USER_AGENT, ...request.headers },
        body: request.body,
        headersTimeout: timeouts.headersMs,
        bodyTimeout: timeouts.bodyMs,
        signal: exchange.signal,
      });
      const text = await readSome(res.body);
      return { kind: 'answer', status: res.statusCode, retryAfter: res.headers['retry-after'], body: text };
    } catch (err) {
      if (abandon.signal.aborted) return { kind: 'stopped' };
      return { kind: 'error', error: timedOut ? 'timed out' : describe(err) };
    } finally {
      clearTimeout(overall);
      abandon.signal.removeEventListener('abort', abandoned);
    }
  }

  /**
   * The request for a report's merged update, from its invitation's platform: undefined when there
   * is none to send, a string saying why when it cannot be made — now (`later`: the platform threw
   * `DeliveryNotYet`, and it is retried), or ever.
   */
  async function requestFor(
    stored: StoredTarget & { platform: string },
    body: InvitationUpdate,
  ): Promise<{ platform?: Platform; target: DeliveryTarget; request: DeliveryRequest | string | undefined; later?: boolean }> {
    const target: DeliveryTarget & { platform: string } = {
      ...stored,
      credential: async () => deps.connections?.credential(stored.accountId, stored.platform),
    };
    const platform = platforms.get(target.platform);
    if (!platform) return { target, request: `No platform named "${target.platform}" is configured: the invitation was sent by one this partner no longer speaks` };
    try {
      return { platform, target, request: await platform.deliveryRequest(target, body) };
    } catch (err) {
      // What the platform needs to make the request is unusable (a stored credential that no longer decrypts).
      const message = `The request could not be made${err instanceof DeliveryNotYet ? ' now' : ''}: ${err instanceof Error ? err.message : String(err)}`;
      return { platform, target, request: message.slice(0, 500), later: err instanceof DeliveryNotYet };
    }
  }

  function waitingReasons(): string | undefined {
    const reasons = [...platforms.values()].flatMap((p) => p.deliveriesWaiting?.() ?? []);
    return reasons.length > 0 ? reasons.join('; ') : undefined;
  }

  const inHand = claimsInHand<number>((ids) => outbox.release(ids));

  /**
   * What became of one delivery, to record: `write` records it (in `tx` when given, a transaction
   * holding other deliveries' records) and resolves with what `recordAnswer` said; `recorded`
   * counts it, logs a failure and tells `onRecorded`, once it has committed.
   */
  interface Done {
    head: QueuedUpdate;
    outcome: 'delivered' | 'dead' | 'retry';
    write: (tx?: Sql) => Promise<boolean | undefined>;
    recorded: (changed: boolean | undefined) => void;
  }

  /**
   * Records what became of deliveries that finished together, and tells of each once committed: on
   * SQLite in one transaction (`inOneCommit`), one commit for them all; with one log line naming
   * the reports delivered (a failure was logged on its own). A record the database refuses undoes
   * the batch, which is then recorded a delivery at a time, so that it does not undo the others;
   * what it threw is thrown once they are recorded. A batch of one is its record alone: on
   * PostgreSQL, where every delivery is recorded as soon as it is done, one statement.
   */
  async function record(done: readonly Done[]): Promise<void> {
    const together = outbox.inOneCommit;
    const batch =
      together && done.length > 1
        ? await together(async (tx) => {
            const changed: (boolean | undefined)[] = [];
            for (const d of done) changed.push(await d.write(tx));
            return changed;
          }).catch(() => undefined)
        : undefined;
    const reportIds: string[] = [];
    let failure: { error: unknown } | undefined;
    for (const [i, d] of done.entries()) {
      let changed: boolean | undefined;
      if (batch) changed = batch[i];
      else {
        try {
          changed = await d.write();
        } catch (error) {
          failure ??= { error };
          continue;
        }
      }
      inHand.settled(d.head.id);
      d.recorded(changed);
      if (d.outcome === 'delivered') reportIds.push(d.head.reportId);
    }
    if (reportIds.length > 0) logger.info({ reportIds }, reportIds.length === 1 ? 'report update delivered' : `${reportIds.length} report updates delivered`);
    if (failure) throw failure.error;
  }

  /**
   * Delivers a head and the report's newer updates: what to record; `settled` when there was nothing
   * to send (superseded, recorded already) or it changed since it was claimed, `stopped` when stopped
   * before the answer came.
   */
  async function deliver(head: QueuedUpdate, run: DeliveryRun): Promise<Done | 'settled' | 'stopped'> {
    const { pending: rows, newer, target } = await outbox.toDeliver(head);
    // Changed since it was picked (canceled, delivered), or erased.
    if (rows[0]?.id !== head.id || !target) return 'settled';
    const ids = rows.map((r) => r.id);
    const body = mergeUpdates(rows.map((r) => withoutFieldsSetBy(r.body, newer.filter((d) => d.id > r.id).map((d) => d.body))));
    if (isEmptyUpdate(body)) {
      await outbox.supersede(ids);
      run.superseded += ids.length;
      return 'settled';
    }

    const { platform, request, target: delivering, later } = await requestFor(target, body);
    if (request === undefined) {
      // Nothing this platform hears of (Greenhouse is told of a completion only).
      await outbox.supersede(ids);
      run.superseded += ids.length;
      return 'settled';
    }
    const startedAt = clock.now();
    const started = performance.now();
    const sent: Sent = typeof request === 'string' ? { kind: 'error', error: request } : await send(request);
    if (sent.kind === 'stopped') return 'stopped'; // shutting down: the updates stay pending, untouched
    const attempt: Omit<DeliveryAttempt, 'id'> = {
      reportId: head.reportId,
      firstUpdateId: ids[0]!,
      lastUpdateId: ids[ids.length - 1]!,
      requestBody: typeof request === 'string' ? '' : (request.body ?? ''),
      responseStatus: sent.kind === 'answer' ? sent.status : null,
      responseBody: sent.kind === 'answer' ? sent.body : null,
      error: sent.kind === 'error' ? sent.error : null,
      outcome: 'retry',
      nextAttemptAt: null,
      startedAt: isoAt(startedAt),
      durationMs: Math.round(performance.now() - started),
    };
    const log = { reportId: head.reportId, updates: ids, status: attempt.responseStatus, error: attempt.error };

    // The platform judges its answer where the status alone does not say (a 200 with `success: false`).
    const verdict =
      sent.kind === 'answer' && typeof request !== 'string'
        ? ((await platform?.judgeAnswer?.({ status: sent.status, body: sent.body, request }, delivering)) ?? {})
        : {};
    // A request that cannot be made will not become possible by waiting, unless the platform said it may.
    const outcome = verdict.outcome ?? (sent.kind === 'answer' ? outcomeOf(sent.status) : typeof request === 'string' && !later ? 'dead' : 'retry');
    const known = verdict.report;
    const reason =
      sent.kind === 'answer' ? `HTTP ${sent.status}${verdict.reason ? `: ${verdict.reason.slice(0, 300)}` : errorOf(sent.body)}` : sent.error;
    /** What the answer means for the invitation, recorded with the attempt: one statement with it on PostgreSQL. */
    const answered = (answer: { accepted: true } | { accepted: false; reason: string }): AlongWith<boolean> | undefined => {
      const recordAnswer = deps.recordAnswer;
      return recordAnswer && { oneStatement: true, run: (tx, prelude) => recordAnswer(tx, head.reportId, answer, prelude) };
    };
    const told = (changed: boolean | undefined, answer: { accepted: boolean }) => {
      if (changed) deps.onRecorded?.(answer);
    };
    if (outcome === 'delivered') {
      const after = typeof request === 'string' ? undefined : request.platformDataAfter;
      const accepted = answered({ accepted: true });
      // What the platform stored changes the same row as the acceptance: two statements, a transaction.
      const also: AlongWith<boolean | undefined> | undefined = after
        ? {
            run: async (tx) => {
              await outbox.replacePlatformData(tx, head.reportId, after);
              return accepted?.run(tx);
            },
          }
        : accepted;
      return {
        head,
        outcome,
        write: (tx) => outbox.delivered({ ...attempt, outcome }, ids, attempt.responseStatus!, also, tx),
        recorded: (changed) => {
          run.delivered += ids.length;
          told(changed, { accepted: true });
        },
      };
    }
    const now = clock.now();
    // Every update must have had its whole window: the newest one decides.
    const giveUpAt = Math.max(...rows.map((r) => Date.parse(r.giveUpAt)));
    if (outcome === 'dead' || now >= giveUpAt) {
      const error = outcome === 'dead' ? reason : `gave up after retrying since ${rows[0]!.createdAt}: ${reason}`;
      const unknown = known === 'unknown' ? answered({ accepted: false, reason }) : undefined;
      return {
        head,
        outcome: 'dead',
        write: (tx) => outbox.dead({ ...attempt, outcome: 'dead' }, ids, attempt.responseStatus, error, unknown, tx),
        recorded: (canceled) => {
          run.dead += ids.length;
          logger.warn({ ...log, error }, 'report update dead-lettered');
          if (canceled) logger.warn({ reportId: head.reportId, reason }, 'invitation canceled: the platform does not know the report');
          told(canceled, { accepted: false });
        },
      };
    }
    const wait =
      (sent.kind === 'answer' ? retryAfterMs(sent.retryAfter, now) : undefined) ?? backoffMs(head.attempts + 1, DELIVERY_RETRY, random);
    const nextAt = Math.min(now + wait, giveUpAt);
    return {
      head,
      outcome: 'retry',
      write: (tx) => outbox.retry({ ...attempt, outcome: 'retry', nextAttemptAt: isoAt(nextAt) }, ids, attempt.responseStatus, reason, nextAt, tx).then(() => undefined),
      recorded: () => {
        run.retried += ids.length;
        logger.warn({ ...log, error: reason, retryInMs: nextAt - now }, 'report update failed; will retry');
      },
    };
  }

  return {
    /**
     * Delivers everything that is due now; resolves when that is done, or once `stopping` (or
     * `stop`) has aborted and the requests in flight are settled: the rest stay pending. What is
     * queued meanwhile is the next run's (the change that queued it wakes the loop again).
     */
    async runOnce(stopping?: AbortSignal): Promise<DeliveryRun> {
      const stopped = () => stopping?.aborted === true || abandon.signal.aborted;
      const run: DeliveryRun = { delivered: 0, retried: 0, dead: 0, superseded: 0 };
      // Pruning scans the log: once an hour is plenty for a 30-day retention, and every run (there
      // is one after each queued update) would make each send pay for the whole table.
      if (clock.now() >= nextPruneAt) {
        await outbox.prune(DELIVERY_LOG_RETENTION_MS);
        nextPruneAt = clock.now() + PRUNE_EVERY_MS;
      }
      // A platform whose deliveries cannot go out yet (not registered) keeps its updates pending.
      const idle = [...platforms.values()].filter((p) => p.deliveriesWaiting?.() !== undefined);
      if (idle.length === platforms.size) return { ...run, waiting: waitingReasons() };
      // On SQLite the deliveries that finish together are recorded in one commit (`heldBatch`, at
      // the latest 100 ms after the first of them finished); on PostgreSQL each as soon as it is done.
      const signal = stopping ? AbortSignal.any([stopping, abandon.signal]) : abandon.signal;
      const held = outbox.inOneCommit ? heldBatch(record, { stopping: signal }) : undefined;
      const recorded = async (work: () => Promise<Done | undefined>) => {
        if (held) return held.add(work);
        const done = await work();
        if (done) await record([done]);
      };
      while (!stopped()) {
        const heads = await outbox.claimDueHeads(BATCH, deps.leaseMs, idle.map((p) => p.name));
        inHand.claimed(heads.map((head) => head.id));
        // Each head ends delivered, dead, superseded or scheduled later, so the loop ends. Updates
        // queued in the meantime woke this loop: it runs again once this run is over.
        try {
          await inParallel(heads, concurrency, stopped, (head) =>
            recorded(async () => {
              const done = await deliver(head, run);
              if (done === 'settled') inHand.settled(head.id);
              return typeof done === 'object' ? done : undefined;
            }),
          );
        } finally {
          // Recorded before the next claim, which must not find these heads pending again.
          await held?.flush();
        }
        // A claim that took fewer than it could took every update that was due.
        if (heads.length < BATCH) break;
      }
      return idle.length > 0 ? { ...run, waiting: waitingReasons() } : run;
    },

    /** When the next pending update falls due; undefined when none is pending. */
    nextDueAt: (): Promise<string | undefined> => outbox.nextDueAt(),

    /** Why deliveries to a platform cannot run, if they cannot. */
    waiting: waitingReasons,

    /**
     * Gives back the reports claimed and not settled (call once the runs have stopped): on
     * PostgreSQL, another instance, or this one restarted, delivers them at once rather than when
     * their lease runs out. A request abandoned in flight may then arrive twice (at least once).
     */
    release: () => inHand.release(),

    /** Abandons requests in flight (their updates stay pending) and runs no more. */
    stop(): void {
      abandon.abort();
    },
  };
}

/** `fn` for each item, at most `limit` at a time; no item is begun once `stopped()`. */
async function inParallel<T>(items: readonly T[], limit: number, stopped: () => boolean, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length && !stopped()) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

async function readSome(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size < STORED_RESPONSE_BYTES) chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, STORED_RESPONSE_BYTES);
}

/** `: <error>` from a JSON error body, for the log and the dashboard. */
function errorOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    return typeof parsed.error === 'string' ? `: ${parsed.error.slice(0, 300)}` : '';
  } catch {
    return '';
  }
}

/** "UND_ERR_HEADERS_TIMEOUT: Headers Timeout Error" — the code first, it is what one searches for. */
function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : undefined;
  const message = typeof e.cause?.message === 'string' && e.cause.message ? e.cause.message : typeof e.message === 'string' ? e.message : String(err);
  return (code ? `${code}: ${message}` : message).slice(0, 500);
}
