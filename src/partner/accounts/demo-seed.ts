import path from 'node:path';
import { inTurn, type Sql } from '../../lib/sql.js';
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
 * Creates an account and adds `names` to its catalog through the provider's catalog hook, in one
 * transaction: a catalog in the kit's database (the demo's) stores its tests with the account, or
 * neither is stored.
 */
export async function createAccountWithTests(
  sql: Sql,
  accounts: AccountStore,
  name: string,
  catalog: ProviderCatalog | undefined,
  names: readonly string[],
): Promise<{ accountId: number; token: string }> {
  if (names.length > 0 && !catalog) throw new Error('This provider keeps its tests in its own product: it has no catalog to add tests to');
  return sql.transaction((tx) => createIn(tx, accounts, name, catalog, names));
}

async function createIn(tx: Sql, accounts: AccountStore, name: string, catalog: ProviderCatalog | undefined, names: readonly string[]) {
  const { account, token } = await accounts.create(name, tx);
  if (names.length > 0) await catalog!.addTests(account.id, names, tx);
  return { accountId: account.id, token };
}

/**
 * Creates the quick start's demo account (DEMO_SEED) once: it does nothing when the database
 * already has accounts. Its catalog gets the provider's sample tests, if it has a catalog. Returns
 * the new account's token (shown once), or undefined. Instances starting together seed once: the
 * check and the account are one transaction, which each takes in turn.
 */
export async function seedDemoAccount(
  sql: Sql,
  accounts: AccountStore,
  catalog: ProviderCatalog | undefined,
): Promise<{ accountId: number; token: string } | undefined> {
  return sql.transaction(async (tx) => {
    await inTurn(tx, 'demo seed');
    const { n } = (await tx.get<{ n: number }>('SELECT count(*) AS n FROM accounts'))!;
    if (n > 0) return undefined;
    return createIn(tx, accounts, 'Demo customer', catalog, catalog?.sampleTests ?? []);
  });
}
