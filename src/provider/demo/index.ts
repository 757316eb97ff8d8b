import type { Account } from '../../accounts/store.js';
import type { Db } from '../../db/open.js';
import { readCache } from '../../db/read-cache.js';
import type { InvitationToStart, Provider, ProviderTest } from '../types.js';

/**
 * The demo provider: tests live in the kit's own SQLite catalog (`tests` table) and the candidate
 * takes them on the kit's own pages. It shows the shape of a provider; a vendor replaces it with
 * one that calls their product's API.
 */
export function demoProvider(db: Db, options: { candidateUrl: (reportId: string) => string }): Provider {
  const testsOf = db.prepare<[number], ProviderTest>('SELECT id, name FROM tests WHERE account_id = ? ORDER BY id');
  // The platform lists tests before every send and catalogs change rarely; any write to the tests
  // table empties the cache (db/read-cache.ts).
  const catalog = readCache<number, readonly ProviderTest[]>(db, { max: 10_000 });
  const testsOfAccount = (account: Account) => catalog.get(account.id, (id) => Object.freeze(testsOf.all(id)))!;

  return {
    async listTests(account: Account) {
      return testsOfAccount(account);
    },

    async findTest(account: Account, testId: string) {
      // Ids are listed as numbers and come back as strings: compare as strings.
      return testsOfAccount(account).find((test) => String(test.id) === testId);
    },

    async startInvitation(invitation: InvitationToStart) {
      return { candidateUrl: options.candidateUrl(invitation.reportId) };
    },
  };
}
