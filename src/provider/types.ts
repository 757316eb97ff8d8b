import type { Account } from '../accounts/store.js';

/**
 * The seam between this kit and the vendor's product. The kit owns the platform side (tokens,
 * callbacks, invitations keyed by report_id, report delivery); a provider owns what the candidate
 * takes. A fork replaces `demo/` with a module that talks to its own product and passes it to
 * `createApp` — the callbacks only ever reach the product through this interface.
 */
export interface Provider {
  /** The tests this customer account may send, in the order the platform should show them. */
  listTests(account: Account): Promise<readonly ProviderTest[]>;

  /** One test by the id the platform sends back, always as a string; undefined when unknown. */
  findTest(account: Account, testId: string): Promise<ProviderTest | undefined>;

  /**
   * Starts the candidate's test in the vendor's product. Called once per invitation, after the
   * platform has had its answer, and retried when it throws; it must be safe to call again for the
   * same `reportId`. Returns the link the candidate is invited to.
   */
  startInvitation(invitation: InvitationToStart): Promise<{ candidateUrl: string }>;
}

export interface ProviderTest {
  /** Listed to the platform as-is; it comes back on send_candidate as a string. */
  id: number | string;
  name: string;
}

export interface InvitationToStart {
  reportId: string;
  accountId: number;
  testId: string;
  testName: string;
  candidate: { id: number; firstName: string; lastName: string; email: string; phone: string | null };
}
