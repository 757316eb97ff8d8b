import type { Clock } from '../../lib/clock.js';
import type { Sql } from '../../lib/sql.js';

/**
 * [kit decision] How long a claimed item of background work (an invitation to start, an e-mail, a
 * report's updates) is held by the instance that claimed it: JOB_LEASE_SECONDS, 120 s by default.
 * Longer than any one item takes (a provider's start, an SMTP send, a delivery with its timeouts),
 * or another instance would take it over while it is still being worked on.
 */
export const DEFAULT_JOB_LEASE_MS = 120_000;

/**
 * Until when a claim made now holds. On PostgreSQL, until the lease runs out: an instance that dies
 * holding items leaves them to another once it has. On SQLite, one process works on the database,
 * and each run records what it did before it looks for more: a claim needs no lease there, and
 * what a crash left half done is due again the moment the process restarts.
 */
export function leaseUntil(sql: Pick<Sql, 'dialect'>, clock: Clock, leaseMs: number): number {
  return sql.dialect === 'postgres' ? clock.now() + leaseMs : clock.now();
}
