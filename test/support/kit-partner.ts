import type { Clock } from '../../src/lib/clock.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { loadConfig } from '../../src/partner/config.js';
import { openDb } from '../../src/partner/db/open.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { main } from '../../src/partner/server.js';

/**
 * The kit's partner as `npm start` runs it, in this process, on a port the system picks, over a
 * fresh database in a temporary folder (or over `databasePath`, which is then left in place);
 * `env` adds settings (PLATFORM_URL, WEBHOOK_SECRETS …).
 */
export async function startKitPartner(env: Record<string, string> = {}, options: { databasePath?: string; clock?: Clock } = {}) {
  const dir = options.databasePath ? undefined : mkdtempSync(path.join(tmpdir(), 'kit-partner-'));
  const dbFile = options.databasePath ?? path.join(dir!, 'partner.db');
  const running = await main(loadConfig({ DATABASE_PATH: dbFile, PORT: '0', LOG_LEVEL: 'silent', ...env }), { pollIntervalMs: 100, ...(options.clock && { clock: options.clock }) });
  // A second connection to the partner's file, where a test creates the customer accounts it needs.
  const db = openDb(dbFile);
  const accounts = accountStore(db, systemClock);
  return {
    url: running.publicUrl,
    port: (running.server.address() as AddressInfo).port,
    server: running.server,
    /** A customer account with these tests: its token and the tests' ids. */
    customer(name: string, tests: string[] = []) {
      const { account, token } = accounts.create(name);
      return { token, tests: addDemoTests(db, systemClock, account.id, tests) };
    },
    async close() {
      await running.close();
      db.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
export type KitPartner = Awaited<ReturnType<typeof startKitPartner>>;
