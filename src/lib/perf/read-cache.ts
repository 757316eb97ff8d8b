import type { Db } from '../db.js';

/**
 * A bounded in-memory cache of reads from the accounts, tokens and tests tables. Triggers bump
 * `read_cache_generation` on every write to those tables, from any connection or process (the
 * accounts CLI revoking a token, a seed adding tests); the cache reads that one-row counter on each
 * use — one step of a prepared statement, far cheaper than the queries it saves — and empties
 * itself when it moved. Nothing that writes has to remember to invalidate anything.
 *
 * A key is kept from its second miss on, not its first. When more customers call than the cache
 * holds (100,000 accounts, each calling in turn), every entry would be evicted before its next
 * use: each miss would then pay for the query and for an entry that only makes garbage — twice
 * the cost of no cache at all. Kept on a second miss, such keys never enter, and each request
 * costs the query alone; customers that call again soon are cached after their second call.
 */
export function readCache<K, V>(db: Db, options: { max: number }) {
  const generation = db.prepare<[], number>('SELECT n FROM read_cache_generation').pluck();
  let seen = generation.get();
  const entries = new Map<K, V>();
  /** Keys missed once since this was last emptied (at `max` keys, so it stays bounded too). */
  const missedOnce = new Set<K>();

  return {
    /** The cached value, or `load(key)`, kept from the key's second miss on (misses are not cached). */
    get(key: K, load: (key: K) => V | undefined): V | undefined {
      const now = generation.get();
      if (now !== seen) {
        seen = now;
        entries.clear();
      }
      const hit = entries.get(key);
      if (hit !== undefined) return hit;
      const value = load(key);
      if (value === undefined) return undefined;
      if (!missedOnce.delete(key)) {
        if (missedOnce.size >= options.max) missedOnce.clear();
        missedOnce.add(key);
        return value;
      }
      // Map keeps insertion order: when full, forget the oldest entry.
      if (entries.size >= options.max) entries.delete(entries.keys().next().value!);
      entries.set(key, value);
      return value;
    },
    /** How many values it holds. */
    get size(): number {
      return entries.size;
    },
  };
}
