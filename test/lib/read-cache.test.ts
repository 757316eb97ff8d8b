import { describe, expect, it } from 'vitest';
import { readCache } from '../../src/lib/perf/read-cache.js';
import { sqliteSql, type Sql } from '../../src/lib/sql.js';
import { openDb } from '../../src/partner/db/open.js';

/** A cache over a fresh partner database, and a loader that counts the reads it was asked for. */
function counted(max: number) {
  const sql = sqliteSql(openDb(':memory:'));
  const cache = readCache<number, string>(sql, { max });
  const loads: number[] = [];
  const load = async (key: number) => (loads.push(key), key < 0 ? undefined : `value ${key}`);
  return { sql, cache, get: async (key: number) => cache.get(key, load), loads };
}

describe('readCache', () => {
  it('reads a key from the database on its first two uses, and from memory from then on', async () => {
    const { get, loads } = counted(10);
    for (let i = 0; i < 5; i++) expect(await get(7)).toBe('value 7');
    expect(loads).toEqual([7, 7]);
  });

  it('does not keep what was not found: an unknown key is read again each time', async () => {
    const { get, loads } = counted(10);
    for (let i = 0; i < 3; i++) expect(await get(-1)).toBeUndefined();
    expect(loads).toEqual([-1, -1, -1]);
  });

  it('forgets everything when the tables it caches are written to, from this connection or another', async () => {
    const { sql, get, loads } = counted(10);
    await get(7);
    await get(7);
    await get(7);
    expect(loads).toHaveLength(2);
    await sql.run("INSERT INTO accounts (name, created_at) VALUES ('Acme', '2026-11-23T00:00:00.000Z')");
    expect(await get(7)).toBe('value 7');
    expect(loads).toHaveLength(3);
  });

  it('keeps a working set that fits: after two rounds, a third reads nothing', async () => {
    const { cache, get, loads } = counted(100);
    for (let round = 0; round < 3; round++) for (let key = 0; key < 100; key++) await get(key);
    expect(loads).toHaveLength(200);
    expect(cache.size).toBe(100);
  });

  it('when more keys take turns than it holds, it reads each from the database and keeps none, rather than evicting every entry before its next use', async () => {
    const { cache, get, loads } = counted(100);
    // 1,000 keys in turn through a cache of 100: no key comes back before 900 others.
    for (let round = 0; round < 3; round++) for (let key = 0; key < 1000; key++) await get(key);
    expect(loads).toHaveLength(3000);
    expect(cache.size).toBe(0);
    // The keys that do come back soon are still cached, on their second miss, as ever.
    await get(5000);
    await get(5000);
    await get(5000);
    expect(loads.filter((k) => k === 5000)).toHaveLength(2);
    expect(cache.size).toBe(1);
  });

  it('when more keys come back than it holds, it keeps the same ones every round instead of evicting each before its turn', async () => {
    const { cache, get, loads } = counted(100);
    // 200 keys in turn, twice what it holds, each back after 199 others: well within its window.
    const round = async () => {
      const before = loads.length;
      for (let key = 0; key < 200; key++) expect(await get(key)).toBe(`value ${key}`);
      return loads.length - before;
    };
    expect([await round(), await round()]).toEqual([200, 200]);
    // From then on, 100 of them are read from memory every round, the same 100.
    expect([await round(), await round(), await round()]).toEqual([100, 100, 100]);
    expect(cache.size).toBe(100);
    expect(new Set(loads.slice(-200))).toEqual(new Set(Array.from({ length: 100 }, (_, i) => 100 + i)));
  });

  it('makes room for new keys once the ones it holds are no longer read', async () => {
    const { cache, get, loads } = counted(100);
    const round = async (from: number) => {
      const before = loads.length;
      for (let key = from; key < from + 100; key++) await get(key);
      return loads.length - before;
    };
    for (let i = 0; i < 3; i++) await round(0);
    expect(await round(0)).toBe(0);
    // The customers change: keys 1000–1099 from now on, and keys 0–99 are never read again.
    const afterwards: number[] = [];
    for (let i = 0; i < 8; i++) afterwards.push(await round(1000));
    expect(afterwards.slice(-2)).toEqual([0, 0]);
    expect(cache.size).toBe(100);
    expect(await round(0)).toBe(100);
  });

  it('refuses a size it cannot work with, rather than failing on first use', async () => {
    const sql = sqliteSql(openDb(':memory:'));
    for (const max of [0, -1, 1.5, Number.NaN]) expect(() => readCache(sql, { max })).toThrow(/max must be a whole number of entries, at least 1/);
    const one = readCache<number, string>(sql, { max: 1 });
    for (const key of [1, 1, 2, 2, 1]) expect(await one.get(key, async (k) => `value ${k}`)).toBe(`value ${key}`);
    expect(one.size).toBe(1);
  });

  it('on PostgreSQL (a Sql without `sqlite`), keeps nothing: every use loads', async () => {
    // Other instances write there too, and it has no change counter to read: it never queries.
    const unused = () => {
      throw new Error('readCache queried the database');
    };
    const postgres: Sql = { dialect: 'postgres', all: unused, get: unused, run: unused, exec: unused, transaction: unused };
    const cache = readCache<number, string>(postgres, { max: 10 });
    const loads: number[] = [];
    for (let i = 0; i < 5; i++) expect(await cache.get(7, async (k) => (loads.push(k), `value ${k}`))).toBe('value 7');
    expect(loads).toEqual([7, 7, 7, 7, 7]);
    expect(cache.size).toBe(0);
  });
});
