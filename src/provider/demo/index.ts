import type { Account } from '../../accounts/store.js';
import type { Db } from '../../db/open.js';
import type { InvitationToStart, Provider, ProviderTest } from '../types.js';

/**
 * The demo provider: tests live in the kit's own SQLite catalog (`tests` table) and the candidate
 * takes them on the kit's own pages. It shows the shape of a provider; a vendor replaces it with
 * one that calls their product's API.
 */
export function demoProvider(db: Db, options: { candidateUrl: (reportId: string) => string }): Provider {
  const testsOf = db.prepare<[number], ProviderTest>('SELECT id, name FROM tests WHERE account_id = ? ORDER BY id');
  const testOf = db.prepare<[number, number], ProviderTest>('SELECT id, name FROM tests WHERE id = ? AND account_id = ?');

  return {
    async listTests(account: Account) {
      return testsOf.all(account.id);
    },

    async findTest(account: Account, testId: string) {
      // Ids are listed as numbers and come back as strings: only a canonical decimal can match.
      if (!/^[1-9]\d{0,15}$/.test(testId)) return undefined;
      return testOf.get(Number(testId), account.id);
    },

    async startInvitation(invitation: InvitationToStart) {
      return { candidateUrl: options.candidateUrl(invitation.reportId) };
    },
  };
}
