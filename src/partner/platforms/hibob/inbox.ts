import type { Clock } from '../../../lib/clock.js';
import { isoAt } from '../../../lib/clock.js';
import { indexedBy, type Sql } from '../../../lib/sql.js';
import type { EventType } from './wire.js';

/** An event as stored: which assessment request, which event, from which company. */
export interface InboxEvent {
  assessmentRequestId: string;
  eventType: EventType;
  companyId: string;
  triggeredAt: string | null;
}

export interface PendingEvent extends InboxEvent {
  attempts: number;
}

interface Row {
  assessment_request_id: string;
  event_type: EventType;
  company_id: string;
  triggered_at: string | null;
  attempts: number;
}

export type HibobInbox = ReturnType<typeof hibobInbox>;

/**
 * The `hibob_inbox` table (docs/hibob.md §5): Bob's events deduplicated by assessment request and
 * event type — for good, as Bob's signature has no timestamp — and the processor's work queue.
 */
export function hibobInbox(sql: Sql, clock: Clock) {
  const due = `SELECT assessment_request_id, event_type, company_id, triggered_at, attempts FROM hibob_inbox ${indexedBy(sql, 'hibob_inbox_due')}
      WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at, received_at LIMIT $2`;
  return {
    /**
     * Stores the event unless this request's event of this type is stored already: one statement
     * on the primary key, so deliveries at once, to one instance or two, store it once. False for
     * a duplicate, which is counted, not stored.
     */
    async receive(event: InboxEvent): Promise<boolean> {
      const now = isoAt(clock.now());
      const inserted = await sql.run(
        `INSERT INTO hibob_inbox (assessment_request_id, event_type, company_id, triggered_at, next_attempt_at, received_at)
         VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (assessment_request_id, event_type) DO NOTHING`,
        [event.assessmentRequestId, event.eventType, event.companyId, event.triggeredAt, now],
      );
      if (inserted.changes === 1) return true;
      await sql.run('UPDATE hibob_inbox SET duplicates = duplicates + 1 WHERE assessment_request_id = $1 AND event_type = $2', [
        event.assessmentRequestId,
        event.eventType,
      ]);
      return false;
    },

    /** The company that sent the request's event of this type, when one was received. */
    async companyOf(assessmentRequestId: string, eventType: EventType): Promise<string | undefined> {
      const row = await sql.get<{ company_id: string }>('SELECT company_id FROM hibob_inbox WHERE assessment_request_id = $1 AND event_type = $2', [
        assessmentRequestId,
        eventType,
      ]);
      return row?.company_id;
    },

    /** Pending events whose time has come, oldest first. */
    async due(limit: number): Promise<PendingEvent[]> {
      return (await sql.all<Row>(due, [isoAt(clock.now()), limit])).map((r) => ({
        assessmentRequestId: r.assessment_request_id,
        eventType: r.event_type,
        companyId: r.company_id,
        triggeredAt: r.triggered_at,
        attempts: r.attempts,
      }));
    },

    /** Takes the event for one attempt until `leaseUntil`; false when another run, here or on another instance, has it. */
    async claim(event: InboxEvent, leaseUntil: number): Promise<boolean> {
      const claimed = await sql.run(
        `UPDATE hibob_inbox SET next_attempt_at = $1, attempts = attempts + 1
          WHERE assessment_request_id = $2 AND event_type = $3 AND status = 'pending' AND next_attempt_at <= $4`,
        [isoAt(leaseUntil), event.assessmentRequestId, event.eventType, isoAt(clock.now())],
      );
      return claimed.changes === 1;
    },

    async handled(event: InboxEvent, outcome: string): Promise<void> {
      await sql.run(
        `UPDATE hibob_inbox SET status = 'handled', outcome = $1, next_attempt_at = NULL, last_error = NULL, handled_at = $2
          WHERE assessment_request_id = $3 AND event_type = $4`,
        [outcome.slice(0, 500), isoAt(clock.now()), event.assessmentRequestId, event.eventType],
      );
    },

    /** A failed attempt: tried again at `retryAt`, or given up when it is null. */
    async failed(event: InboxEvent, error: string, retryAt: number | null): Promise<void> {
      await sql.run(
        `UPDATE hibob_inbox SET last_error = $1, next_attempt_at = $2, status = $3, handled_at = $4
          WHERE assessment_request_id = $5 AND event_type = $6`,
        [
          error.slice(0, 500),
          retryAt === null ? null : isoAt(retryAt),
          retryAt === null ? 'failed' : 'pending',
          retryAt === null ? isoAt(clock.now()) : null,
          event.assessmentRequestId,
          event.eventType,
        ],
      );
    },

    /** When the next pending event falls due; undefined when none is pending. */
    async nextDueAt(): Promise<string | undefined> {
      return (await sql.get<{ at: string | null }>("SELECT min(next_attempt_at) AS at FROM hibob_inbox WHERE status = 'pending'"))?.at ?? undefined;
    },
  };
}
