import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';

/** Bodies longer than this are cut in the log; the call itself is never affected. */
const MAX_LOGGED_BODY = 64 * 1024;

export type CallDirection = 'inbound' | 'outbound';

export interface NewCall {
  direction: CallDirection;
  /** `validate_token`, `tests`, `send_candidate`, `cancel` (outbound); `partners.create`, `reports.update`, … (inbound). */
  endpoint: string;
  method: string;
  url: string;
  codename?: string | null;
  companyId?: number | null;
  reportId?: string | null;
  /** Already redacted (see redact.ts). */
  requestHeaders: Record<string, string>;
  requestBody?: string | null;
  responseStatus?: number | null;
  responseBody?: string | null;
  /** Why no response was received: timeout, connection error, dropped by an injected fault. */
  error?: string | null;
  /** What the platform showed its user (outbound calls). */
  outcome?: string | null;
  /** The injected fault that shaped this answer (inbound calls, and callbacks given a fault). */
  fault?: string | null;
  durationMs: number;
}

export interface Call {
  id: number;
  direction: CallDirection;
  endpoint: string;
  method: string;
  url: string;
  codename: string | null;
  company_id: number | null;
  report_id: string | null;
  request_headers: Record<string, string>;
  request_body: string | null;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  outcome: string | null;
  fault: string | null;
  duration_ms: number;
  created_at: string;
}

export interface CallFilters {
  direction?: CallDirection;
  endpoint?: string;
  codename?: string;
  companyId?: number;
  reportId?: string;
  status?: number;
  /** Only calls with a larger id: lets a test or the UI read what happened since a point. */
  afterId?: number;
  limit?: number;
  order?: 'asc' | 'desc';
}

type Row = Omit<Call, 'request_headers'> & { request_headers: string };

export type CallLog = ReturnType<typeof callLog>;

export function callLog(db: Db, clock: Clock) {
  const insert = db.prepare<Record<string, string | number | null>, { id: number }>(
    `INSERT INTO calls (direction, endpoint, method, url, codename, company_id, report_id, request_headers, request_body,
        response_status, response_body, error, outcome, fault, duration_ms, created_at)
     VALUES (@direction, @endpoint, @method, @url, @codename, @companyId, @reportId, @requestHeaders, @requestBody,
        @responseStatus, @responseBody, @error, @outcome, @fault, @durationMs, @createdAt) RETURNING id`,
  );
  const byId = db.prepare<[number], Row>('SELECT * FROM calls WHERE id = ?');
  const clear = db.prepare('DELETE FROM calls');

  return {
    record(call: NewCall): number {
      return insert.get({
        direction: call.direction,
        endpoint: call.endpoint,
        method: call.method,
        url: call.url,
        codename: call.codename ?? null,
        companyId: call.companyId ?? null,
        reportId: call.reportId ?? null,
        requestHeaders: JSON.stringify(call.requestHeaders),
        requestBody: cut(call.requestBody),
        responseStatus: call.responseStatus ?? null,
        responseBody: cut(call.responseBody),
        error: call.error ?? null,
        outcome: call.outcome ?? null,
        fault: call.fault ?? null,
        durationMs: Math.round(call.durationMs),
        createdAt: isoAt(clock.now()),
      })!.id;
    },

    find(id: number): Call | undefined {
      const row = byId.get(id);
      return row && toCall(row);
    },

    list(filters: CallFilters = {}): Call[] {
      const where: string[] = [];
      const params: (string | number)[] = [];
      const add = (clause: string, value: string | number | undefined) => {
        if (value === undefined) return;
        where.push(clause);
        params.push(value);
      };
      add('direction = ?', filters.direction);
      add('endpoint = ?', filters.endpoint);
      add('codename = ?', filters.codename);
      add('company_id = ?', filters.companyId);
      add('report_id = ?', filters.reportId);
      add('response_status = ?', filters.status);
      add('id > ?', filters.afterId);
      const order = filters.order === 'desc' ? 'DESC' : 'ASC';
      params.push(filters.limit ?? 100);
      // Only fixed clauses are concatenated; every value is a bound parameter.
      const sql = `SELECT * FROM calls ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id ${order} LIMIT ?`;
      return db.prepare<(string | number)[], Row>(sql).all(...params).map(toCall);
    },

    clear(): void {
      clear.run();
    },
  };
}

function cut(body: string | null | undefined): string | null {
  if (body === undefined || body === null) return null;
  return body.length > MAX_LOGGED_BODY ? `${body.slice(0, MAX_LOGGED_BODY)}… [cut at ${MAX_LOGGED_BODY} characters]` : body;
}

function toCall(r: Row): Call {
  return { ...r, request_headers: JSON.parse(r.request_headers) as Record<string, string> };
}
