import { backoffMs } from '../../../jobs/backoff.js';
import { ZodError } from 'zod';
import type { Clock } from '../../../../lib/clock.js';
import { WEBHOOK_DEDUPE_WINDOW_MS } from '../../../../contract/decisions.js';
import { placeholders, type Sql } from '../../../../lib/sql.js';
import type { Logger } from '../../../../lib/http/logger.js';
import { DEFAULT_HANDLERS, recordEvent, type CancelInvitation, type WebhookHandler } from './handlers/index.js';
import { webhookInbox, type WebhookInbox } from './inbox.js';
import { HIRING_PLATFORM } from '../callbacks.js';

/** [kit decision] A handler that keeps throwing is given up after this many attempts (about 2 hours). */
export const MAX_HANDLER_ATTEMPTS = 8;
/** A failing handler is retried after about 30 s, then twice as long each time, up to an hour. */
const HANDLER_RETRY = { baseMs: 30_000, maxMs: 60 * 60_000 };
const BATCH = 100;

export interface WebhookProcessorDeps {
  sql: Sql;
  clock: Clock;
  logger: Logger;
  /**
   * The kit's cancel (`lifecycle.cancel(reportId, 'platform')`). Handlers get it narrowed to the
   * event's own reports (`cancelFor`): never called for another platform's or another company's.
   */
  cancelInvitation: CancelInvitation;
  /** By event type; the kit's handlers by default. Types without a handler are recorded. */
  handlers?: Readonly<Record<string, WebhookHandler>>;
  random?: () => number;
  /** How long a claimed event is left to its handler before another run, on any instance, may take it (jobs/lease.ts). */
  leaseMs: number;
}

export type WebhookProcessor = ReturnType<typeof webhookProcessor>;

/**
 * Handles received events after the platform has had its 200, from the `webhook_inbox` table: the
 * receiver only stores, so a crash between the answer and the handling loses nothing. Events are
 * taken oldest first, each claimed before its handler runs, so concurrent runs never handle one
 * twice. A handler that throws is retried with backoff and given up after MAX_HANDLER_ATTEMPTS;
 * each run also forgets events older than the dedupe window.
 */
export function webhookProcessor(deps: WebhookProcessorDeps) {
  const { sql, clock, logger } = deps;
  const handlers = deps.handlers ?? DEFAULT_HANDLERS;
  const random = deps.random ?? Math.random;
  const inbox: WebhookInbox = webhookInbox(sql, clock);
  const accountsOf = async (companyId: number) =>
    (await sql.all<{ id: number }>('SELECT id FROM accounts WHERE company_id = $1 ORDER BY id', [companyId])).map((r) => r.id);
  /**
   * The cancel a handler is given for one event: it acts only on an invitation this platform sent,
   * for an account bound to the event's company. Any other report id — a Greenhouse interview,
   * another company's report — is 'unknown', as an id that exists nowhere, and is not touched
   * (docs/callbacks.md, "Unknown report ids"). An invitation's platform and account never change,
   * so the check need not share the cancel's transaction.
   */
  const cancelFor = (accountIds: readonly number[]): CancelInvitation => async (reportId) => {
    if (accountIds.length === 0 || typeof reportId !== 'string') return 'unknown';
    const ours = await sql.get(
      `SELECT 1 AS ours FROM invitations WHERE report_id = $1 AND platform = $2 AND account_id IN (${placeholders(accountIds.length, 3)})`,
      [reportId, HIRING_PLATFORM, ...accountIds],
    );
    return ours ? deps.cancelInvitation(reportId) : 'unknown';
  };

  return {
    inbox,
    /**
     * Handles every event that is due; resolves with how many were handled. Once `stopping`
     * aborts it takes no more events: the rest stay in the inbox for the next run.
     */
    async runOnce(stopping?: AbortSignal): Promise<number> {
      await inbox.prune(clock.now() - WEBHOOK_DEDUPE_WINDOW_MS);
      let handled = 0;
      for (let due = await inbox.due(BATCH); due.length > 0 && !stopping?.aborted; due = await inbox.due(BATCH)) {
        for (const event of due) {
          if (stopping?.aborted) break;
          if (!(await inbox.claim(event, clock.now() + deps.leaseMs))) continue;
          const handler = handlers[event.eventType] ?? recordEvent;
          try {
            const accountIds = await accountsOf(event.companyId);
            const outcome = await handler(event, { sql, clock, logger, inbox, accountIds, cancelInvitation: cancelFor(accountIds) });
            await inbox.handled(event, outcome);
            handled += 1;
          } catch (err) {
            const attempt = event.attempts + 1;
            const hopeless = err instanceof ZodError || attempt >= MAX_HANDLER_ATTEMPTS;
            const delay = backoffMs(attempt, HANDLER_RETRY, random);
            const retryAt = hopeless ? null : clock.now() + delay;
            await inbox.failed(event, describe(err), retryAt);
            logger.warn(
              { eventId: event.id, eventType: event.eventType, attempt, err: describe(err), retryAt: retryAt && new Date(retryAt).toISOString() },
              hopeless ? 'webhook event given up' : 'webhook handler failed; will retry',
            );
          }
        }
      }
      return handled;
    },
  };
}

function describe(err: unknown): string {
  if (err instanceof ZodError) {
    return `payload: ${err.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}`;
  }
  return err instanceof Error ? err.message : String(err);
}
