import type { IncomingMessage, Server, ServerResponse } from 'node:http';

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
