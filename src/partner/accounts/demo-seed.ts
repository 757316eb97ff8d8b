import path from 'node:path';
import type { Db } from '../../lib/db.js';
import type { ProviderCatalog } from '../provider/types.js';
import type { AccountStore } from './store.js';

/**
 * Where the demo account's token is written: next to its database and named after it
 * (./data/partner.db → ./data/partner.db.demo-token), so two databases in one folder keep theirs.
 */
export function demoTokenFile(databasePath: string): string {
  return `${path.resolve(databasePath)}.demo-token`;
}

/**
 * Creates an account and adds `names` to its catalog through the provider's catalog hook. A
 * synchronous catalog (the demo's, in the kit's SQLite) commits with the account, in one
 * transaction; an asynchronous one (a product's API) is awaited after the account exists.
 */
export async function createAccountWithTests(
  db: Db,
  accounts: AccountStore,
  name: string,
  catalog: ProviderCatalog | undefined,
  names: readonly string[],
): Promise<{ accountId: number; token: string }> {
  let added: Promise<unknown> | undefined;
  const { account, token } = db.transaction(() => {
    const created = accounts.create(name);
    if (names.length > 0) {
      if (!catalog) throw new Error('This provider keeps its tests in its own product: it has no catalog to add tests to');
      const result = catalog.addTests(created.account.id, names);
      if (result instanceof Promise) added = result;
    }
    return created;
  })();
  await added;
  return { accountId: account.id, token };
}

/**
 * Creates the quick start's demo account (DEMO_SEED) once: it does nothing when the database
 * already has accounts. Its catalog gets the provider's sample tests, if it has a catalog. Returns
 * the new account's token (shown once), or undefined.
 */
export async function seedDemoAccount(
  db: Db,
  accounts: AccountStore,
  catalog: ProviderCatalog | undefined,
): Promise<{ accountId: number; token: string } | undefined> {
  const { n } = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM accounts').get()!;
  if (n > 0) return undefined;
  return createAccountWithTests(db, accounts, 'Demo customer', catalog, catalog?.sampleTests ?? []);
}
