import type { Clock } from '../../../../lib/clock.js';
import { isoAt } from '../../../../lib/clock.js';
import { indexedBy, type Sql } from '../../../../lib/sql.js';

export type InboxStatus = 'pending' | 'handled' | 'failed';

/** An event as received (its envelope, signature verified). */
export interface ReceivedEvent {
  id: number;
  companyId: number;
  eventType: string;
  eventSubtype: string;
  /** The envelope's created_at: when it happened on the platform. */
  occurredAt: string;
  attemptCount: number;
  payload: Record<string, unknown>;
}

/** Which event: its id is unique within its company only (a platform-wide sequence, but see `receive`). */
export type EventKey = Pick<ReceivedEvent, 'companyId' | 'id'>;

/** An event waiting for its handler, with the attempts already made. */
export interface PendingEvent extends ReceivedEvent {
  attempts: number;
}

/** What the dashboard lists: no payload, so no personal data. */
export interface InboxEntry {
  eventId: number;
  companyId: number;
  eventType: string;
  eventSubtype: string;
  occurredAt: string;
  candidateId: number | null;
  offerId: number | null;
  status: InboxStatus;
  outcome: string | null;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  duplicates: number;
  receivedAt: string;
  handledAt: string | null;
}

interface Row {
  event_id: number;
  company_id: number;
  event_type: string;
  event_subtype: string;
  occurred_at: string;
  attempt_count: number;
  candidate_id: number | null;
  offer_id: number | null;
  payload: string | null;
  status: InboxStatus;
  outcome: string | null;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  duplicates: number;
  received_at: string;
  handled_at: string | null;
}

export type WebhookInbox = ReturnType<typeof webhookInbox>;

/** The `webhook_inbox` table: dedupe record, work queue and dashboard list in one. */
export function webhookInbox(sql: Sql, clock: Clock) {
  // On SQLite through the due index (INDEXED BY), whatever the planner would guess: for the ORDER
  // BY it read every event ever received in event order, 24 ms a run with 200,000 kept, and growing.
  const due = `SELECT * FROM webhook_inbox ${indexedBy(sql, 'webhook_inbox_due')}
      WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY event_id, company_id LIMIT $2`;
  const entries = async (text: string, params: unknown[]) => (await sql.all<Row>(text, params)).map(toEntry);

  return {
    /**
     * Stores the event unless this company already sent its id. One statement, resting on the
     * unique (company, event id): concurrent deliveries of the same event, to one instance or two,
     * cannot both insert. Returns false for a duplicate (which is counted, not stored). The company
     * is part of the key: event ids are one platform-wide sequence, and an id another company's
     * event already used must not make this one a duplicate.
     */
    async receive(event: ReceivedEvent): Promise<boolean> {
      const payload = event.payload;
      const inserted = await sql.run(
        `INSERT INTO webhook_inbox (event_id, company_id, event_type, event_subtype, occurred_at, attempt_count,
            candidate_id, offer_id, payload, next_attempt_at, received_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
         ON CONFLICT (company_id, event_id) DO NOTHING`,
        [
          event.id, event.companyId, event.eventType, event.eventSubtype, event.occurredAt, event.attemptCount,
          idOf(payload.candidate), idOf(payload.offer), JSON.stringify(payload), isoAt(clock.now()),
        ],
      );
      if (inserted.changes === 1) return true;
      await sql.run('UPDATE webhook_inbox SET duplicates = duplicates + 1 WHERE company_id = $1 AND event_id = $2', [event.companyId, event.id]);
      return false;
    },

    /** Pending events whose time has come, oldest event first. */
    async due(limit: number): Promise<PendingEvent[]> {
      return (await sql.all<Row>(due, [isoAt(clock.now()), limit]))
        .filter((r) => r.payload !== null)
        .map((r) => ({
          id: r.event_id,
          companyId: r.company_id,
          eventType: r.event_type,
          eventSubtype: r.event_subtype,
          occurredAt: r.occurred_at,
          attemptCount: r.attempt_count,
          payload: JSON.parse(r.payload!) as Record<string, unknown>,
          attempts: r.attempts,
        }));
    },

    /**
     * Takes the event for one handling attempt until `leaseUntil`; false when another run, on this
     * instance or another, has it: only a row still due can be claimed.
     */
    async claim(event: EventKey, leaseUntil: number): Promise<boolean> {
      const claimed = await sql.run(
        `UPDATE webhook_inbox SET next_attempt_at = $1, attempts = attempts + 1
          WHERE company_id = $2 AND event_id = $3 AND status = 'pending' AND next_attempt_at <= $4`,
        [isoAt(leaseUntil), event.companyId, event.id, isoAt(clock.now())],
      );
      return claimed.changes === 1;
    },

    /** Handled: the outcome is kept for the dashboard, the payload (personal data) is dropped. */
    async handled(event: EventKey, outcome: string): Promise<void> {
      await sql.run(
        `UPDATE webhook_inbox SET status = 'handled', outcome = $1, payload = NULL, next_attempt_at = NULL, last_error = NULL, handled_at = $2
          WHERE company_id = $3 AND event_id = $4`,
        [outcome.slice(0, 500), isoAt(clock.now()), event.companyId, event.id],
      );
    },

    /** A failed attempt: retried at `retryAt`, or given up when it is null. */
    async failed(event: EventKey, error: string, retryAt: number | null): Promise<void> {
      await sql.run(
        `UPDATE webhook_inbox SET last_error = $1, next_attempt_at = $2, status = $3 WHERE company_id = $4 AND event_id = $5`,
        [error.slice(0, 500), retryAt === null ? null : isoAt(retryAt), retryAt === null ? 'failed' : 'pending', event.companyId, event.id],
      );
    },

    /** Drops the payloads still kept (given-up events) that name this candidate. */
    async scrubCandidate(companyId: number, candidateId: number): Promise<void> {
      await sql.run(`UPDATE webhook_inbox SET payload = NULL WHERE company_id = $1 AND candidate_id = $2 AND status <> 'pending'`, [companyId, candidateId]);
    },

    /** Forgets handled and given-up events received before `before`; pending ones stay. */
    async prune(before: number): Promise<number> {
      return (await sql.run(`DELETE FROM webhook_inbox WHERE received_at < $1 AND status <> 'pending'`, [isoAt(before)])).changes;
    },

    /** The event `eventId` of company `companyId` (ids are unique per company only). */
    async find(companyId: number, eventId: number): Promise<InboxEntry | undefined> {
      return (await entries('SELECT * FROM webhook_inbox WHERE company_id = $1 AND event_id = $2', [companyId, eventId]))[0];
    },

    /** Newest first, for the dashboard. */
    list(options: { companyId?: number; limit?: number } = {}): Promise<InboxEntry[]> {
      const limit = options.limit ?? 100;
      return options.companyId === undefined
        ? entries('SELECT * FROM webhook_inbox ORDER BY event_id DESC, company_id DESC LIMIT $1', [limit])
        : entries('SELECT * FROM webhook_inbox WHERE company_id = $1 ORDER BY event_id DESC LIMIT $2', [options.companyId, limit]);
    },

    async counts(): Promise<Record<InboxStatus, number>> {
      const out: Record<InboxStatus, number> = { pending: 0, handled: 0, failed: 0 };
      for (const { status, n } of await sql.all<{ status: InboxStatus; n: number }>('SELECT status, count(*) AS n FROM webhook_inbox GROUP BY status')) {
        out[status] = n;
      }
      return out;
    },
  };
}

function idOf(entity: unknown): number | null {
  const id = (entity as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
}

function toEntry(r: Row): InboxEntry {
  return {
    eventId: r.event_id,
    companyId: r.company_id,
    eventType: r.event_type,
    eventSubtype: r.event_subtype,
    occurredAt: r.occurred_at,
    candidateId: r.candidate_id,
    offerId: r.offer_id,
    status: r.status,
    outcome: r.outcome,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastError: r.last_error,
    duplicates: r.duplicates,
    receivedAt: r.received_at,
    handledAt: r.handled_at,
  };
}
