import { createHash } from 'node:crypto';
import type { Clock } from '../../../lib/clock.js';
import { isoAt } from '../../../lib/clock.js';
import type { Sql } from '../../../lib/sql.js';
import { backoffMs } from '../../jobs/backoff.js';
import type { ProviderTest } from '../../provider/types.js';
import type { PlatformContext } from '../platform.js';
import type { BobApi } from './api-client.js';
import { HIBOB } from './tokens.js';
import type { BobPackage } from './wire.js';

/** [kit decision] How often a registered catalog is compared with the account's listing (docs/hibob.md §4). */
export const CATALOG_CHECK_MS = 5 * 60_000;
/** A registration Bob refused or could not take is tried again after about 30 s, twice as long each time, up to an hour. */
const CATALOG_RETRY = { baseMs: 30_000, maxMs: 60 * 60_000 };
const BATCH = 50;

/** A catalog to register or check: one installed company's. */
interface Due {
  accountId: number;
  companyId: string;
  attempts: number;
  registeredHash: string | null;
}

export type CatalogQueue = ReturnType<typeof catalogQueue>;

/**
 * The `hibob_catalog` table: each connected account's catalog as last registered with Bob (its
 * hash), and when it is due to be registered or checked again. Durable: a partner restarted while
 * Bob is down registers when Bob is back.
 */
export function catalogQueue(sql: Sql, clock: Clock) {
  const now = () => isoAt(clock.now());
  return {
    /** Due now (an install): registered again whatever Bob had, since a new install may start from nothing. */
    async install(tx: Sql, accountId: number, companyId: string): Promise<void> {
      await tx.run(
        `INSERT INTO hibob_catalog (account_id, company_id, next_attempt_at, installed_at) VALUES ($1, $2, $3, $3)
         ON CONFLICT (account_id) DO UPDATE SET company_id = $2, next_attempt_at = $3, attempts = 0, last_error = NULL,
                                                registered_hash = NULL, installed_at = $3`,
        [accountId, companyId, now()],
      );
    },

    async due(limit: number): Promise<Due[]> {
      const rows = await sql.all<{ account_id: number; company_id: string; attempts: number; registered_hash: string | null }>(
        'SELECT account_id, company_id, attempts, registered_hash FROM hibob_catalog WHERE next_attempt_at <= $1 ORDER BY next_attempt_at, account_id LIMIT $2',
        [now(), limit],
      );
      return rows.map((r) => ({ accountId: r.account_id, companyId: r.company_id, attempts: r.attempts, registeredHash: r.registered_hash }));
    },

    /** Takes the row until `leaseUntil`; false when another run, here or on another instance, has it. */
    async claim(accountId: number, leaseUntil: number): Promise<boolean> {
      const claimed = await sql.run('UPDATE hibob_catalog SET next_attempt_at = $1 WHERE account_id = $2 AND next_attempt_at <= $3', [
        isoAt(leaseUntil),
        accountId,
        now(),
      ]);
      return claimed.changes === 1;
    },

    /** Registered (or found unchanged): checked again at `nextAt`. */
    async settled(accountId: number, hash: string, registered: boolean, nextAt: number): Promise<void> {
      await sql.run(
        `UPDATE hibob_catalog SET registered_hash = $1, next_attempt_at = $2, attempts = 0, last_error = NULL, checked_at = $3
                                 ${registered ? ', registered_at = $3' : ''}
          WHERE account_id = $4`,
        [hash, isoAt(nextAt), now(), accountId],
      );
    },

    async failed(accountId: number, error: string, nextAt: number): Promise<void> {
      await sql.run('UPDATE hibob_catalog SET attempts = attempts + 1, last_error = $1, next_attempt_at = $2, checked_at = $3 WHERE account_id = $4', [
        error.slice(0, 500),
        isoAt(nextAt),
        now(),
        accountId,
      ]);
    },

    /** When the next catalog falls due; undefined when none is kept. */
    async nextDueAt(): Promise<string | undefined> {
      return (await sql.get<{ at: string | null }>('SELECT min(next_attempt_at) AS at FROM hibob_catalog'))?.at ?? undefined;
    },
  };
}

/**
 * [kit decision] The account's tests as Bob's packages: each test's id (as text) and name, trimmed;
 * a test whose id or name is blank is left out, and an id listed twice is taken once (Bob refuses
 * the whole catalog for either). No description: the provider's listing has none.
 */
export function packagesOf(tests: readonly ProviderTest[]): BobPackage[] {
  const seen = new Set<string>();
  const packages: BobPackage[] = [];
  for (const test of tests) {
    const id = String(test.id).trim();
    const name = test.name.trim();
    if (!id || !name || seen.has(id)) continue;
    seen.add(id);
    packages.push({ id, name });
  }
  return packages;
}

/** What a registration is compared by: the SHA-256 of the packages as they would be sent. */
export const catalogHash = (packages: readonly BobPackage[]): string => createHash('sha256').update(JSON.stringify(packages)).digest('hex');

/**
 * Registers each installed company's catalog with Bob (docs/hibob.md §4): right after the install,
 * then whenever the account's listing (`provider.listTests`, as every platform lists an account's
 * tests) hashes otherwise than what was registered, checked every CATALOG_CHECK_MS; with the
 * company's own token. A registration that fails is retried with backoff (durably, in the row),
 * for as long as it fails: the catalog is what recruiters order from.
 */
export function catalogWorker(deps: { context: PlatformContext; api: BobApi; queue: CatalogQueue; leaseMs: number; random?: () => number }) {
  const { context, api, queue } = deps;
  const { core, provider, clock, logger } = context;
  const random = deps.random ?? Math.random;

  async function registerOne(row: Due): Promise<void> {
    const connection = await core.connections.get(row.accountId, HIBOB);
    const account = await core.accounts.find(row.accountId);
    if (!account || !connection?.hasCredential || connection.companyId !== row.companyId) {
      throw new Error(`the account ${row.accountId} has no Bob install of company ${row.companyId} now`);
    }
    const packages = packagesOf(await provider.listTests(account));
    const hash = catalogHash(packages);
    if (hash === row.registeredHash) return void (await queue.settled(row.accountId, hash, false, clock.now() + CATALOG_CHECK_MS));
    await api.registerPackages(row.accountId, row.companyId, packages);
    await queue.settled(row.accountId, hash, true, clock.now() + CATALOG_CHECK_MS);
    logger.info({ accountId: row.accountId, companyId: row.companyId, packages: packages.length }, 'catalog registered with Bob');
  }

  return {
    /** Registers or checks every catalog that is due; resolves with how many were settled. */
    async runOnce(stopping?: AbortSignal): Promise<number> {
      let settled = 0;
      for (let due = await queue.due(BATCH); due.length > 0 && !stopping?.aborted; due = await queue.due(BATCH)) {
        for (const row of due) {
          if (stopping?.aborted) break;
          if (!(await queue.claim(row.accountId, clock.now() + deps.leaseMs))) continue;
          try {
            await registerOne(row);
            settled += 1;
          } catch (err) {
            const attempt = row.attempts + 1;
            const retryInMs = backoffMs(attempt, CATALOG_RETRY, random);
            const message = err instanceof Error ? err.message : String(err);
            await queue.failed(row.accountId, message, clock.now() + retryInMs);
            logger.warn({ accountId: row.accountId, companyId: row.companyId, attempt, err: message, retryInMs }, 'catalog registration with Bob failed; will retry');
          }
        }
      }
      return settled;
    },
  };
}
