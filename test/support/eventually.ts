// The real timers, taken before any test can install fake ones: waiting for something another
// process or a real server does must not depend on a fake clock being advanced.
const realSetTimeout = globalThis.setTimeout;
const realNow = performance.now.bind(performance);

export interface EventuallyOptions {
  /** What is being waited for, for the failure message. */
  what?: string;
  /** Give up after this long (default 2 min): an outer limit for a busy machine, not an expected time. */
  timeoutMs?: number;
  /** Between two tries (default 20 ms). */
  intervalMs?: number;
}

/**
 * Calls `fn` until it returns without throwing, and returns what it returned: put the expectation
 * inside (`eventually(() => expect(status()).toBe('canceled'))`), or throw when the value is not
 * there yet. Gives up after `timeoutMs` with the last error in the message. The one way the tests
 * wait for work that happens elsewhere (a background loop, another process, a browser).
 */
export async function eventually<T>(fn: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  const { what, timeoutMs = 120_000, intervalMs = 20 } = options;
  const deadline = realNow() + timeoutMs;
  let tries = 0;
  for (;;) {
    tries += 1;
    try {
      return await fn();
    } catch (err) {
      if (realNow() >= deadline) {
        const last = err instanceof Error ? err.message : String(err);
        const error = new Error(`Timed out after ${timeoutMs} ms (${tries} tries) waiting for ${what ?? 'the condition'}.\nLast error: ${last}`);
        error.cause = err;
        throw error;
      }
    }
    await new Promise((resolve) => realSetTimeout(resolve, intervalMs));
  }
}

/** For `eventually`: the value when it is defined, else an error naming what is missing. */
export function present<T>(value: T | undefined | null, what = 'value'): T {
  if (value === undefined || value === null) throw new Error(`no ${what} yet`);
  return value;
}
