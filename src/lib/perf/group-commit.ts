import type { Sql } from '../sql.js';

/**
 * Group commit, on SQLite: the writes asked for during one turn of the event loop run together at
 * the end of that turn, in one transaction, and each caller's promise settles once that
 * transaction has committed. Under load the platform's concurrent sends arrive in the same turn,
 * and a commit (the WAL append, and the checkpoint work it brings) is paid once for all of them
 * rather than once each; a lone request waits for nothing but the end of the turn it arrived in.
 *
 * Each write runs in its own savepoint: one that throws is rolled back alone and rejects its own
 * caller, and the others still commit. Writes in one group run in the order they were asked for
 * and see each other, so two sends of one report_id in the same turn are a create and a replay, as
 * they would be one after the other.
 *
 * On PostgreSQL each write runs at once, on its own: the server groups concurrent commits itself,
 * and one transaction holding rows of several requests could deadlock with another instance's.
 */
export function groupCommit<I, O>(sql: Sql, write: (tx: Sql, input: I) => Promise<O>): (input: I) => Promise<O> {
  if (!sql.sqlite) return (input) => write(sql, input);
  let queue: Waiting<I, O>[] = [];

  const flush = async () => {
    const group = queue;
    queue = [];
    let settled: Settled<O>[];
    try {
      settled = await sql.transaction(async (tx) => {
        const out: Settled<O>[] = [];
        for (const { input } of group) {
          try {
            out.push({ ok: true, value: await tx.transaction((one) => write(one, input)) });
          } catch (error) {
            out.push({ ok: false, error });
          }
        }
        return out;
      });
    } catch (error) {
      // The commit itself failed (a full disk, a lock held past the busy timeout): nothing was stored.
      for (const w of group) w.reject(error);
      return;
    }
    settled.forEach((s, i) => (s.ok ? group[i]!.resolve(s.value) : group[i]!.reject(s.error)));
  };

  return (input) =>
    new Promise<O>((resolve, reject) => {
      if (queue.length === 0) setImmediate(() => void flush());
      queue.push({ input, resolve, reject });
    });
}

interface Waiting<I, O> {
  input: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };
