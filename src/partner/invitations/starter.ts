import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/http/logger.js';
import type { Provider } from '../provider/types.js';
import { toInvitationToStart } from './for-provider.js';
import { nextTurn, type Pause } from '../../lib/perf/requests-first.js';
import { backoffMs } from '../jobs/backoff.js';
import { heldBatch } from '../jobs/loop.js';
import { claimsInHand } from '../jobs/lease.js';
import type { Invitation, InvitationStore } from './store.js';
import type { Sql } from '../../lib/sql.js';
import type { KitLoop, Queued } from '../jobs/wakeups.js';

const BATCH = 20;
/** A failed start is retried after about 10 s, then twice as long each time, up to an hour. */
const START_RETRY = { baseMs: 10_000, maxMs: 60 * 60_000 };

/**
 * Starts new invitations in the vendor's product after send_candidate has answered. The
 * invitation row is the queue: one that is stored but not started (the process died, the provider
 * threw) is picked up again on the next run, so nothing is lost between the answer and the start.
 * The start then queues the first report update (and, on a platform that does not wait for it, the
 * e-mail) in its outbox, in the step that marks it started — so nothing is lost between the start
 * and those either.
 */
export function invitationStarter(deps: {
  sql: Sql;
  invitations: InvitationStore;
  provider: Provider;
  clock: Clock;
  logger: Logger;
  random?: () => number;
  /**
   * Records a successful start, in `tx` when given, else on its own: the lifecycle's, which marks
   * the invitation started and queues the first report update (lifecycle.ts), and resolves with the
   * loops it left work for. A batch's starts are recorded in one transaction, one commit for the
   * batch. A crash before it commits starts those invitations again on the next run, which the
   * provider already has to accept (a start is at least once).
   */
  markStarted: (invitation: Invitation, candidateUrl: string, tx?: Sql) => Promise<Queued>;
  /** Told once a batch of starts has committed, with the loops they left work for (the report updates they queued, say). */
  onRecorded?: (queued: Queued) => void;
  /** How long a claimed invitation is this instance's to start (jobs/lease.ts). */
  leaseMs: number;
  /** Between two starts (`requestsFirst` in the server): lets the platform's requests go first. */
  pause?: Pause;
}) {
  const { sql, invitations, provider, clock, logger, markStarted } = deps;
  const pause = deps.pause ?? nextTurn;
  const random = deps.random ?? Math.random;

  const inHand = claimsInHand<string>((reportIds) => invitations.release(reportIds));

  async function failed(invitation: Invitation, err: unknown): Promise<void> {
    const n = invitation.startAttempts + 1;
    const delay = backoffMs(n, START_RETRY, random);
    await invitations.markStartFailed(invitation.reportId, errorMessage(err), clock.now() + delay);
    inHand.settled(invitation.reportId);
    logger.warn({ reportId: invitation.reportId, err: errorMessage(err), retryInMs: Math.round(delay) }, 'invitation start failed');
  }

  /**
   * Records the starts the provider made, in one transaction: one commit for a batch, not one
   * each; and one log line for the batch, naming each report (a failure gets a line of its own).
   * A start the lifecycle or the database refuses undoes the batch, which is then recorded a start
   * at a time, so that it does not undo the others: no savepoint around each start, which would
   * cost every start two more round trips on PostgreSQL for a failure that hardly ever comes. A
   * batch of one is the lifecycle's start on its own: on PostgreSQL one statement, no transaction.
   */
  async function record(started: readonly { invitation: Invitation; candidateUrl: string }[]): Promise<void> {
    const queued = new Set<KitLoop>();
    const reportIds: string[] = [];
    const alone = async () => {
      for (const { invitation, candidateUrl } of started) {
        try {
          for (const loop of await markStarted(invitation, candidateUrl)) queued.add(loop);
          reportIds.push(invitation.reportId);
        } catch (err) {
          await failed(invitation, err);
        }
      }
    };
    if (started.length === 1) await alone();
    else {
      const batch = await sql
        .transaction(async (tx) => {
          const loops: KitLoop[] = [];
          for (const { invitation, candidateUrl } of started) loops.push(...(await markStarted(invitation, candidateUrl, tx)));
          return loops;
        })
        .catch(() => undefined);
      if (batch) {
        for (const loop of batch) queued.add(loop);
        reportIds.push(...started.map(({ invitation }) => invitation.reportId));
      } else await alone();
    }
    for (const { invitation } of started) inHand.settled(invitation.reportId);
    deps.onRecorded?.([...queued]);
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
        const due = await invitations.claimDueStarts(BATCH, deps.leaseMs);
        inHand.claimed(due.map((invitation) => invitation.reportId));
        for (const invitation of due) {
          if (stopping?.aborted) break;
          tried += 1;
          await started.add(async () => {
            try {
              const { candidateUrl } = await provider.startInvitation(toInvitationToStart(invitation));
              return { invitation, candidateUrl };
            } catch (err) {
              await failed(invitation, err);
              return undefined;
            }
          });
          // A provider that answers at once would keep this loop in microtasks; let the platform's
          // waiting callbacks in between starts.
          await pause();
        }
        await started.flush();
        if (due.length < BATCH || stopping?.aborted) return tried;
      }
    },

    /**
     * Gives back the invitations claimed and not recorded (call once the runs have stopped): on
     * PostgreSQL, another instance, or this one restarted, starts them at once rather than when
     * their lease runs out.
     */
    release: () => inHand.release(),
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
