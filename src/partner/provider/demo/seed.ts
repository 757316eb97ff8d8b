import type { AccountStore } from '../../accounts/store.js';
import type { Clock } from '../../../lib/clock.js';
import type { PartnerKind } from '../../../contract/decisions.js';
import type { Db } from '../../../lib/db.js';
import path from 'node:path';
import { addDemoTests, DEMO_CATALOG } from './catalog.js';

/**
 * Where the demo account's token is written: next to its database and named after it
 * (./data/partner.db → ./data/partner.db.demo-token), so two databases in one folder keep theirs.
 */
export function demoTokenFile(databasePath: string): string {
  return `${path.resolve(databasePath)}.demo-token`;
}

/**
 * Creates the quick start's demo account with a handful of tests (or checks, for the check kinds),
 * once: it does nothing when the database already has accounts. Returns the new account's token
 * (shown once), or undefined.
 */
export function seedDemo(
  db: Db,
  clock: Clock,
  accounts: AccountStore,
  kind: PartnerKind = 'assessment',
): { accountId: number; token: string } | undefined {
  const { n } = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM accounts').get()!;
  if (n > 0) return undefined;
  return db.transaction(() => {
    const { account, token } = accounts.create('Demo customer');
    addDemoTests(db, clock, account.id, DEMO_CATALOG[kind]);
    return { accountId: account.id, token };
  })();
}
