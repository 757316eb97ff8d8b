import type { Account, AccountStore } from '../accounts/store.js';
import type { Provider, ProviderTest } from './types.js';

/**
 * The account a customer's token names and its tests, as every platform's test listing reads them;
 * undefined when the token names no account (malformed, unknown or revoked). A catalog kept in the
 * kit's `tests` table (`catalog.table`, the demo's) is read with the token in one statement, one
 * round trip to PostgreSQL; any other is the provider's `listTests`, once the token is checked.
 */
export async function listingOf(
  accounts: AccountStore,
  provider: Provider,
  token: string,
): Promise<{ account: Account; tests: readonly ProviderTest[] } | undefined> {
  if (provider.catalog?.table === 'tests') return accounts.authenticateWithTests(token);
  const account = await accounts.authenticate(token);
  return account && { account, tests: await provider.listTests(account) };
}
