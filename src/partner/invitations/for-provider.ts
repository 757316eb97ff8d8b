import type { InvitationToStart, Provider, ProviderInvitation, ResultDetail } from '../provider/types.js';
import type { Invitation } from './store.js';

/** The kit's invitation as the provider sees it when starting it (the starter, the dashboard's resend). */
export const toInvitationToStart = (i: Invitation): InvitationToStart => ({
  reportId: i.reportId,
  accountId: i.accountId,
  testId: i.testId,
  testName: i.testName,
  candidate: { id: i.candidateId, firstName: i.firstName, lastName: i.lastName, email: i.email, phone: i.phone },
});

/** The kit's invitation as the provider sees it on the candidate page, the dashboard and the results page. */
export const toProviderInvitation = (i: Invitation): ProviderInvitation => ({
  reportId: i.reportId,
  accountId: i.accountId,
  testId: i.testId,
  testName: i.testName,
  openedAt: i.openedAt,
});

/**
 * What the results page and the dashboard show under a finished result: the provider's details
 * when it keeps them (`resultDetails`), else those the vendor's product pushed with the result.
 */
export async function resultDetailsOf(provider: Provider, invitation: Invitation): Promise<readonly ResultDetail[]> {
  if (invitation.status === 'sent') return [];
  if (provider.resultDetails) return provider.resultDetails(toProviderInvitation(invitation));
  return invitation.details ?? [];
}
