import type { Account } from '../accounts/store.js';
import type { Provider, ProviderTest } from './types.js';

/**
 * The account's test of this id, as every platform's send looks it up: through the provider's
 * `findTest` when it has one (one row), else among `listTests`. Ids are listed as numbers or
 * strings and come back as strings: compared as strings.
 */
export async function testOf(provider: Provider, account: Account, testId: string): Promise<ProviderTest | undefined> {
  if (provider.findTest) return provider.findTest(account, testId);
  return (await provider.listTests(account)).find((t) => String(t.id) === testId);
}
