import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '../../lib/http/logger.js';

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
 * pick up retries whose time has come, and work another process queued). A failed run is logged,
 * and the next kick or tick tries again: the work itself is in the database. `run` gets the
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
  const stopping = new AbortController();
  const kick = () => {
    if (stopping.signal.aborted || queued) return;
    queued = true;
    chain = chain
      .then(async () => {
        queued = false;
        if (!stopping.signal.aborted) await run(stopping.signal);
      })
      .catch((err: unknown) => options.logger.error({ err, loop: name }, 'background work failed'));
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
export function heldBatch<T>(record: (items: T[]) => void, options: { maxHoldMs?: number; stopping?: AbortSignal } = {}) {
  const maxHoldMs = options.maxHoldMs ?? 100;
  let items: T[] = [];
  /** Items whose work is under way. */
  let working = 0;
  /** When the open batch's first item's work began; undefined while no batch is open. */
  let openedAt: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** What a flush made by the timer threw: the run hears of it at its next `add` or `flush`. */
  let failure: { error: unknown } | undefined;

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    // Work that began before this flush belongs to the next batch, which opens now.
    openedAt = working > 0 ? performance.now() : undefined;
    if (failure) {
      const { error } = failure;
      failure = undefined;
      throw error;
    }
    if (items.length === 0) return;
    const batch = items;
    items = [];
    record(batch);
  };
  const flushOnTime = () => {
    try {
      flush();
    } catch (error) {
      failure = { error };
    }
  };

  return {
    /** Runs one item's work and keeps what it returns for the batch (undefined: nothing to record). */
    async add(work: () => Promise<T | undefined>): Promise<void> {
      if (failure) flush(); // throws it
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
      if (options.stopping?.aborted || held >= maxHoldMs) flush();
      else if (items.length > 0) timer ??= setTimeout(flushOnTime, maxHoldMs - held);
    },
    flush,
  };
}

/** Between two items of background work: resolves when the next item may run. */
export type Pause = () => Promise<void>;

/** The plain pause: one turn of the event loop, so waiting I/O is handled between items. */
export const nextTurn: Pause = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A pause that puts the platform's requests first. While the server is answering requests, the
 * items of background work (starting an invitation, sending an e-mail) get one slot every
 * `busyPauseMs`, shared by every loop that pauses here: the share of the event loop that
 * background work takes under a burst is bounded by the slots, not multiplied by the number of
 * loops. An item costs well under a millisecond, so the callbacks keep nine tenths of the event
 * loop or more, and even a server that is never idle still starts and mails about a hundred
 * invitations a second: the pause bounds the share, it never stops the work.
 *
 * A server is idle, and runs the items back to back, once no request has been in flight for
 * `quietMs`. Not at once: answers go out in bursts (send_candidate's group commit answers a turn's
 * sends together), and the platform's next requests are on their way while nothing is in flight;
 * an item started in that gap would hold them up.
 *
 * The platform times callbacks out after 10 seconds (platform-contract.md); a candidate's e-mail
 * a few seconds late is harmless. That is the trade.
 */
export function requestsFirst(server: Server, { busyPauseMs = 5, quietMs = 1 } = {}): Pause {
  let inFlight = 0;
  let lastAnswered = 0;
  /** When the next slot for background work opens while the server is busy. */
  let nextSlot = 0;
  const done = () => {
    inFlight -= 1;
    lastAnswered = performance.now();
  };
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight += 1;
    // 'close' comes for every response: sent, failed or abandoned by the client.
    res.once('close', done);
  });
  return () => {
    const now = performance.now();
    if (inFlight === 0 && now - lastAnswered >= quietMs) return nextTurn();
    nextSlot = Math.max(nextSlot, now) + busyPauseMs;
    return new Promise((resolve) => setTimeout(resolve, nextSlot - now));
  };
}
