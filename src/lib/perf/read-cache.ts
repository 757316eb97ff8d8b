import type { Db } from '../db.js';

/**
 * A bounded in-memory cache of reads from the accounts, tokens and tests tables. Triggers bump
 * `read_cache_generation` on every write to those tables, from any connection or process (the
 * accounts CLI revoking a token, a seed adding tests); the cache reads that one-row counter on each
 * use — one step of a prepared statement, far cheaper than the queries it saves — and empties
 * itself when it moved. Nothing that writes has to remember to invalidate anything.
 */
export function readCache<K, V>(db: Db, options: { max: number }) {
  const generation = db.prepare<[], number>('SELECT n FROM read_cache_generation').pluck();
  let seen = generation.get();
  const entries = new Map<K, V>();

  return {
    /** The cached value, or `load(key)`, stored unless it is undefined (misses are not cached). */
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
      // Map keeps insertion order: when full, forget the oldest entry.
      if (entries.size >= options.max) entries.delete(entries.keys().next().value!);
      entries.set(key, value);
      return value;
    },
  };
}
