import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/http/logger.js';
import { nextTurn, type Pause } from '../../lib/perf/requests-first.js';
import { backoffMs } from '../jobs/backoff.js';
import { claimsInHand } from '../jobs/lease.js';
import type { InvitationToCancel, Provider } from '../provider/types.js';
import { DELIVERY_RETRY } from '../updates/policy.js';
import type { Invitation, InvitationStore } from './store.js';

const BATCH = 20;

/** The kit's canceled invitation as the provider's cancel hook gets it. */
export const toInvitationToCancel = (i: Invitation): InvitationToCancel => ({
  reportId: i.reportId,
  accountId: i.accountId,
  testId: i.testId,
  testName: i.testName,
  canceledBy: i.canceledBy ?? 'platform',
  canceledAt: i.canceledAt ?? i.updatedAt,
});

/**
 * Tells the vendor's product of cancels (`Provider.cancelInvitation`) after they have committed and
 * been answered. The invitation row is the queue: the cancel's own transaction sets its
 * `product_cancel` to `pending` (lifecycle.ts), so a crash between the cancel and the call loses
 * nothing. A hook that throws is retried with the kit's backoff on the report updates' steps, and
 * given up (`dead`, on the dashboard) once a retry would fall past as long after the cancel as a
 * report update is retried (DELIVERY_RETRY in updates/policy.ts). The call is at least once: a
 * crash after the hook returned and before it was recorded calls it again.
 */
export function productCanceller(deps: {
  invitations: InvitationStore;
  provider: Provider;
  clock: Clock;
  logger: Logger;
  random?: () => number;
  /** How long a claimed invitation is this instance's to tell (jobs/lease.ts). */
  leaseMs: number;
  /** Between two calls (`requestsFirst` in the server): lets the platform's requests go first. */
  pause?: Pause;
}) {
  const { invitations, provider, clock, logger } = deps;
  const random = deps.random ?? Math.random;
  const pause = deps.pause ?? nextTurn;
  const inHand = claimsInHand<string>((reportIds) => invitations.releaseProductCancels(reportIds));

  async function tell(invitation: Invitation, hook: NonNullable<Provider['cancelInvitation']>): Promise<void> {
    const { reportId } = invitation;
    try {
      await hook.call(provider, toInvitationToCancel(invitation));
      await invitations.markProductTold(reportId);
      logger.info({ reportId }, 'the product was told of the cancel');
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      const retryAt = clock.now() + backoffMs(invitation.productCancelAttempts + 1, DELIVERY_RETRY, random);
      const giveUpAt = Date.parse(invitation.canceledAt ?? invitation.updatedAt) + DELIVERY_RETRY.giveUpAfterMs;
      const dead = retryAt >= giveUpAt;
      await invitations.markProductCancelFailed(reportId, error, dead ? null : retryAt);
      if (dead) logger.error({ reportId, err: error }, 'telling the product of a cancel was given up');
      else logger.warn({ reportId, err: error, retryInMs: retryAt - clock.now() }, 'telling the product of a cancel failed');
    } finally {
      inHand.settled(reportId);
    }
  }

  return {
    /**
     * Calls the hook for every cancel that is due; resolves with how many were tried. Once
     * `stopping` aborts it makes no more calls: the rest stay due for the next run.
     */
    async runOnce(stopping?: AbortSignal): Promise<number> {
      const hook = provider.cancelInvitation;
      if (!hook) return 0;
      let tried = 0;
      for (;;) {
        const due = await invitations.claimDueProductCancels(BATCH, deps.leaseMs);
        inHand.claimed(due.map((invitation) => invitation.reportId));
        for (const invitation of due) {
          // Before the call, not after: the cancel that woke this loop has its answer out first.
          await pause();
          if (stopping?.aborted) break;
          tried += 1;
          await tell(invitation, hook);
        }
        if (due.length < BATCH || stopping?.aborted) return tried;
      }
    },
    /** Gives back the cancels claimed and not recorded (call once the runs have stopped). */
    release: () => inHand.release(),
  };
}
