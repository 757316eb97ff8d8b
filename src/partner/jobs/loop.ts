import type { Logger } from '../../lib/http/logger.js';
import { backoffMs } from './backoff.js';

/**
 * How long a loop rests after failed runs in a row (the database unreachable, say): from one poll
 * interval, doubling, up to 10 s, so an outage logs a line per loop every few seconds rather than
 * every second, and the loops are back within 10 s of the database.
 */
const FAILED_RUN_BACKOFF = { maxMs: 10_000 };

export interface BackgroundLoop {
  /** Asks for a run soon; kicks while a run is queued are folded into it. */
  kick(): void;
  /**
   * No more runs; the current one is asked to stop between items (its signal aborts). Resolves
   * when it has: after the item in hand, not after all the work that is due.
   */
  stop(): Promise<void>;
}

/**
 * Runs `run` one at a time: when kicked (something was just queued) and every `intervalMs` (to
 * pick up retries whose time has come, and work another process queued). A failed run (a query
 * that failed, the database gone) is logged, and the loop rests before it tries again, longer
 * after each failure in a row (FAILED_RUN_BACKOFF): the work itself is in the database. `run` gets the
 * loop's `stopping` signal, and checks it between items: whatever it has not done stays in the
 * database for the next start.
 */
export function backgroundLoop(
  name: string,
  run: (stopping: AbortSignal) => Promise<unknown>,
  options: { logger: Logger; intervalMs: number },
): BackgroundLoop {
  let chain: Promise<void> = Promise.resolve();
  let queued = false;
  /** Failed runs in a row, and until when the loop rests after the last of them. */
  let failures = 0;
  let restingUntil = 0;
  const stopping = new AbortController();
  const kick = () => {
    if (stopping.signal.aborted || queued || performance.now() < restingUntil) return;
    queued = true;
    chain = chain
      .then(async () => {
        queued = false;
        if (stopping.signal.aborted) return;
        await run(stopping.signal);
        failures = 0;
      })
      .catch((err: unknown) => {
        failures += 1;
        const retryInMs = backoffMs(failures, { baseMs: options.intervalMs, maxMs: Math.max(options.intervalMs, FAILED_RUN_BACKOFF.maxMs) });
        restingUntil = performance.now() + retryInMs;
        options.logger.error({ err, loop: name, failures, retryInMs }, 'background work failed');
      });
  };
  const timer = setInterval(kick, options.intervalMs);
  return {
    kick,
    async stop() {
      stopping.abort();
      clearInterval(timer);
      await chain;
    },
  };
}

/**
 * What a run of background work did, recorded a batch at a time: `record` gets the batch and
 * writes it in one transaction, one commit for all of it rather than one per item. The run calls
 * `flush` at its end (before it looks for more work, which must not find these items again).
 * A batch is also recorded `maxHoldMs` after its first item's work began, even while other items
 * are still being worked on (items may run concurrently), so a slow or stuck provider or mail
 * server never holds back the record of what was already done. Once `stopping` aborts, each item
 * is recorded as soon as it is done: a shutdown that cannot wait for a stuck item has recorded
 * everything else. Recording is at least once: a crash before the commit redoes the batch's work.
 */
export function heldBatch<T>(record: (items: T[]) => Promise<void>, options: { maxHoldMs?: number; stopping?: AbortSignal } = {}) {
  const maxHoldMs = options.maxHoldMs ?? 100;
  let items: T[] = [];
  /** Items whose work is under way. */
  let working = 0;
  /** When the open batch's first item's work began; undefined while no batch is open. */
  let openedAt: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** The batches being recorded, one after the other; it never rejects (see `failure`). */
  let recording: Promise<void> = Promise.resolve();
  /** What recording a batch threw: the run hears of it at its next `add` or `flush`. */
  let failure: { error: unknown } | undefined;

  /** Closes the open batch and queues it for recording; resolves when it and those before are recorded. */
  const close = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    // Work that began before this flush belongs to the next batch, which opens now.
    openedAt = working > 0 ? performance.now() : undefined;
    const batch = items;
    items = [];
    if (batch.length > 0) recording = recording.then(() => record(batch)).catch((error: unknown) => void (failure ??= { error }));
    return recording;
  };
  const flush = async (): Promise<void> => {
    await close();
    if (failure) {
      const { error } = failure;
      failure = undefined;
      throw error;
    }
  };

  return {
    /** Runs one item's work and keeps what it returns for the batch (undefined: nothing to record). */
    async add(work: () => Promise<T | undefined>): Promise<void> {
      if (failure) await flush(); // throws it
      openedAt ??= performance.now();
      working += 1;
      let item: T | undefined;
      try {
        item = await work();
      } finally {
        working -= 1;
      }
      if (item !== undefined) items.push(item);
      const held = performance.now() - (openedAt ?? performance.now());
      if (options.stopping?.aborted || held >= maxHoldMs) await flush();
      else if (items.length > 0) timer ??= setTimeout(() => void close(), maxHoldMs - held);
    },
    /** Records what is held; resolves once every batch so far is recorded, or throws what recording one threw. */
    flush,
  };
}
