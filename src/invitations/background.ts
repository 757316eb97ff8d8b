import type { Logger } from '../http/logger.js';

export interface BackgroundLoop {
  /** Asks for a run soon; kicks while a run is queued are folded into it. */
  kick(): void;
  /** No more runs; resolves when the current one has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `run` one at a time: when kicked (something was just queued) and every `intervalMs` (to
 * pick up retries whose time has come, and work another process queued). A failed run is logged,
 * and the next kick or tick tries again: the work itself is in the database.
 */
export function backgroundLoop(name: string, run: () => Promise<unknown>, options: { logger: Logger; intervalMs: number }): BackgroundLoop {
  let chain: Promise<void> = Promise.resolve();
  let queued = false;
  let stopped = false;
  const kick = () => {
    if (stopped || queued) return;
    queued = true;
    chain = chain
      .then(async () => {
        queued = false;
        if (!stopped) await run();
      })
      .catch((err: unknown) => options.logger.error({ err, loop: name }, 'background work failed'));
  };
  const timer = setInterval(kick, options.intervalMs);
  return {
    kick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await chain;
    },
  };
}
