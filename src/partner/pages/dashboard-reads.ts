import { z } from 'zod';
import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import { indexedBy, placeholders, type Sql } from '../../lib/sql.js';
import type { ReportStatus } from '../../contract/decisions.js';
import { PAST_ANY_CHARACTER } from '../accounts/store.js';
import { toInvitation, type Invitation, type InvitationRow } from '../invitations/store.js';
import type { UpdateStatus } from '../updates/outbox.js';

/**
 * What the dashboard's pages read that no store reads for the partner's work: pages of
 * invitations, search, each account's activity and the overview's last 30 days. Each query goes
 * through an index made for it (migration 009_dashboard.sql / 007_dashboard.sql), and none reads
 * more than a bounded number of rows however many invitations there are: pages are keysets (each
 * starts after the last row of the one before, never an OFFSET), counts stop at COUNT_CAP, and the
 * overview reads the last OVERVIEW_DAYS days only. Their plans are in docs/performance.md.
 */

/** Rows on a page of invitations or accounts. */
export const PAGE_SIZE = 50;
/** Counts that would read more index entries than this stop there, and read "10,000+". */
export const COUNT_CAP = 10_000;
/** The same for each account's invitations on the list of accounts, where a page counts 50 accounts': "1,000+". */
export const LIST_COUNT_CAP = 1000;
/** How far back the overview looks, in days, today's included: the delivery log's retention (updates/policy.ts), as far as its attempts go back. */
export const OVERVIEW_DAYS = 30;
/** How many of the updates delivered in those days the overview reads the wait of: the newest. */
export const DELAY_SAMPLE = 1000;
/**
 * [kit decision] How long the overview's counts of the days before today are kept, in each
 * process, before they are read again: today's are read on every view.
 */
export const PAST_DAYS_KEPT_MS = 5 * 60_000;

/**
 * Where a page of invitations starts: the invitation before it, by its creation time and id (the
 * order of the pages: newest first, the id breaking ties). In a URL as `<ISO time>_<id>`.
 */
export interface Cursor {
  createdAt: string;
  id: number;
}
export const CursorParam = z
  .string()
  .regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z_[1-9]\d{0,14}$/)
  .transform((v): Cursor => ({ createdAt: v.slice(0, v.lastIndexOf('_')), id: Number(v.slice(v.lastIndexOf('_') + 1)) }));
export const cursorText = (c: Cursor) => `${c.createdAt}_${c.id}`;

/** A page of invitations, newest first, with where the pages before and after it start, if there are any. */
export interface InvitationPage {
  rows: Invitation[];
  /** The page of newer invitations ends before this one's first: `before` this cursor. */
  newer?: Cursor;
  /** The page of older ones starts after this one's last: `after` this cursor. */
  older?: Cursor;
}

/** A count that stopped at COUNT_CAP: `more` when there are more than `n`. */
export interface Capped {
  n: number;
  more: boolean;
}

export interface AccountActivity {
  invitations: Capped;
  /** When its newest invitation came in. */
  lastInvitationAt: string | null;
  /** When it was last changed (its history's newest line). */
  lastChangeAt: string | null;
}

/** The overview: the last OVERVIEW_DAYS days, by UTC day. */
export interface Overview {
  /** The days, oldest first: `YYYY-MM-DD`. */
  days: string[];
  /** Invitations received, per platform, per day, per status. */
  invitations: { day: string; platform: string; status: ReportStatus; n: number }[];
  /** Delivery attempts per day and outcome. */
  attempts: { day: string; outcome: 'delivered' | 'retry' | 'dead'; n: number }[];
  /** Updates delivered, the newest DELAY_SAMPLE at most, by how long after they were queued: counts per DELAY_BUCKETS entry. */
  delays: number[];
}

/** How long the platform waited for an update, as the overview groups them: upper bounds in seconds, the last open. */
export const DELAY_BUCKETS = [
  { upTo: 1, label: 'under 1 s' },
  { upTo: 10, label: '1–10 s' },
  { upTo: 60, label: '10 s–1 min' },
  { upTo: 600, label: '1–10 min' },
  { upTo: 3600, label: '10 min–1 h' },
  { upTo: Infinity, label: 'over 1 h' },
] as const;

