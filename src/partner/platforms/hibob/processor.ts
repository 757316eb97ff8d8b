import { backoffMs } from '../../jobs/backoff.js';
import { inviteToTest } from '../../provider/find-test.js';
import type { PlatformContext } from '../platform.js';
import type { BobApi } from './api-client.js';
import type { HibobInbox, InboxEvent } from './inbox.js';
import { HIBOB } from './tokens.js';
import { UnusableDetails, type AssessmentDetails } from './wire.js';

/** [kit decision] An event whose handling keeps failing is given up after this many attempts: 3 to 5 hours, about as long as Bob retries a delivery. */
export const MAX_EVENT_ATTEMPTS = 12;
/** A failed attempt is tried again after about 30 s, then twice as long each time, up to an hour. */
const EVENT_RETRY = { baseMs: 30_000, maxMs: 60 * 60_000 };
const BATCH = 50;
/** Why an invitation Bob canceled is canceled, as the dashboard shows it. */
export const CANCEL_REASON = 'Canceled in Bob';

/** A handling that can never succeed as things stand: given up at once, with this message. */
class GiveUp extends Error {}

/** What the kit keeps of Bob's order with the invitation (`platform_data`): ids and names, never a token. */
export interface HibobData {
  company_id: string;
  package_id: string;
  job_opening_id?: string;
  job_opening_title?: string;
  requester_name?: string;
  requester_email?: string;
}

/**
 * Handles Bob's events after Bob has had its 2xx, from `hibob_inbox` (docs/hibob.md §5), oldest
 * first, each claimed before it is handled:
 *
 * - `assessment.triggered`: the company's connection (none yet: retried, the install may be under
 *   way); nothing when the same company canceled the request already; else the details read from
 *   Bob with that company's token, and an invitation made through the provider like any other —
 *   its report id Bob's `assessmentRequestId`, its test the package. A cancel that arrived while
 *   the details were read cancels it at once.
 * - `assessment.cancelled`: `lifecycle.cancel(id, 'platform', 'Canceled in Bob')` for an invitation
 *   of that company's; an order not made yet is remembered by the event's own row.
 *
 * A failure worth retrying (Bob down, no install yet) waits with backoff, given up after
 * MAX_EVENT_ATTEMPTS; one that is not (Bob's 404, details without an e-mail, an unknown package) is
 * given up at once. Either way the row keeps the reason.
 */
export function hibobProcessor(deps: { context: PlatformContext; api: BobApi; inbox: HibobInbox; leaseMs: number; random?: () => number }) {
  const { context, api, inbox } = deps;
  const { core, provider, clock, logger } = context;
  const random = deps.random ?? Math.random;

  const canceledBySameCompany = async (event: InboxEvent) => (await inbox.companyOf(event.assessmentRequestId, 'assessment.cancelled')) === event.companyId;

  async function triggered(event: InboxEvent): Promise<string> {
    const reportId = event.assessmentRequestId;
    const connection = await core.connections.byCompany(HIBOB, event.companyId);
    if (!connection) throw new Error(`Bob company ${event.companyId} has no install here yet (no connection): the order waits for it`);
    if (await canceledBySameCompany(event)) return 'canceled in Bob before it was handled: no invitation made';
    const existing = await core.invitations.get(reportId);
    if (existing) {
      if (existing.platform === HIBOB && existing.accountId === connection.accountId) return 'the invitation exists already';
      throw new GiveUp(`the report id ${reportId} is another invitation's already`);
    }
    const account = await core.accounts.find(connection.accountId);
    if (!account) throw new GiveUp(`the account ${connection.accountId} of Bob company ${event.companyId} no longer exists`);
    const details = await api.details(connection.accountId, event.companyId, reportId);
    const outcome = await inviteToTest(
      provider,
      account,
      {
        reportId,
        accountId: account.id,
        // Bob names neither by number: its own ids are kept, as text, with the invitation.
        companyId: 0,
        candidateId: 0,
        testId: details.packageId,
        firstName: details.candidate.firstName,
        lastName: details.candidate.lastName,
        email: details.candidate.email,
        phone: null,
        extraInputs: {},
        platform: HIBOB,
        platformData: { ...dataOf(event.companyId, details) },
      },
      context.createInvitation,
    );
    if (outcome === 'unknown_test') throw new GiveUp(`the package ${details.packageId} is not one of the account's tests (the catalog changed since Bob showed it)`);
    if (outcome === 'conflict') throw new GiveUp(`the report id ${reportId} is another invitation's already`);
    if (outcome === 'replayed') return 'the invitation exists already';
    context.onInvitationCreated?.(reportId);
    // A cancel stored while the details were read found no invitation to cancel: this one is canceled now.
    if (await canceledBySameCompany(event)) {
      await core.lifecycle.cancel(reportId, 'platform', CANCEL_REASON);
      return 'invitation created, and canceled: Bob canceled it meanwhile';
    }
    return 'invitation created';
  }

  async function cancelled(event: InboxEvent): Promise<string> {
    const reportId = event.assessmentRequestId;
    const invitation = await core.invitations.get(reportId);
    if (!invitation) return 'no invitation yet: remembered, its trigger makes none';
    const connection = await core.connections.byCompany(HIBOB, event.companyId);
    // Another platform's report, or another company's order: not this company's to cancel.
    if (invitation.platform !== HIBOB || connection?.accountId !== invitation.accountId) return "not an order of this company's: nothing canceled";
    const outcome = await core.lifecycle.cancel(reportId, 'platform', CANCEL_REASON);
    return outcome === 'canceled' ? 'invitation canceled' : `nothing to cancel: the invitation is ${outcome.replace('_', ' ')}`;
  }

  return {
    /** Handles every event that is due; resolves with how many were handled. Stops taking events once `stopping` aborts. */
    async runOnce(stopping?: AbortSignal): Promise<number> {
      let handled = 0;
      for (let due = await inbox.due(BATCH); due.length > 0 && !stopping?.aborted; due = await inbox.due(BATCH)) {
        for (const event of due) {
          if (stopping?.aborted) break;
          if (!(await inbox.claim(event, clock.now() + deps.leaseMs))) continue;
          try {
            const outcome = event.eventType === 'assessment.triggered' ? await triggered(event) : await cancelled(event);
            await inbox.handled(event, outcome);
            handled += 1;
            logger.info({ assessmentRequestId: event.assessmentRequestId, eventType: event.eventType, companyId: event.companyId, outcome }, 'Bob event handled');
          } catch (err) {
            const attempt = event.attempts + 1;
            const hopeless = err instanceof GiveUp || err instanceof UnusableDetails || attempt >= MAX_EVENT_ATTEMPTS;
            const retryAt = hopeless ? null : clock.now() + backoffMs(attempt, EVENT_RETRY, random);
            const message = err instanceof Error ? err.message : String(err);
            await inbox.failed(event, message, retryAt);
            logger.warn(
              { assessmentRequestId: event.assessmentRequestId, eventType: event.eventType, companyId: event.companyId, attempt, err: message },
              hopeless ? 'Bob event given up' : 'Bob event failed; will retry',
            );
          }
        }
      }
      return handled;
    },
  };
}

function dataOf(companyId: string, details: AssessmentDetails): HibobData {
  return {
    company_id: companyId,
    package_id: details.packageId,
    ...(details.jobOpening?.id && { job_opening_id: details.jobOpening.id }),
    ...(details.jobOpening?.title && { job_opening_title: details.jobOpening.title }),
    ...(details.requester?.name && { requester_name: details.requester.name }),
    ...(details.requester?.email && { requester_email: details.requester.email }),
  };
}
