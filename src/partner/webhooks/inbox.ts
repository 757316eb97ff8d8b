import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';

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
export function webhookInbox(db: Db, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO webhook_inbox (event_id, company_id, event_type, event_subtype, occurred_at, attempt_count,
        candidate_id, offer_id, payload, next_attempt_at, received_at)
     VALUES (@id, @companyId, @eventType, @eventSubtype, @occurredAt, @attemptCount, @candidateId, @offerId,
        @payload, @now, @now)
     ON CONFLICT (company_id, event_id) DO NOTHING`,
  );
  const duplicate = db.prepare<[number, number]>(
    'UPDATE webhook_inbox SET duplicates = duplicates + 1 WHERE company_id = ? AND event_id = ?',
  );
  // Through the due index (INDEXED BY), whatever the planner would guess: for the ORDER BY it read
  // every event ever received in event order, 24 ms a run with 200,000 kept, and growing.
  const due = db.prepare<[string, number], Row>(
    `SELECT * FROM webhook_inbox INDEXED BY webhook_inbox_due
      WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY event_id, company_id LIMIT ?`,
  );
  // Only a row still due can be claimed, so two processors never handle the same event.
  const claim = db.prepare<[string, number, number, string]>(
    `UPDATE webhook_inbox SET next_attempt_at = ?, attempts = attempts + 1
      WHERE company_id = ? AND event_id = ? AND status = 'pending' AND next_attempt_at <= ?`,
  );
  const handled = db.prepare<[string, string, number, number]>(
    `UPDATE webhook_inbox SET status = 'handled', outcome = ?, payload = NULL, next_attempt_at = NULL, last_error = NULL,
        handled_at = ? WHERE company_id = ? AND event_id = ?`,
  );
  const failed = db.prepare<[string, string | null, string | null, number, number]>(
    `UPDATE webhook_inbox SET last_error = ?, next_attempt_at = ?,
        status = CASE WHEN ? IS NULL THEN 'failed' ELSE 'pending' END WHERE company_id = ? AND event_id = ?`,
  );
  const scrub = db.prepare<[number, number]>(
    `UPDATE webhook_inbox SET payload = NULL WHERE company_id = ? AND candidate_id = ? AND status <> 'pending'`,
  );
  const prune = db.prepare<[string]>(`DELETE FROM webhook_inbox WHERE received_at < ? AND status <> 'pending'`);
  const byId = db.prepare<[number, number], Row>('SELECT * FROM webhook_inbox WHERE company_id = ? AND event_id = ?');
  const recent = db.prepare<[number], Row>('SELECT * FROM webhook_inbox ORDER BY event_id DESC, company_id DESC LIMIT ?');
  const recentOf = db.prepare<[number, number], Row>('SELECT * FROM webhook_inbox WHERE company_id = ? ORDER BY event_id DESC LIMIT ?');
  const counts = db.prepare<[], { status: InboxStatus; n: number }>('SELECT status, count(*) AS n FROM webhook_inbox GROUP BY status');

  return {
    /**
     * Stores the event unless this company already sent its id. One statement: concurrent
     * deliveries of the same event cannot both insert. Returns false for a duplicate (which is
     * counted, not stored). The company is part of the key: event ids are one platform-wide
     * sequence, and an id another company's event already used must not make this one a duplicate.
     */
    receive(event: ReceivedEvent): boolean {
      const payload = event.payload;
      const inserted = insert.run({
        id: event.id,
        companyId: event.companyId,
        eventType: event.eventType,
        eventSubtype: event.eventSubtype,
        occurredAt: event.occurredAt,
        attemptCount: event.attemptCount,
        candidateId: idOf(payload.candidate),
        offerId: idOf(payload.offer),
        payload: JSON.stringify(payload),
        now: isoAt(clock.now()),
      });
      if (inserted.changes === 1) return true;
      duplicate.run(event.companyId, event.id);
      return false;
    },

    /** Pending events whose time has come, oldest event first. */
    due(limit: number): PendingEvent[] {
      return due
        .all(isoAt(clock.now()), limit)
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

    /** Takes the event for one handling attempt until `leaseUntil`; false when another run has it. */
    claim(event: EventKey, leaseUntil: number): boolean {
      const now = isoAt(clock.now());
      return claim.run(isoAt(leaseUntil), event.companyId, event.id, now).changes === 1;
    },

    /** Handled: the outcome is kept for the dashboard, the payload (personal data) is dropped. */
    handled(event: EventKey, outcome: string): void {
      handled.run(outcome.slice(0, 500), isoAt(clock.now()), event.companyId, event.id);
    },

    /** A failed attempt: retried at `retryAt`, or given up when it is null. */
    failed(event: EventKey, error: string, retryAt: number | null): void {
      const at = retryAt === null ? null : isoAt(retryAt);
      failed.run(error.slice(0, 500), at, at, event.companyId, event.id);
    },

    /** Drops the payloads still kept (given-up events) that name this candidate. */
    scrubCandidate(companyId: number, candidateId: number): void {
      scrub.run(companyId, candidateId);
    },

    /** Forgets handled and given-up events received before `before`; pending ones stay. */
    prune(before: number): number {
      return prune.run(isoAt(before)).changes;
    },

    /** The event `eventId` of company `companyId` (ids are unique per company only). */
    find(companyId: number, eventId: number): InboxEntry | undefined {
      const row = byId.get(companyId, eventId);
      return row && toEntry(row);
    },

    /** Newest first, for the dashboard. */
    list(options: { companyId?: number; limit?: number } = {}): InboxEntry[] {
      const limit = options.limit ?? 100;
      const rows = options.companyId === undefined ? recent.all(limit) : recentOf.all(options.companyId, limit);
      return rows.map(toEntry);
    },

    counts(): Record<InboxStatus, number> {
      const out: Record<InboxStatus, number> = { pending: 0, handled: 0, failed: 0 };
      for (const { status, n } of counts.all()) out[status] = n;
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
