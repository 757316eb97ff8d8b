import type { Clock } from '../../src/lib/clock.js';
import type { Sql } from '../../src/lib/sql.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { loadConfig } from '../../src/partner/config.js';
import { discardDatabase, freshDatabase, openTestDatabase } from './database.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { main } from '../../src/partner/server.js';

/**
 * The kit's partner as `npm start` runs it, in this process, on a port the system picks, over a
 * fresh database (or over `database`, which is then left in place);
 * `env` adds settings (PLATFORM_URL, WEBHOOK_SECRETS …).
 */
export async function startKitPartner(env: Record<string, string> = {}, options: { database?: { DATABASE_PATH: string; DATABASE_URL?: string }; clock?: Clock } = {}) {
  const dir = options.database ? undefined : mkdtempSync(path.join(tmpdir(), 'kit-partner-'));
  const settings = options.database ?? (await freshDatabase(dir!, 'demo'));
  const config = loadConfig({ ...settings, PORT: '0', LOG_LEVEL: 'silent', ...env });
  // The partner's own connection, where a test creates the customer accounts it needs. (A second
  // connection in this process would deadlock on SQLite: the partner's write waiting on the test's
  // open transaction sleeps the thread for busy_timeout, and with it the test that would commit.)
  let partnerSql: Sql | undefined;
  const own = (sql: Sql) => (partnerSql = sql);
  const running = await main(config, { pollIntervalMs: 100, sql: own, ...(options.clock && { clock: options.clock }) });
  // A second connection, for reading what the partner stored after it stopped.
  const database = await openTestDatabase(config);
  const accounts = accountStore(partnerSql!, systemClock);
  return {
    /** Where its data is: a restart passes it as `database`. */
    database: settings,
    sql: database.sql,
    url: running.publicUrl,
    port: (running.server.address() as AddressInfo).port,
    server: running.server,
    /**
     * The partner's own connection: where a test writes while the partner runs (a transaction on
     * `sql`, the second connection, would deadlock with the partner's writes on SQLite, above).
     */
    ownSql: partnerSql!,
    /** A customer account with these tests: its token and the tests' ids. */
    async customer(name: string, tests: string[] = []) {
      return partnerSql!.transaction(async (tx) => {
        const { account, token } = await accounts.create(name, tx);
        return { token, tests: await addDemoTests(tx, systemClock, account.id, tests) };
      });
    },
    async close() {
      await running.close();
      // A database it was given (a restart's) stays for whoever gave it.
      if (dir) await discardDatabase(database, settings, dir);
      else await database.close();
    },
  };
}
export type KitPartner = Awaited<ReturnType<typeof startKitPartner>>;
