import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { InvitationUpdate } from '../invitations/update.js';
import { indexedBy, placeholders, type Prelude, type Sql } from '../../lib/sql.js';
import { DELIVERY_RETRY } from './policy.js';
import { claimQuery } from '../jobs/lease.js';
import type { DeliveryTarget } from '../platforms/platform.js';

/** The invitation a delivery is about, as stored (the worker adds the way to its credential). */
export type StoredTarget = Omit<DeliveryTarget, 'credential'>;

export type UpdateStatus = 'pending' | 'delivered' | 'dead' | 'canceled' | 'superseded';

export interface QueuedUpdate {
  id: number;
  reportId: string;
  body: InvitationUpdate;
  status: UpdateStatus;
  attempts: number;
  nextAttemptAt: string;
  giveUpAt: string;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryAttempt {
  id: number;
  reportId: string;
  firstUpdateId: number;
  lastUpdateId: number;
  requestBody: string;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  outcome: 'delivered' | 'retry' | 'dead';
  nextAttemptAt: string | null;
  startedAt: string;
  durationMs: number;
}

interface UpdateRow {
  id: number;
  report_id: string;
  body: string;
  status: UpdateStatus;
  attempts: number;
  next_attempt_at: string;
  give_up_at: string;
  last_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

interface AttemptRow {
  id: number;
  report_id: string;
  first_update_id: number;
  last_update_id: number;
  request_body: string;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  outcome: DeliveryAttempt['outcome'];
  next_attempt_at: string | null;
  started_at: string;
  duration_ms: number;
}

export type UpdateOutbox = ReturnType<typeof updateOutbox>;

/**
 * What else a delivery's record writes, in the same commit: what the answer means for the
 * invitation (the worker's `recordAnswer`), what the platform stored with it. `run` writes it in
 * `tx`. `oneStatement`: `run` makes exactly one statement, which carries the record too when it is
 * given one as `prelude` — on PostgreSQL the record and `run` are then that one statement, one
 * round trip where a transaction costs four.
 */
export interface AlongWith<T> {
  run: (tx: Sql, prelude?: Prelude) => Promise<T>;
  oneStatement?: boolean;
}

/**
 * The `report_updates` outbox. `enqueue` is called inside the transaction that changes the
 * invitation, so the change and its announcement commit together or not at all.
 */
export function updateOutbox(sql: Sql, clock: Clock) {
  // The oldest pending update of each report that has one, when it is due. A report's newer
  // updates wait behind its oldest: they are sent with it, never before it.
  //
  // On SQLite, INDEXED BY names the plan these need, whatever its planner would guess: the due
  // updates in order of the due index, each checked against its own report's earlier updates. Left
  // to itself, it checked each pending update against every older pending one (by status): a backlog
  // of 20,000 undelivered updates (a platform down for an hour) took a minute per query, with the
  // server's event loop held all the while.
  const due = indexedBy(sql, 'report_updates_due');
  const byInvitation = indexedBy(sql, 'report_updates_by_invitation');
  const isHead = `NOT EXISTS (SELECT 1 FROM report_updates p ${byInvitation}
                               WHERE p.invitation_id = u.invitation_id AND p.status = 'pending' AND p.id < u.id)`;
  // Claiming a head holds its whole report: the report's newer updates are not heads while it is
  // pending. `skipping` platforms whose deliveries cannot go out yet ($4…) are passed over.
  const claimHeads = (skipping: number) =>
    claimQuery(sql, {
      table: 'report_updates',
      lease: 'next_attempt_at',
      from: `report_updates u ${due}`,
      alias: 'u',
      where:
        `u.status = 'pending' AND u.next_attempt_at <= $1 AND ${isHead}` +
        (skipping === 0 ? '' : ` AND NOT EXISTS (SELECT 1 FROM invitations i WHERE i.id = u.invitation_id AND i.platform IN (${placeholders(skipping, 4)}))`),
      order: 'u.next_attempt_at, u.id',
    });
  const nextDue = `SELECT min(u.next_attempt_at) AS at FROM report_updates u ${due} WHERE u.status = 'pending' AND ${isHead}`;
  const ofInvitation = '(SELECT id FROM invitations WHERE report_id = $1)';
  // A report with a dead letter keeps its whole history: an operator may still revive it, and the
  // worker needs the delivered updates to know what the revived one must not overwrite. Each row
  // looks for its own report's dead letters (INDEXED BY, as above), not through every dead letter.
  const pruneAttempts = `DELETE FROM report_update_attempts WHERE started_at < $1
      AND NOT EXISTS (SELECT 1 FROM report_updates d ${byInvitation}
                       WHERE d.invitation_id = report_update_attempts.invitation_id AND d.status = 'dead')`;
  const pruneSettled = `DELETE FROM report_updates WHERE status IN ('delivered', 'superseded', 'canceled') AND updated_at < $1
      AND NOT EXISTS (SELECT 1 FROM report_updates d ${byInvitation}
                       WHERE d.invitation_id = report_updates.invitation_id AND d.status = 'dead')`;

  const now = () => isoAt(clock.now());
  const updates = async (text: string, params: unknown[]) => (await sql.all<UpdateRow>(text, params)).map(toUpdate);

  /**
   * The attempt and what became of its updates (`settle`: the SET of their UPDATE, its parameters
   * numbered from $12, after the attempt's eleven) in one step, with `also` when given, in one
   * commit. On PostgreSQL the attempt is a CTE of the updates' UPDATE: one statement, atomic with no
   * transaction around it; with an `also` of one statement, both are CTEs in front of it, still one
   * statement; with another `also`, a transaction. On SQLite, whose CTEs cannot write, a
   * transaction: `tx` when given (one holding other deliveries' records, `inOneCommit`), else its
   * own. Resolves with what `also` did.
   */
  const record = <T>(
    attempt: Omit<DeliveryAttempt, 'id'>,
    ids: readonly number[],
    settle: { set: string; params: unknown[] },
    also?: AlongWith<T>,
    tx?: Sql,
  ): Promise<T | undefined> => {
    const logged = [
      attempt.reportId, attempt.firstUpdateId, attempt.lastUpdateId, attempt.requestBody, attempt.responseStatus,
      attempt.responseBody, attempt.error, attempt.outcome, attempt.nextAttemptAt, attempt.startedAt, attempt.durationMs,
    ];
    const insertAttempt = `INSERT INTO report_update_attempts (invitation_id, report_id, first_update_id, last_update_id, request_body,
          response_status, response_body, error, outcome, next_attempt_at, started_at, duration_ms)
       SELECT id, report_id, CAST($2 AS INTEGER), CAST($3 AS INTEGER), $4, CAST($5 AS INTEGER), $6, $7, $8, $9, $10, CAST($11 AS INTEGER)
         FROM invitations WHERE report_id = $1`;
    const settled = `UPDATE report_updates SET ${settle.set} WHERE status = 'pending' AND id IN (${placeholders(ids.length, 12 + settle.params.length)})`;
    const params = [...logged, ...settle.params, ...ids];
    if (sql.dialect === 'sqlite') {
      const write = async (t: Sql) => {
        await t.run(insertAttempt, logged);
        await t.run(settled, params);
        return also?.run(t);
      };
      return tx ? write(tx) : sql.transaction(write);
    }
    const on = tx ?? sql;
    if (also?.oneStatement) return also.run(on, { ctes: `attempt AS (${insertAttempt}), settled AS (${settled})`, params });
    const write = (t: Sql) => t.run(`WITH attempt AS (${insertAttempt}) ${settled}`, params);
    if (!also) return write(on).then(() => undefined);
    return on.transaction(async (t) => {
      await write(t);
      return also.run(t);
    });
  };
  /** `settle` for `record`: the updates' final status and the answer's. */
  const finalStatus = (status: UpdateStatus, lastStatus: number | null, error: string | null, deliveredAt: string | null, at: string) => ({
    set: 'status = $12, attempts = attempts + 1, last_status = $13, last_error = $14, delivered_at = $15, updated_at = $16',
    params: [status, lastStatus, error, deliveredAt, at],
  });

  /** Queues an update of a report. Call it inside the transaction (`tx`) of the change it announces. */
  const enqueue = async (tx: Sql, reportId: string, body: InvitationUpdate): Promise<number> => {
    const at = clock.now();
    const row = await tx.get<{ id: number }>(
      `INSERT INTO report_updates (invitation_id, report_id, body, next_attempt_at, give_up_at, created_at, updated_at)
       SELECT id, report_id, $2, $3, $4, $3, $3 FROM invitations WHERE report_id = $1 RETURNING id`,
      [reportId, JSON.stringify(body), isoAt(at), isoAt(at + DELIVERY_RETRY.giveUpAfterMs)],
    );
    if (!row) throw new Error(`No invitation for report ${reportId}`);
    return row.id;
  };

  return {
    enqueue,

    /**
     * A change of an invitation and the update that announces it, as one step. `change` is an
     * UPDATE of `invitations` that ends `RETURNING id, report_id` (and whatever else the caller
     * reads of the row), its parameters `$1…$n`. On PostgreSQL it is one statement: the change in a
     * CTE, the update queued from the row it returned. On SQLite, whose CTEs cannot write, it is the
     * change, then the update: two statements, so `tx` must be a transaction there. Resolves with the
     * changed row; undefined when the change changed nothing, and then nothing is queued.
     */
    async enqueueWith<R extends { id: number; report_id: string }>(tx: Sql, change: { text: string; params: unknown[] }, body: InvitationUpdate): Promise<R | undefined> {
      const at = clock.now();
      const queued = [JSON.stringify(body), isoAt(at), isoAt(at + DELIVERY_RETRY.giveUpAfterMs)];
      if (tx.dialect === 'sqlite') {
        const changed = await tx.get<R>(change.text, change.params);
        if (changed) await enqueue(tx, changed.report_id, body);
        return changed;
      }
      const [b, t, g] = [1, 2, 3].map((i) => `$${change.params.length + i}`);
      // The row as the change left it; the INSERT runs whether or not the SELECT names it.
      return tx.get<R>(
        `WITH changed AS (${change.text}),
              queued AS (INSERT INTO report_updates (invitation_id, report_id, body, next_attempt_at, give_up_at, created_at, updated_at)
                         SELECT id, report_id, ${b}, ${t}, ${g}, ${t}, ${t} FROM changed)
         SELECT * FROM changed`,
        [...change.params, ...queued],
      );
    },

    /**
     * Claims the updates to send now, the oldest pending one of each report, when due, for
     * `leaseMs` (jobs/lease.ts): until then no other run, on any instance, sends that report's
     * updates. A settled update (delivered, dead, retried later) releases its report.
     */
    claimDueHeads(limit: number, leaseMs: number, skipPlatforms: readonly string[] = []): Promise<QueuedUpdate[]> {
      const params = [now(), isoAt(clock.now() + leaseMs), limit];
      return updates(claimHeads(skipPlatforms.length), [...params, ...skipPlatforms]).then((heads) => heads.sort((a, b) => a.id - b.id));
    },

    /**
     * What a delivery of `head` needs, in one read: the report's pending updates (oldest first), the
     * updates of it delivered after `head` was queued (only after an operator revived an old one),
     * and the invitation they are about — its platform, and what that platform stored with it.
     * No target when the report has neither (erased since its head was claimed).
     */
    async toDeliver(head: Pick<QueuedUpdate, 'id' | 'reportId'>): Promise<{ pending: QueuedUpdate[]; newer: QueuedUpdate[]; target?: StoredTarget & { platform: string } }> {
      const rows = await sql.all<UpdateRow & { platform: string; account_id: number; platform_data: string }>(
        `SELECT u.*, i.platform, i.account_id, i.platform_data FROM invitations i JOIN report_updates u ON u.invitation_id = i.id
          WHERE i.report_id = $1 AND (u.status = 'pending' OR (u.status = 'delivered' AND u.id > $2)) ORDER BY u.id`,
        [head.reportId, head.id],
      );
      const first = rows[0];
      return {
        pending: rows.filter((r) => r.status === 'pending').map(toUpdate),
        newer: rows.filter((r) => r.status === 'delivered').map(toUpdate),
        ...(first && {
          target: { reportId: head.reportId, platform: first.platform, accountId: first.account_id, data: JSON.parse(first.platform_data) as Record<string, unknown> },
        }),
      };
    },

    /** Replaces what the invitation's platform stored with it (`DeliveryRequest.platformDataAfter`), inside `tx`. */
    async replacePlatformData(tx: Sql, reportId: string, data: Readonly<Record<string, unknown>>): Promise<void> {
      await tx.run('UPDATE invitations SET platform_data = $1, updated_at = $2 WHERE report_id = $3', [JSON.stringify(data), now(), reportId]);
    },

    /** Claims given back unsent (a shutdown): the reports' updates are due again at once, for any instance. */
    async release(ids: readonly number[]): Promise<void> {
      if (ids.length === 0) return;
      await sql.run(`UPDATE report_updates SET next_attempt_at = $1 WHERE status = 'pending' AND id IN (${placeholders(ids.length, 2)})`, [now(), ...ids]);
    },

    /** When the next update falls due (undefined when nothing is pending). */
    async nextDueAt(): Promise<string | undefined> {
      return (await sql.get<{ at: string | null }>(nextDue))?.at ?? undefined;
    },

    /** A report's pending updates, oldest first. */
    pendingOf(reportId: string): Promise<QueuedUpdate[]> {
      return updates(`SELECT * FROM report_updates WHERE invitation_id = ${ofInvitation} AND status = 'pending' ORDER BY id`, [reportId]);
    },

    async find(id: number): Promise<QueuedUpdate | undefined> {
      return (await updates('SELECT * FROM report_updates WHERE id = $1', [id]))[0];
    },

    ofReport(reportId: string): Promise<QueuedUpdate[]> {
      return updates(`SELECT * FROM report_updates WHERE invitation_id = ${ofInvitation} ORDER BY id`, [reportId]);
    },

    /**
     * The newest updates first, for the dashboard. One statement per filter, each walking the index
     * that orders it: one statement with optional filters read every update to find a rare status
     * (56 ms among 500,000).
     */
    recent(options: { status?: UpdateStatus; reportId?: string; limit?: number } = {}): Promise<QueuedUpdate[]> {
      const { status, reportId, limit = 100 } = options;
      if (reportId !== undefined && status !== undefined) {
        return updates(`SELECT * FROM report_updates WHERE invitation_id = ${ofInvitation} AND status = $2 ORDER BY id DESC LIMIT $3`, [reportId, status, limit]);
      }
      if (reportId !== undefined) return updates(`SELECT * FROM report_updates WHERE invitation_id = ${ofInvitation} ORDER BY id DESC LIMIT $2`, [reportId, limit]);
      if (status !== undefined) return updates('SELECT * FROM report_updates WHERE status = $1 ORDER BY id DESC LIMIT $2', [status, limit]);
      return updates('SELECT * FROM report_updates ORDER BY id DESC LIMIT $1', [limit]);
    },

    async counts(): Promise<Record<UpdateStatus, number>> {
      const out: Record<UpdateStatus, number> = { pending: 0, delivered: 0, dead: 0, canceled: 0, superseded: 0 };
      for (const { status, n } of await sql.all<{ status: UpdateStatus; n: number }>('SELECT status, count(*) AS n FROM report_updates GROUP BY status')) {
        out[status] = n;
      }
      return out;
    },

    async attemptsOf(reportId: string): Promise<DeliveryAttempt[]> {
      return (await sql.all<AttemptRow>(`SELECT * FROM report_update_attempts WHERE invitation_id = ${ofInvitation} ORDER BY id`, [reportId])).map(toAttempt);
    },

    /**
     * On SQLite, a transaction to record several deliveries in (the `tx` of `delivered`, `dead` and
     * `retry`): one commit for them all, where each record alone is a transaction of its own — a
     * commit's cost is the WAL pages it appends, and records that share one share their tables'
     * and indexes' last pages. Undefined on PostgreSQL, where each record is one statement, atomic
     * on its own, and a transaction around several would only add round trips.
     */
    inOneCommit: sql.dialect === 'sqlite' ? <T>(fn: (tx: Sql) => Promise<T>): Promise<T> => sql.transaction(fn) : undefined,

    /**
     * The request for `ids` was answered 2xx: they are delivered. `also` is written in the same
     * commit (`record`); `tx`: a transaction of `inOneCommit` to write it all in.
     */
    async delivered<T>(attempt: Omit<DeliveryAttempt, 'id'>, ids: readonly number[], status: number, also?: AlongWith<T>, tx?: Sql): Promise<T | undefined> {
      const at = now();
      return record(attempt, ids, finalStatus('delivered', status, null, at, at), also, tx);
    },

    /** The platform refused the request for good: dead letters. `also` and `tx` as for `delivered`. */
    async dead<T>(
      attempt: Omit<DeliveryAttempt, 'id'>,
      ids: readonly number[],
      status: number | null,
      error: string,
      also?: AlongWith<T>,
      tx?: Sql,
    ): Promise<T | undefined> {
      const at = now();
      return record(attempt, ids, finalStatus('dead', status, error.slice(0, 1000), null, at), also, tx);
    },

    /** A failure worth retrying: the updates wait until `nextAt`. `tx` as for `delivered`. */
    async retry(attempt: Omit<DeliveryAttempt, 'id'>, ids: readonly number[], status: number | null, error: string, nextAt: number, tx?: Sql): Promise<void> {
      const at = now();
      await record(
        attempt,
        ids,
        {
          set: 'attempts = attempts + 1, last_status = $12, last_error = $13, next_attempt_at = $14, updated_at = $15',
          params: [status, error.slice(0, 1000), isoAt(nextAt), at],
        },
        undefined,
        tx,
      );
    },

    /** Nothing of these updates is left to send: newer delivered updates set every field they carry. */
    async supersede(ids: readonly number[]): Promise<void> {
      const at = now();
      await sql.run(`UPDATE report_updates SET status = 'superseded', updated_at = $1 WHERE status = 'pending' AND id IN (${placeholders(ids.length, 2)})`, [at, ...ids]);
    },

    /**
     * "Retry now" from the dashboard: a pending update (and the report's others) becomes due at
     * once; a dead or canceled one is queued again with a fresh give-up window. Returns false when
     * the update is delivered or superseded (nothing to retry).
     */
    async retryNow(id: number): Promise<boolean> {
      const update = await sql.get<UpdateRow>('SELECT * FROM report_updates WHERE id = $1', [id]);
      if (!update) return false;
      const at = clock.now();
      if (update.status === 'pending') {
        await sql.run(`UPDATE report_updates SET next_attempt_at = $1, updated_at = $1 WHERE invitation_id = ${ofInvitation.replace('$1', '$2')} AND status = 'pending'`, [
          isoAt(at),
          update.report_id,
        ]);
        return true;
      }
      const revived = await sql.run(
        `UPDATE report_updates SET status = 'pending', next_attempt_at = $1, give_up_at = $2, updated_at = $1
          WHERE id = $3 AND status IN ('dead', 'canceled')`,
        [isoAt(at), isoAt(at + DELIVERY_RETRY.giveUpAfterMs), id],
      );
      return revived.changes === 1;
    },

    /** Forgets requests and settled updates older than the log's retention; returns how many rows went. */
    async prune(olderThanMs: number): Promise<number> {
      const cutoff = isoAt(clock.now() - olderThanMs);
      return sql.transaction(async (tx) => (await tx.run(pruneAttempts, [cutoff])).changes + (await tx.run(pruneSettled, [cutoff])).changes);
    },

    /** "Cancel retries" from the dashboard: a pending update is not sent any more. */
    async cancelRetries(id: number): Promise<boolean> {
      return (await sql.run(`UPDATE report_updates SET status = 'canceled', updated_at = $1 WHERE id = $2 AND status = 'pending'`, [now(), id])).changes === 1;
    },
  };
}

function toUpdate(r: UpdateRow): QueuedUpdate {
  return {
    id: r.id,
    reportId: r.report_id,
    body: JSON.parse(r.body) as InvitationUpdate,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    giveUpAt: r.give_up_at,
    lastStatus: r.last_status,
    lastError: r.last_error,
    deliveredAt: r.delivered_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toAttempt(r: AttemptRow): DeliveryAttempt {
  return {
    id: r.id,
    reportId: r.report_id,
    firstUpdateId: r.first_update_id,
    lastUpdateId: r.last_update_id,
    requestBody: r.request_body,
    responseStatus: r.response_status,
    responseBody: r.response_body,
    error: r.error,
    outcome: r.outcome,
    nextAttemptAt: r.next_attempt_at,
    startedAt: r.started_at,
    durationMs: r.duration_ms,
  };
}