const capped = (n: number, cap = COUNT_CAP): Capped => ({ n: Math.min(n, cap), more: n > cap });

export type DashboardReads = ReturnType<typeof dashboardReads>;

export function dashboardReads(sql: Sql, clock: Clock) {
  const postgres = sql.dialect === 'postgres';
  /** Compared byte by byte on PostgreSQL, as its search indexes are (COLLATE "C"): a range from a prefix is then exact. */
  const bytewise = (expression: string) => (postgres ? `${expression} COLLATE "C"` : expression);
  /** Seconds between two ISO times stored as text. */
  const secondsBetween = (from: string, to: string) =>
    postgres ? `EXTRACT(EPOCH FROM (${to}::timestamptz - ${from}::timestamptz))` : `(unixepoch(${to}, 'subsec') - unixepoch(${from}, 'subsec'))`;
  /**
   * Rows of `table` from the day `$1` (YYYY-MM-DD) on, and before the day `$2` when `until`. On
   * SQLite through the index on that day (`dayIndex`, 013_dashboard_days.sql), in whose order they
   * are grouped as they are read; on PostgreSQL from the index on the time, grouped by hashing.
   */
  const daysOf = (table: string, column: string, dayIndex: string, until: boolean) =>
    postgres
      ? `${table} WHERE ${column} >= $1 || 'T00:00:00.000Z'${until ? ` AND ${column} < $2 || 'T00:00:00.000Z'` : ''}`
      : `${table} ${indexedBy(sql, dayIndex)} WHERE substr(${column}, 1, 10) >= $1${until ? ` AND substr(${column}, 1, 10) < $2` : ''}`;
  /** Invitations per day, platform and status, and delivery attempts per day and outcome, from the day `from` on (before `until`). */
  const countsByDay = async (from: string, until?: string) => {
    const params = until === undefined ? [from] : [from, until];
    const invitations = await sql.all<{ day: string; platform: string; status: ReportStatus; n: number }>(
      `SELECT substr(created_at, 1, 10) AS day, platform, status, count(*) AS n
         FROM ${daysOf('invitations', 'created_at', 'invitations_by_day', until !== undefined)} GROUP BY substr(created_at, 1, 10), platform, status`,
      params,
    );
    const attempts = await sql.all<{ day: string; outcome: 'delivered' | 'retry' | 'dead'; n: number }>(
      `SELECT substr(started_at, 1, 10) AS day, outcome, count(*) AS n
         FROM ${daysOf('report_update_attempts', 'started_at', 'report_update_attempts_by_day', until !== undefined)} GROUP BY substr(started_at, 1, 10), outcome`,
      params,
    );
    return { invitations: invitations.map((r) => ({ ...r, n: Number(r.n) })), attempts: attempts.map((r) => ({ ...r, n: Number(r.n) })) };
  };
  /** The counts of the days before today, with the days they are of and when they were read. */
  let pastDays: { from: string; until: string; readAt: number; counts: Awaited<ReturnType<typeof countsByDay>> } | undefined;

  /**
   * A page of invitations matching `where` (its parameters from $1), newest first: the PAGE_SIZE
   * after `after`, or before `before` (a page of newer ones), or the newest. One more row than
   * shown is read, to know whether there is a page beyond.
   */
  const page = async (where: string[], params: unknown[], at: { after?: Cursor; before?: Cursor }, limit = PAGE_SIZE): Promise<InvitationPage> => {
    const n = params.length;
    const conditions = [...where];
    const args = [...params];
    const from = at.after ?? at.before;
    if (from) {
      conditions.push(`(created_at, id) ${at.after ? '<' : '>'} ($${n + 1}, $${n + 2})`);
      args.push(from.createdAt, from.id);
    }
    const newerFirst = at.before === undefined;
    const order = newerFirst ? 'created_at DESC, id DESC' : 'created_at, id';
    const rows = await sql.all<InvitationRow & { id: number }>(
      `SELECT * FROM invitations ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY ${order} LIMIT $${args.length + 1}`,
      [...args, limit + 1],
    );
    const beyond = rows.length > limit;
    const shown = rows.slice(0, limit);
    if (!newerFirst) shown.reverse();
    const cursor = (r: InvitationRow & { id: number }) => ({ createdAt: r.created_at, id: Number(r.id) });
    const first = shown[0];
    const last = shown[shown.length - 1];
    return {
      rows: shown.map(toInvitation),
      // Going back up: there are newer ones when this page started after a cursor, or reached past the top.
      newer: first && (at.after !== undefined || (at.before !== undefined && beyond)) ? cursor(first) : undefined,
      older: last && ((newerFirst && beyond) || at.before !== undefined) ? cursor(last) : undefined,
    };
  };

  return {
    /**
     * A page of invitations, all of them or those of one status or one account, newest first
     * (invitations_newest, invitations_by_status, invitations_of_account).
     */
    invitations(filter: { status?: ReportStatus; accountId?: number }, at: { after?: Cursor; before?: Cursor } = {}, limit = PAGE_SIZE): Promise<InvitationPage> {
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.accountId !== undefined) where.push(`account_id = $${params.push(filter.accountId)}`);
      if (filter.status !== undefined) where.push(`status = $${params.push(filter.status)}`);
      return page(where, params, at, limit);
    },

    /** Invitations whose candidate's e-mail starts with `prefix`, in any case, by e-mail (invitations_by_email). */
    async byEmail(prefix: string, limit: number): Promise<Invitation[]> {
      const email = bytewise('lower(email)');
      const rows = await sql.all<InvitationRow>(
        `SELECT * FROM invitations WHERE ${email} >= lower($1) AND ${email} < lower($1) || $2 ORDER BY ${email}, id LIMIT $3`,
        [prefix, PAST_ANY_CHARACTER, limit],
      );
      return rows.map(toInvitation);
    },

    /**
     * Each account's activity: how many invitations it has (counted up to `cap`), when its newest
     * came in, and when it was last changed; in one statement, each through its index
     * (invitations_of_account, account_events_of_account).
     */
    async activityOf(accountIds: readonly number[], cap = COUNT_CAP): Promise<Map<number, AccountActivity>> {
      if (accountIds.length === 0) return new Map();
      const rows = await sql.all<{ id: number; invitations: number; last_invitation_at: string | null; last_change_at: string | null }>(
        `SELECT a.id,
                (SELECT count(*) FROM (SELECT 1 FROM invitations i WHERE i.account_id = a.id LIMIT ${cap + 1}) AS capped) AS invitations,
                (SELECT i.created_at FROM invitations i WHERE i.account_id = a.id ORDER BY i.created_at DESC, i.id DESC LIMIT 1) AS last_invitation_at,
                (SELECT e.at FROM account_events e WHERE e.account_id = a.id ORDER BY e.id DESC LIMIT 1) AS last_change_at
           FROM accounts a WHERE a.id IN (${placeholders(accountIds.length)})`,
        accountIds,
      );
      return new Map(
        rows.map((r) => [Number(r.id), { invitations: capped(Number(r.invitations), cap), lastInvitationAt: r.last_invitation_at, lastChangeAt: r.last_change_at }]),
      );
    },

    /**
     * Which of `platforms` the account has invitations of among its newest COUNT_CAP, read from its
     * entries of invitations_of_account alone: a platform it has not used reads those entries, never
     * more, however many invitations a big customer has.
     */
    async platformsUsed(accountId: number, platforms: readonly string[]): Promise<Set<string>> {
      if (platforms.length === 0) return new Set();
      const rows = await sql.all<{ platform: string }>(
        `SELECT DISTINCT platform FROM (
           SELECT platform FROM invitations WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT ${COUNT_CAP}
         ) AS newest WHERE platform IN (${placeholders(platforms.length, 2)})`,
        [accountId, ...platforms],
      );
      return new Set(rows.map((r) => r.platform));
    },

    /**
     * The newest invitation a hiring-platform company sent through any of `accountIds` (the accounts
     * connected to it): each account's newest from that company, read down its entries of
     * invitations_of_account, which stop at the first that came from the company.
     */
    async latestFromCompany(companyId: number, accountIds: readonly number[]): Promise<{ accountId: number; createdAt: string } | undefined> {
      if (accountIds.length === 0) return undefined;
      const rows = await sql.all<{ account_id: number; created_at: string }>(
        accountIds
          .map((_, i) => `SELECT * FROM (SELECT account_id, created_at FROM invitations WHERE account_id = $${i + 2} AND company_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1) AS latest${i}`)
          .join(' UNION ALL '),
        [companyId, ...accountIds],
      );
      const newest = rows.sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
      return newest && { accountId: Number(newest.account_id), createdAt: newest.created_at };
    },

    /** The report updates of each status, each counted up to COUNT_CAP, in one statement (report_updates_by_status). */
    async updateCounts(statuses: readonly UpdateStatus[]): Promise<Record<UpdateStatus, Capped>> {
      const rows = await sql.all<{ status: UpdateStatus; n: number }>(
        statuses
          .map((_, i) => `SELECT $${i + 1} AS status, (SELECT count(*) FROM (SELECT 1 FROM report_updates WHERE status = $${i + 1} LIMIT ${COUNT_CAP + 1}) AS capped) AS n`)
          .join(' UNION ALL '),
        statuses,
      );
      return Object.fromEntries(rows.map((r) => [r.status, capped(Number(r.n))])) as Record<UpdateStatus, Capped>;
    },

    /**
     * The last OVERVIEW_DAYS days (UTC), today's included: invitations per day by platform and
     * status (invitations_by_day on SQLite, invitations_newest on PostgreSQL: the index alone),
     * delivery attempts per day by outcome (report_update_attempts_by_day alone), and how long the
     * newest DELAY_SAMPLE updates delivered waited (report_updates_delivered). The days before
     * today are read at most once every PAST_DAYS_KEPT_MS in this process (an invitation of
     * yesterday that completes shows as completed within that time), today's on every view: a view
     * reads today's rows and a bounded sample; once every few minutes, the whole window's, which
     * grows with those days' invitations, not with the history before them (and the attempts are
     * pruned after as many days anyway).
     */
    async overview(): Promise<Overview> {
      const now = clock.now();
      const today = new Date(now);
      today.setUTCHours(0, 0, 0, 0);
      const days = Array.from({ length: OVERVIEW_DAYS }, (_, i) => isoAt(today.getTime() - (OVERVIEW_DAYS - 1 - i) * 86_400_000).slice(0, 10));
      const first = days[0]!;
      const last = days[days.length - 1]!;
      if (!pastDays || pastDays.from !== first || pastDays.until !== last || now - pastDays.readAt >= PAST_DAYS_KEPT_MS || now < pastDays.readAt) {
        pastDays = { from: first, until: last, readAt: now, counts: await countsByDay(first, last) };
      }
      const todays = await countsByDay(last);
      const invitations = [...pastDays.counts.invitations, ...todays.invitations];
      const attempts = [...pastDays.counts.attempts, ...todays.attempts];
      // Each wait computed once (MATERIALIZED), then counted into every bucket in one pass.
      const buckets = DELAY_BUCKETS.map((b, i) => {
        const lower = i === 0 ? '' : `waited >= ${DELAY_BUCKETS[i - 1]!.upTo}`;
        const upper = b.upTo === Infinity ? '' : `waited < ${b.upTo}`;
        return `count(*) FILTER (WHERE ${[lower, upper].filter(Boolean).join(' AND ')}) AS b${i}`;
      });
      const delayRow = await sql.get<Record<string, number>>(
        `WITH newest AS MATERIALIZED (
           SELECT ${secondsBetween('created_at', 'delivered_at')} AS waited
             FROM report_updates ${indexedBy(sql, 'report_updates_delivered')}
            WHERE status = 'delivered' AND delivered_at >= $1
            ORDER BY delivered_at DESC LIMIT $2
         ) SELECT ${buckets.join(', ')} FROM newest`,
        [`${first}T00:00:00.000Z`, DELAY_SAMPLE],
      );
      return { days, invitations, attempts, delays: DELAY_BUCKETS.map((_, i) => Number(delayRow?.[`b${i}`] ?? 0)) };
    },
  };
}
