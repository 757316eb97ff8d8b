import type { Sql } from '../../lib/sql.js';

/**
 * [kit decision] How long a claimed item of background work (an invitation to start, a cancel to
 * tell the product of, an e-mail, a report's updates) is held by the instance that claimed it:
 * JOB_LEASE_SECONDS, 120 s by default. Longer than any one item takes (a provider's start or
 * cancel call, an SMTP send, a delivery with its timeouts), or another instance would take it over
 * while it is still being worked on.
 */
export const DEFAULT_JOB_LEASE_MS = 120_000;

/**
 * The query that claims due rows of `table`, with `$1` the time now, `$2` the end of the lease and
 * `$3` how many. On PostgreSQL, where several instances claim side by side, an UPDATE sets the lease
 * column (`lease`) of the rows it takes, passing over rows another instance is taking, and returns
 * them: an instance that dies holding them leaves them to another once the lease runs out. On
 * SQLite one process works on the database and each run records what it did before it looks for
 * more: the due rows are read as they are, and what a crash left half done is due again the moment
 * the process restarts. With `select`, the statement returns that query over the rows it claimed
 * (`claimed`), joined to what the work needs: the claim and the read in one round trip.
 */
export function claimQuery(
  sql: Pick<Sql, 'dialect'>,
  claim: { table: string; lease: string; from: string; alias: string; where: string; order: string; select?: string },
): string {
  const rows = `FROM ${claim.from} WHERE ${claim.where} ORDER BY ${claim.order} LIMIT $3`;
  const taken =
    sql.dialect === 'postgres'
      ? `UPDATE ${claim.table} SET ${claim.lease} = $2 WHERE id IN (SELECT ${claim.alias}.id ${rows} FOR UPDATE SKIP LOCKED) RETURNING *`
      : `SELECT ${claim.alias}.* ${rows}`;
  // `select`: what the worker reads with the rows it claims (from `claimed`), in the same statement.
  return claim.select ? `WITH claimed AS (${taken}) ${claim.select}` : taken;
}

/**
 * What a worker claimed and has not recorded yet. `release` (once its runs have stopped) gives it
 * back: on PostgreSQL another instance, or this one restarted, takes it at once rather than when
 * its lease runs out. `giveBack` makes the keys due again.
 */
export function claimsInHand<K>(giveBack: (keys: K[]) => Promise<void>) {
  const held = new Set<K>();
  return {
    claimed(keys: Iterable<K>): void {
      for (const key of keys) held.add(key);
    },
    settled(key: K): void {
      held.delete(key);
    },
    async release(): Promise<void> {
      const keys = [...held];
      held.clear();
      await giveBack(keys);
    },
  };
}
