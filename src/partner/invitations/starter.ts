import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/http/logger.js';
import type { Provider } from '../provider/types.js';
import { toInvitationToStart } from './for-provider.js';
import { nextTurn, type Pause } from '../../lib/perf/requests-first.js';
import { backoffMs } from '../jobs/backoff.js';
import { heldBatch } from '../jobs/loop.js';
import type { Invitation, InvitationStore } from './store.js';

const BATCH = 20;
/** A failed start is retried after about 10 s, then twice as long each time, up to an hour. */
const START_RETRY = { baseMs: 10_000, maxMs: 60 * 60_000 };

/**
 * Starts new invitations in the vendor's product after send_candidate has answered. The
 * invitation row is the queue: one that is stored but not started (the process died, the provider
 * threw) is picked up again on the next run, so nothing is lost between the answer and the start.
 * The start then queues the e-mail and the first report update in their own outboxes, in the
 * transaction that marks it started — so nothing is lost between the start and those either.
 */
export function invitationStarter(deps: {
  invitations: InvitationStore;
  provider: Provider;
  clock: Clock;
  logger: Logger;
  random?: () => number;
  /**
   * Records a successful start: the lifecycle's, which marks the invitation started and queues the
   * invitation e-mail and the first report update in the same transaction (lifecycle.ts).
   */
  markStarted: (invitation: Invitation, candidateUrl: string) => void;
  /**
   * Runs a batch's `markStarted` calls in one transaction (`db.transaction`), so a batch costs one
   * commit. A crash before it commits starts those invitations again on the next run, which the
   * provider already has to accept (a start is at least once).
   */
  inTransaction?: (fn: () => void) => void;
  /** Between two starts (`requestsFirst` in the server): lets the platform's requests go first. */
  pause?: Pause;
}) {
  const { invitations, provider, clock, logger, markStarted } = deps;
  const inTransaction = deps.inTransaction ?? ((fn: () => void) => fn());
  const pause = deps.pause ?? nextTurn;
  const random = deps.random ?? Math.random;

  function failed(invitation: Invitation, err: unknown): void {
    const n = invitation.startAttempts + 1;
    const delay = backoffMs(n, START_RETRY, random);
    invitations.markStartFailed(invitation.reportId, errorMessage(err), clock.now() + delay);
    logger.warn({ reportId: invitation.reportId, err: errorMessage(err), retryInMs: Math.round(delay) }, 'invitation start failed');
  }

  /**
   * Records the starts the provider made, in one transaction: one commit for a batch, not one
   * each; and one log line for the batch, naming each report (a failure gets a line of its own).
   */
  function record(started: readonly { invitation: Invitation; candidateUrl: string }[]): void {
    const reportIds: string[] = [];
    inTransaction(() => {
      for (const { invitation, candidateUrl } of started) {
        try {
          markStarted(invitation, candidateUrl);
          reportIds.push(invitation.reportId);
        } catch (err) {
          failed(invitation, err);
        }
      }
    });
    if (reportIds.length > 0) logger.info({ reportIds }, reportIds.length === 1 ? 'invitation started' : `${reportIds.length} invitations started`);
  }

  return {
    /**
     * Starts every invitation that is due now; resolves with how many were tried. Once `stopping`
     * aborts it starts no more: the rest stay due for the next run (or the next start).
     */
    async runOnce(stopping?: AbortSignal): Promise<number> {
      let tried = 0;
      const started = heldBatch(record, { stopping });
      for (;;) {
        const due = invitations.dueStarts(BATCH);
        for (const invitation of due) {
          if (stopping?.aborted) break;
          tried += 1;
          await started.add(async () => {
            try {
              const { candidateUrl } = await provider.startInvitation(toInvitationToStart(invitation));
              return { invitation, candidateUrl };
            } catch (err) {
              failed(invitation, err);
              return undefined;
            }
          });
          // A provider that answers at once would keep this loop in microtasks; let the platform's
          // waiting callbacks in between starts.
          await pause();
        }
        started.flush();
        if (due.length < BATCH || stopping?.aborted) return tried;
      }
    },
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
