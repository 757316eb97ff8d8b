import type { Sql } from '../sql.js';

/**
 * A bounded in-memory cache of reads from the accounts, tokens and tests tables. Triggers bump
 * `read_cache_generation` on every write to those tables, from any connection or process (the
 * accounts CLI revoking a token, a seed adding tests); the cache reads that one-row counter on each
 * use — one step of a prepared statement, far cheaper than the queries it saves — and empties
 * itself when it moved. Nothing that writes has to remember to invalidate anything.
 *
 * What it keeps is chosen for customers that come back, counted in reads (calls to `get`), with a
 * window of four times `max`:
 * - A key enters on a miss only if it was also missed within the window. Customers calling in
 *   turn, more than it holds and none back within the window, never enter: an entry evicted before
 *   its next use would cost the query and the garbage it leaves, twice the cost of no cache.
 * - When full, a new key takes the place of the oldest entry only if that entry was not read within
 *   the window; otherwise the oldest is kept (moved to the back) and the new key is not kept. Customers
 *   that come back within the window, more of them than it holds, then find the same `max` of them
 *   cached every time, instead of each evicting another before its turn comes round; and entries
 *   nobody reads any more make room within one window.
 *
 * On PostgreSQL it keeps nothing: other instances write too, and a query there costs no more than
 * the round trip the cache's counter would need.
 */
export function readCache<K, V>(sql: Sql, options: { max: number }) {
  if (!Number.isInteger(options.max) || options.max < 1) throw new RangeError(`readCache: max must be a whole number of entries, at least 1 (got ${options.max})`);
  if (!sql.sqlite) return { get: (key: K, load: (key: K) => Promise<V | undefined>) => load(key), size: 0 };
  const generation = sql.sqlite.prepare<[], number>('SELECT n FROM read_cache_generation').pluck();
  let seen = generation.get();
  const window = 4 * options.max;
  /** Oldest first, each with the read at which it was last used. */
  const entries = new Map<K, { value: V; readAt: number }>();
  let reads = 0;
  /** Keys missed within the window: those of the last half-window, and of the one before. */
  let missed = new Set<K>();
  let missedBefore = new Set<K>();

  return {
    /**
     * The cached value, or `load(key)`, kept by the rules above (misses are not cached). A hit is
     * returned as it is, not as a promise: `await` takes either.
     */
    get(key: K, load: (key: K) => Promise<V | undefined>): V | Promise<V | undefined> | undefined {
      const now = generation.get();
      if (now !== seen) {
        seen = now;
        entries.clear();
      }
      if (++reads % (window / 2) === 0) {
        missedBefore = missed;
        missed = new Set();
      }
      const hit = entries.get(key);
      if (hit !== undefined) {
        hit.readAt = reads;
        return hit.value;
      }
      const at = reads;
      return load(key).then((value) => {
        if (value === undefined || generation.get() !== now) return value; // a write came in while it was read
        if (!missed.has(key) && !missedBefore.has(key)) {
          missed.add(key);
          return value;
        }
        if (entries.has(key)) return value; // another read of the same key got there first
        if (entries.size >= options.max) {
          // Map keeps insertion order: the first entry is the oldest.
          const [oldestKey, oldest] = entries.entries().next().value!;
          entries.delete(oldestKey);
          if (oldest.readAt > at - window) {
            entries.set(oldestKey, oldest);
            return value;
          }
        }
        entries.set(key, { value, readAt: at });
        return value;
      });
    },
    /** How many values it holds. */
    get size(): number {
      return entries.size;
    },
  };
}
