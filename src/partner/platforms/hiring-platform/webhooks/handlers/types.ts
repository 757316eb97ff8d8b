import type { Clock } from '../../../../../lib/clock.js';
import type { Sql } from '../../../../../lib/sql.js';
import type { Logger } from '../../../../../lib/http/logger.js';
import type { ReceivedEvent, WebhookInbox } from '../inbox.js';

/**
 * Cancels one invitation and queues its report's update to `canceled`, in one transaction (the
 * kit wires `lifecycle.cancel(reportId, 'platform')`). Returns what happened: 'canceled' when it
 * was still pending, else why not ('already_canceled', 'completed', 'failed', 'unknown'). The
 * handler's cancel acts only on this platform's invitations of the event's company: any other report
 * id (a Greenhouse interview, another company's report) is 'unknown' and is left as it is.
 */
export type CancelInvitation = (reportId: string) => Promise<string>;

export interface HandlerContext {
  /** The partner's database (SQLite, or PostgreSQL with DATABASE_URL): `$1, $2…` placeholders for both. */
  sql: Sql;
  clock: Clock;
  logger: Logger;
  inbox: WebhookInbox;
  /** The partner's accounts bound to the event's company (accounts.company_id); often one, maybe none. */
  accountIds: readonly number[];
  cancelInvitation: CancelInvitation;
}

/**
 * Acts on one event, after the platform has had its 200. Returns a short outcome the dashboard
 * shows (no personal data in it). Throwing retries the event later; a payload that does not parse
 * (a `ZodError`) is given up at once, as no retry would change it. Handlers must be safe to run
 * again for the same event: a crash after the work and before the outcome is recorded repeats it.
 */
export type WebhookHandler = (event: ReceivedEvent, ctx: HandlerContext) => string | Promise<string>;
