import type { Account } from '../accounts/store.js';
import type { CreateOutcome, InvitationToStore, NewInvitation } from '../invitations/store.js';
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

/**
 * Stores a send to the account's test `input.testId` through `create` (the invitation store's,
 * group-committed), as every platform's send does: `unknown_test` when the account has no such
 * test. A catalog in the kit's `tests` table (`catalog.table`, the demo's) is read by the INSERT
 * itself, one statement for the test and the send; any other is asked through `testOf` first.
 */
export async function inviteToTest(
  provider: Provider,
  account: Account,
  input: Omit<NewInvitation, 'testName'>,
  create: (input: InvitationToStore) => Promise<CreateOutcome>,
): Promise<CreateOutcome> {
  if (provider.catalog?.table === 'tests') return create(input);
  const test = await testOf(provider, account, input.testId);
  return test ? create({ ...input, testName: test.name }) : 'unknown_test';
}
