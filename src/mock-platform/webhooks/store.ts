import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../contract/decisions.js';
import type { Db } from '../../lib/db.js';

/** Response bodies longer than this are cut in the request log; the delivery is not affected. */
export const MAX_LOGGED_RESPONSE = 16 * 1024;

export interface WebhookConfig {
  id: number;
  companyId: number;
  name: string;
  url: string;
  events: WebhookEventType[];
  secret: string;
  /** Members e-mailed when a delivery fails. */
  recipients: number[];
  createdBy: number | null;
  createdAt: string;
  updatedAt: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'canceled';

export interface Delivery {
  id: number;
  eventId: number;
  webhookId: number;
  companyId: number;
  eventType: string;
  eventSubtype: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: string | null;
  rateLimited: number;
  createdAt: string;
  updatedAt: string;
}

/** A due delivery with what sending it needs. */
export interface DueDelivery extends Delivery {
  /**
   * Set when "retry now" was pressed on a delivery with no automatic retries left: this attempt is
   * the only one, and if it fails the delivery goes back to this status.
   */
  manualFrom: 'failed' | 'canceled' | null;
  url: string;
  secret: string;
  webhookName: string;
  eventCreatedAt: string;
  payload: string;
}

export type RequestKind = 'event' | 'test' | 'test_payload';

export interface WebhookRequest {
  id: number;
  companyId: number;
  webhookId: number | null;
  deliveryId: number | null;
  eventId: number | null;
  kind: RequestKind;
  attemptCount: number | null;
  url: string;
  requestHeaders: Record<string, string>;
  body: string;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number | null;
  startedAt: string;
  finishedAt: string | null;
  nextAttemptAt: string | null;
}

export interface StoredEvent {
  id: number;
  companyId: number;
  eventType: string;
  eventSubtype: string;
  payload: Record<string, unknown>;
  createdAt: string;
}

/** What is known of a request before it is sent. */
export type NewRequest = Pick<
  WebhookRequest,
  'companyId' | 'webhookId' | 'deliveryId' | 'eventId' | 'kind' | 'attemptCount' | 'url' | 'requestHeaders' | 'body'
>;

/** What its answer (or failure) adds. */
export type RequestOutcome = Pick<WebhookRequest, 'responseStatus' | 'responseBody' | 'error'> & { durationMs: number };

interface ConfigRow {
  id: number;
  company_id: number;
  name: string;
  url: string;
  events: string;
  secret: string;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

interface DeliveryRow {
  id: number;
  event_id: number;
  webhook_id: number;
  company_id: number;
  event_type: string;
  event_subtype: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  rate_limited: number;
  created_at: string;
  updated_at: string;
}

interface RequestRow {
  id: number;
  company_id: number;
  webhook_id: number | null;
  delivery_id: number | null;
  event_id: number | null;
  kind: RequestKind;
  attempt_count: number | null;
  url: string;
  request_headers: string;
  body: string;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number | null;
  started_at: string;
  finished_at: string | null;
  next_attempt_at: string | null;
}

export interface DeliveryFilter {
  webhookId?: number;
  eventId?: number;
  status?: DeliveryStatus;
  limit?: number;
}

export interface RequestFilter {
  webhookId?: number;
  deliveryId?: number;
  eventId?: number;
  kind?: RequestKind;
  limit?: number;
}

export type WebhookStore = ReturnType<typeof webhookStore>;

const DELIVERY_COLUMNS = `d.id, d.event_id, d.webhook_id, d.company_id, e.event_type, e.event_subtype, d.status,
  d.attempt_count, d.next_attempt_at, d.rate_limited, d.created_at, d.updated_at`;

/** The webhooks' tables: configurations, events, deliveries and the request log. */
export function webhookStore(db: Db, clock: Clock) {
  const now = () => isoAt(clock.now());

  const configById = db.prepare<[number, number], ConfigRow>(
    'SELECT * FROM webhooks WHERE company_id = ? AND id = ? AND deleted_at IS NULL',
  );
  const configsOf = db.prepare<[number], ConfigRow>(
    'SELECT * FROM webhooks WHERE company_id = ? AND deleted_at IS NULL ORDER BY id',
  );
  const recipientsOf = db.prepare<[number], { user_id: number }>(
    'SELECT user_id FROM webhook_recipients WHERE webhook_id = ? ORDER BY user_id',
  );
  const recipientEmails = db.prepare<[number], { name: string; email: string }>(
    `SELECT u.name, u.email FROM webhook_recipients r JOIN users u ON u.id = r.user_id
      WHERE r.webhook_id = ? ORDER BY u.id`,
  );
  const insertConfig = db.prepare<[number, string, string, string, string, number | null, string, string], { id: number }>(
    `INSERT INTO webhooks (company_id, name, url, events, secret, created_by, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const updateConfig = db.prepare<[string, string, string, string, number]>(
    'UPDATE webhooks SET name = ?, url = ?, events = ?, updated_at = ? WHERE id = ?',
  );
  const updateSecret = db.prepare<[string, string, number]>('UPDATE webhooks SET secret = ?, updated_at = ? WHERE id = ?');
  const deleteConfig = db.prepare<[string, string, number]>('UPDATE webhooks SET deleted_at = ?, updated_at = ? WHERE id = ?');
  const clearRecipients = db.prepare<[number]>('DELETE FROM webhook_recipients WHERE webhook_id = ?');
  const addRecipient = db.prepare<[number, number]>('INSERT INTO webhook_recipients (webhook_id, user_id) VALUES (?, ?)');
  const member = db.prepare<[number, number], { id: number; can_manage_webhooks: number }>(
    'SELECT id, can_manage_webhooks FROM users WHERE company_id = ? AND id = ?',
  );

  const insertEvent = db.prepare<[number, string, string, string, string], { id: number }>(
    `INSERT INTO webhook_events (company_id, event_type, event_subtype, payload, created_at)
     VALUES (?, ?, ?, ?, ?) RETURNING id`,
  );
  const eventById = db.prepare<[number, number], { id: number; company_id: number; event_type: string; event_subtype: string; payload: string; created_at: string }>(
    'SELECT * FROM webhook_events WHERE company_id = ? AND id = ?',
  );
  const eventsOf = db.prepare<[number, number], { id: number; company_id: number; event_type: string; event_subtype: string; payload: string; created_at: string }>(
    'SELECT * FROM webhook_events WHERE company_id = ? ORDER BY id DESC LIMIT ?',
  );
  const insertDelivery = db.prepare<[number, number, number, string, string, string]>(
    `INSERT INTO webhook_deliveries (event_id, webhook_id, company_id, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );

  const deliveryById = db.prepare<[number, number], DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.company_id = ? AND d.id = ?`,
  );
  const due = db.prepare<
    [string, string, string, number],
    DeliveryRow & { manual_from: 'failed' | 'canceled' | null; url: string; secret: string; webhook_name: string; event_created_at: string; payload: string }
  >(
    `SELECT ${DELIVERY_COLUMNS}, d.manual_from, w.url, w.secret, w.name AS webhook_name, e.created_at AS event_created_at, e.payload
       FROM webhook_deliveries d
       JOIN webhook_events e ON e.id = d.event_id
       JOIN webhooks w ON w.id = d.webhook_id AND w.deleted_at IS NULL
      WHERE d.status = 'pending' AND d.next_attempt_at <= ?
        AND w.url NOT IN (SELECT value FROM json_each(?)) AND d.id NOT IN (SELECT value FROM json_each(?))
      ORDER BY d.next_attempt_at, d.id LIMIT ?`,
  );
  const eventRequestsSince = db.prepare<[number, string], { n: number }>(
    `SELECT count(*) AS n FROM webhook_requests WHERE kind = 'event' AND company_id = ? AND started_at > ?`,
  );
  const postpone = db.prepare<[string, string, number]>(
    `UPDATE webhook_deliveries SET next_attempt_at = ?, rate_limited = rate_limited + 1, updated_at = ?
      WHERE id = ? AND status = 'pending'`,
  );
  // Only a delivery still due can be claimed: a second worker finds it leased.
  const claim = db.prepare<[string, string, number, string], { attempt_count: number }>(
    `UPDATE webhook_deliveries SET attempt_count = attempt_count + 1, next_attempt_at = ?, updated_at = ?
      WHERE id = ? AND status = 'pending' AND next_attempt_at <= ? RETURNING attempt_count`,
  );
  const interrupted = db.prepare<[string, number]>(
    `UPDATE webhook_requests SET error = 'interrupted before an answer was recorded', finished_at = ?
      WHERE delivery_id = ? AND finished_at IS NULL`,
  );
  const insertRequest = db.prepare<
    [number, number | null, number | null, number | null, string, number | null, string, string, string, string],
    { id: number }
  >(
    `INSERT INTO webhook_requests (company_id, webhook_id, delivery_id, event_id, kind, attempt_count, url,
        request_headers, body, started_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const finishRequest = db.prepare<[number | null, string | null, string | null, number, string, string | null, number]>(
    `UPDATE webhook_requests SET response_status = ?, response_body = ?, error = ?, duration_ms = ?, finished_at = ?,
        next_attempt_at = ? WHERE id = ?`,
  );
  // "Retry now": due at once; one with no automatic retries left remembers where it returns to.
  const retryNow = db.prepare<[string, string, number]>(
    `UPDATE webhook_deliveries SET next_attempt_at = ?, updated_at = ?,
        manual_from = CASE WHEN status IN ('failed', 'canceled') THEN status ELSE manual_from END,
        status = 'pending'
      WHERE id = ?`,
  );
  const cancel = db.prepare<[string, number]>(
    `UPDATE webhook_deliveries SET status = 'canceled', next_attempt_at = NULL, manual_from = NULL, updated_at = ?
      WHERE id = ?`,
  );
  // A delivery canceled while its request was in flight stays canceled, unless that request succeeded.
  const settle = db.prepare<[DeliveryStatus, string | null, string, number, DeliveryStatus]>(
    `UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, manual_from = NULL, updated_at = ?
      WHERE id = ? AND (status = 'pending' OR ? = 'delivered')`,
  );
  const companyById = db.prepare<[number], { id: number; name: string }>('SELECT id, name FROM companies WHERE id = ?');
  const cancelPendingOf = db.prepare<[string, number]>(
    `UPDATE webhook_deliveries SET status = 'canceled', next_attempt_at = NULL, updated_at = ?
      WHERE webhook_id = ? AND status = 'pending'`,
  );
  const requestById = db.prepare<[number, number], RequestRow>('SELECT * FROM webhook_requests WHERE company_id = ? AND id = ?');

  const pruneRequests = db.prepare<[string]>('DELETE FROM webhook_requests WHERE started_at < ?');
  const pruneDeliveries = db.prepare<[string]>(
    `DELETE FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < ?`,
  );
  const pruneEvents = db.prepare<[string]>(
    `DELETE FROM webhook_events WHERE created_at < ?
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)`,
  );

  const toConfig = (r: ConfigRow): WebhookConfig => ({
    id: r.id,
    companyId: r.company_id,
    name: r.name,
    url: r.url,
    events: JSON.parse(r.events) as WebhookEventType[],
    secret: r.secret,
    recipients: recipientsOf.all(r.id).map((x) => x.user_id),
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });

  const setRecipients = (webhookId: number, userIds: readonly number[]) => {
    clearRecipients.run(webhookId);
    for (const userId of new Set(userIds)) addRecipient.run(webhookId, userId);
  };

  return {
    company: (id: number): { id: number; name: string } | undefined => companyById.get(id),

    /** The member's webhook ability: undefined when they are not a member of the company. */
    member(companyId: number, userId: number): { canManageWebhooks: boolean } | undefined {
      const row = member.get(companyId, userId);
      return row && { canManageWebhooks: row.can_manage_webhooks === 1 };
    },

    config(companyId: number, id: number): WebhookConfig | undefined {
      const row = configById.get(companyId, id);
      return row && toConfig(row);
    },
    configs: (companyId: number): WebhookConfig[] => configsOf.all(companyId).map(toConfig),

    createConfig(input: Omit<WebhookConfig, 'id' | 'createdAt' | 'updatedAt'>): WebhookConfig {
      return db.transaction(() => {
        const at = now();
        const { id } = insertConfig.get(
          input.companyId, input.name, input.url, JSON.stringify(input.events), input.secret, input.createdBy, at, at,
        )!;
        setRecipients(id, input.recipients);
        return toConfig(configById.get(input.companyId, id)!);
      })();
    },

    updateConfig(config: WebhookConfig): WebhookConfig {
      return db.transaction(() => {
        updateConfig.run(config.name, config.url, JSON.stringify(config.events), now(), config.id);
        setRecipients(config.id, config.recipients);
        return toConfig(configById.get(config.companyId, config.id)!);
      })();
    },

    setSecret(config: WebhookConfig, secret: string): WebhookConfig {
      updateSecret.run(secret, now(), config.id);
      return toConfig(configById.get(config.companyId, config.id)!);
    },

    /** Deletes the configuration and cancels what it still had to deliver; its log stays. */
    deleteConfig(config: WebhookConfig): void {
      db.transaction(() => {
        const at = now();
        deleteConfig.run(at, at, config.id);
        cancelPendingOf.run(at, config.id);
      })();
    },

    recipientEmails: (webhookId: number) => recipientEmails.all(webhookId),

    /**
     * Stores an event and one delivery, due now, for each configuration of the company that selected
     * its type. Runs inside the caller's transaction when there is one (the state change and its
     * event commit together).
     */
    recordEvent(companyId: number, eventType: WebhookEventType, eventSubtype: string, payload: Record<string, unknown>) {
      const subtypes: readonly string[] = WEBHOOK_EVENT_TYPES[eventType];
      if (!subtypes.includes(eventSubtype)) throw new Error(`${eventType} has no subtype ${eventSubtype}`);
      return db.transaction(() => {
        const at = now();
        const { id } = insertEvent.get(companyId, eventType, eventSubtype, JSON.stringify(payload), at)!;
        let deliveries = 0;
        for (const config of configsOf.all(companyId)) {
          if (!(JSON.parse(config.events) as string[]).includes(eventType)) continue;
          insertDelivery.run(id, config.id, companyId, at, at, at);
          deliveries += 1;
        }
        return { eventId: id, deliveries };
      })();
    },

    event(companyId: number, id: number): StoredEvent | undefined {
      const row = eventById.get(companyId, id);
      return row && toEvent(row);
    },
    events: (companyId: number, limit = 100): StoredEvent[] => eventsOf.all(companyId, limit).map(toEvent),

    delivery(companyId: number, id: number): Delivery | undefined {
      const row = deliveryById.get(companyId, id);
      return row && toDelivery(row);
    },

    deliveries(companyId: number, filter: DeliveryFilter = {}): Delivery[] {
      const { where, args } = equalities({
        'd.company_id': companyId,
        'd.webhook_id': filter.webhookId,
        'd.event_id': filter.eventId,
        'd.status': filter.status,
      });
      return db
        .prepare<(string | number)[], DeliveryRow>(
          `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
            WHERE ${where} ORDER BY d.id DESC LIMIT ?`,
        )
        .all(...args, filter.limit ?? 100)
        .map(toDelivery);
    },

    /**
     * Deliveries whose time has come, oldest first; none to the URLs in `except.urls` nor with the
     * ids in `except.ids` (the worker's own requests in flight, whose lease a clock jump may end).
     */
    due(limit: number, except: { urls?: readonly string[]; ids?: readonly number[] } = {}): DueDelivery[] {
      return due.all(now(), JSON.stringify(except.urls ?? []), JSON.stringify(except.ids ?? []), limit).map((r) => ({
        ...toDelivery(r),
        manualFrom: r.manual_from,
        url: r.url,
        secret: r.secret,
        webhookName: r.webhook_name,
        eventCreatedAt: r.event_created_at,
        payload: r.payload,
      }));
    },

    /** Event requests the company started after `since` (ISO), for the rate limit. */
    eventRequestsSince: (companyId: number, since: string): number => eventRequestsSince.get(companyId, since)!.n,

    postpone(deliveryId: number, until: number): void {
      postpone.run(isoAt(until), now(), deliveryId);
    },

    /**
     * Takes a due delivery for one attempt: counts the attempt, leases it until `leaseUntil` (a worker
     * that dies mid-request leaves it to be retried then) and logs the request as started. The body
     * is built from the new attempt count. Undefined when the delivery is no longer pending.
     */
    claim(
      delivery: DueDelivery,
      leaseUntil: number,
      build: (attemptCount: number) => { headers: Record<string, string>; body: string },
    ): { attemptCount: number; requestId: number; headers: Record<string, string>; body: string } | undefined {
      return db.transaction(() => {
        const at = now();
        const claimed = claim.get(isoAt(leaseUntil), at, delivery.id, at);
        if (!claimed) return undefined;
        interrupted.run(at, delivery.id);
        const { headers, body } = build(claimed.attempt_count);
        const { id } = insertRequest.get(
          delivery.companyId, delivery.webhookId, delivery.id, delivery.eventId, 'event', claimed.attempt_count,
          delivery.url, JSON.stringify(headers), body, at,
        )!;
        return { attemptCount: claimed.attempt_count, requestId: id, headers, body };
      })();
    },

    /** Records a request's answer and what happens to its delivery next. */
    settle(requestId: number, deliveryId: number, outcome: RequestOutcome, next: { status: DeliveryStatus; at: number | null }): void {
      db.transaction(() => {
        const at = now();
        const nextAt = next.at === null ? null : isoAt(next.at);
        finishRequest.run(outcome.responseStatus, cut(outcome.responseBody), outcome.error, Math.round(outcome.durationMs), at, nextAt, requestId);
        settle.run(next.status, nextAt, at, deliveryId, next.status);
      })();
    },

    /** Logs a request that belongs to no delivery (test requests), with its answer. */
    logRequest(request: NewRequest & RequestOutcome & { startedAt: number }): WebhookRequest {
      return db.transaction(() => {
        const { id } = insertRequest.get(
          request.companyId, request.webhookId, null, null, request.kind, null, request.url,
          JSON.stringify(request.requestHeaders), request.body, isoAt(request.startedAt),
        )!;
        finishRequest.run(request.responseStatus, cut(request.responseBody), request.error, Math.round(request.durationMs), now(), null, id);
        return toRequest(requestById.get(request.companyId, id)!);
      })();
    },

    /**
     * "Retry now": due at once, unless delivered. A pending delivery keeps its automatic schedule
     * after this attempt; a given-up or canceled one gets this one attempt only (`manualFrom`).
     */
    retryNow(delivery: Delivery): Delivery {
      retryNow.run(now(), now(), delivery.id);
      return toDelivery(deliveryById.get(delivery.companyId, delivery.id)!);
    },

    /** "Cancel retry": no further automatic attempt. */
    cancel(delivery: Delivery): Delivery {
      cancel.run(now(), delivery.id);
      return toDelivery(deliveryById.get(delivery.companyId, delivery.id)!);
    },

    request(companyId: number, id: number): WebhookRequest | undefined {
      const row = requestById.get(companyId, id);
      return row && toRequest(row);
    },

    requests(companyId: number, filter: RequestFilter = {}): WebhookRequest[] {
      const { where, args } = equalities({
        company_id: companyId,
        webhook_id: filter.webhookId,
        delivery_id: filter.deliveryId,
        event_id: filter.eventId,
        kind: filter.kind,
      });
      return db
        .prepare<(string | number)[], RequestRow>(`SELECT * FROM webhook_requests WHERE ${where} ORDER BY id DESC LIMIT ?`)
        .all(...args, filter.limit ?? 100)
        .map(toRequest);
    },

    /** Forgets requests, finished deliveries and their events older than `before` (the 30-day log). */
    prune(before: number): void {
      const cutoff = isoAt(before);
      db.transaction(() => {
        pruneRequests.run(cutoff);
        pruneDeliveries.run(cutoff);
        pruneEvents.run(cutoff);
      })();
    },
  };
}

function cut(text: string | null): string | null {
  return text !== null && text.length > MAX_LOGGED_RESPONSE ? `${text.slice(0, MAX_LOGGED_RESPONSE)}…` : text;
}

function toEvent(r: { id: number; company_id: number; event_type: string; event_subtype: string; payload: string; created_at: string }): StoredEvent {
  return {
    id: r.id,
    companyId: r.company_id,
    eventType: r.event_type,
    eventSubtype: r.event_subtype,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
    createdAt: r.created_at,
  };
}

function toDelivery(r: DeliveryRow): Delivery {
  return {
    id: r.id,
    eventId: r.event_id,
    webhookId: r.webhook_id,
    companyId: r.company_id,
    eventType: r.event_type,
    eventSubtype: r.event_subtype,
    status: r.status,
    attemptCount: r.attempt_count,
    nextAttemptAt: r.next_attempt_at,
    rateLimited: r.rate_limited,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toRequest(r: RequestRow): WebhookRequest {
  return {
    id: r.id,
    companyId: r.company_id,
    webhookId: r.webhook_id,
    deliveryId: r.delivery_id,
    eventId: r.event_id,
    kind: r.kind,
    attemptCount: r.attempt_count,
    url: r.url,
    requestHeaders: JSON.parse(r.request_headers) as Record<string, string>,
    body: r.body,
    responseStatus: r.response_status,
    responseBody: r.response_body,
    error: r.error,
    durationMs: r.duration_ms,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    nextAttemptAt: r.next_attempt_at,
  };
}

/**
 * `column = ?` for each filter that is set, ANDed, with the values in order. Column names come
 * from this file's code, never from a request; only the values are bound.
 */
function equalities(filters: Record<string, string | number | undefined>): { where: string; args: (string | number)[] } {
  const set = Object.entries(filters).filter((entry): entry is [string, string | number] => entry[1] !== undefined);
  return { where: set.map(([column]) => `${column} = ?`).join(' AND '), args: set.map(([, value]) => value) };
}
