import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import { inTurn, type Sql } from '../../lib/sql.js';

/**
 * What a platform reports to the partner about the partner's own answers (Greenhouse's
 * response_error: "your test_status answer was malformed"), kept for the dashboard's "Reports from
 * platforms". A platform's routes add them (`PartnerCore.notices`); the core only stores and lists.
 */
export interface PlatformNotice {
  id: number;
  /** `Platform.name` of the platform that reported it. */
  platform: string;
  /** The customer account whose key the platform called with. */
  accountId: number | null;
  /** The invitation it is about, when it names one of this account's. */
  reportId: string | null;
  /** One line: what the platform called, and what it found. */
  summary: string;
  /** The rest of what the platform sent, as it sent it (strings only), within `NOTICE_LIMITS.detailMaxBytes`. */
  detail: Record<string, string | string[]>;
  receivedAt: string;
}

export type NewPlatformNotice = Omit<PlatformNotice, 'id' | 'receivedAt' | 'accountId'> & { accountId: number };

/**
 * [kit decision] How long notices are kept: 90 days, older ones are removed as new ones arrive, so
 * a caller repeating a report cannot grow the table without bound over time.
 */
export const NOTICE_RETENTION_MS = 90 * 24 * 60 * 60_000;

/**
 * [kit decision] What one account's notices may cost (docs/greenhouse.md, "response_error"):
 * anyone holding a customer key can report, so what one key makes the partner keep is bounded
 * per account, in the database, whichever instance the calls reach.
 */
export const NOTICE_LIMITS = {
  /**
   * Notices one account may add within any `windowMs`: the next is refused (429) until the
   * oldest of them leaves the window. A burst of 10, then 10 a minute.
   */
  perWindow: 10,
  windowMs: 60_000,
  /** The newest notices kept per account (at least `perWindow`): older ones are deleted as a new one is stored. */
  keptPerAccount: 20,
  /** The most a notice's `detail` takes stored, as JSON in UTF-8: texts are cut, list items past it counted instead. */
  detailMaxBytes: 8 * 1024,
  /** The longest text kept of one field or list item, and of the summary, in characters. */
  textMaxLength: 1000,
} as const;

export type NoticeLimits = { readonly [K in keyof typeof NOTICE_LIMITS]: number };

/** What `add` did: stored, or refused because the account reached its rate, with how long until it may add again. */
export type NoticeOutcome = { stored: true } | { stored: false; retryAfterMs: number };

/** One account's notices as the dashboard shows them: the newest few, and how many are kept. */
export interface AccountNotices {
  accountId: number;
  /** How many of the account's notices are kept (at most `keptPerAccount`). */
  kept: number;
  /** The newest first. */
  notices: PlatformNotice[];
}

interface Row {
  id: number;
  platform: string;
  account_id: number | null;
  report_id: string | null;
  summary: string;
  detail: string;
  received_at: string;
}

export type PlatformNoticeStore = ReturnType<typeof platformNoticeStore>;

export function platformNoticeStore(sql: Sql, clock: Clock, limits: NoticeLimits = NOTICE_LIMITS) {
  if (limits.keptPerAccount < limits.perWindow) throw new Error('NOTICE_LIMITS: keptPerAccount must be at least perWindow (the rate is counted on the kept notices)');
  return {
    /**
     * Stores `notice`, unless its account added `perWindow` within the last `windowMs`; then
     * deletes the account's notices past its newest `keptPerAccount`, in the same transaction.
     * The account's notices are taken in turn (an advisory lock on PostgreSQL), so two instances
     * cannot both count below the rate and both store.
     */
    async add(notice: NewPlatformNotice): Promise<NoticeOutcome> {
      const now = clock.now();
      // The rate is counted on the rows themselves: the newest `perWindow` are always kept.
      const rateOf = async (q: Sql): Promise<NoticeOutcome | undefined> => {
        const recent = await q.all<{ received_at: string }>(
          'SELECT received_at FROM platform_notices WHERE account_id = $1 AND received_at > $2 ORDER BY received_at DESC, id DESC LIMIT $3',
          [notice.accountId, isoAt(now - limits.windowMs), limits.perWindow],
        );
        if (recent.length < limits.perWindow) return undefined;
        return { stored: false, retryAfterMs: Date.parse(recent.at(-1)!.received_at) + limits.windowMs - now };
      };
      // A flood's calls are refused on this one read, without a transaction or the account's turn.
      const refused = await rateOf(sql);
      if (refused) return refused;
      return sql.transaction(async (tx): Promise<NoticeOutcome> => {
        await inTurn(tx, `platform notices of account ${notice.accountId}`);
        const refusedNow = await rateOf(tx);
        if (refusedNow) return refusedNow;
        await tx.run('DELETE FROM platform_notices WHERE received_at < $1', [isoAt(now - NOTICE_RETENTION_MS)]);
        await tx.run(
          'INSERT INTO platform_notices (platform, account_id, report_id, summary, detail, received_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [notice.platform, notice.accountId, notice.reportId, cut(notice.summary, limits.textMaxLength), JSON.stringify(bounded(notice.detail, limits)), isoAt(now)],
        );
        await tx.run(
          `DELETE FROM platform_notices WHERE account_id = $1 AND id NOT IN (
             SELECT id FROM platform_notices WHERE account_id = $1 ORDER BY received_at DESC, id DESC LIMIT $2)`,
          [notice.accountId, limits.keptPerAccount],
        );
        return { stored: true };
      });
    },

    /**
     * The accounts that reported last, newest first, at most `accounts` of them, each with its
     * newest `each` notices and how many it has kept: one account's flood is one group among the
     * others. Reads at most `accounts × keptPerAccount` rows to find them.
     */
    async byAccount(options: { accounts: number; each: number }): Promise<AccountNotices[]> {
      const rows = await sql.all<Row & { kept: number | string }>(
        `WITH latest AS (
           SELECT account_id, received_at FROM platform_notices WHERE account_id IS NOT NULL ORDER BY received_at DESC, id DESC LIMIT $1
         ), shown AS (
           SELECT account_id, max(received_at) AS newest FROM latest GROUP BY account_id ORDER BY newest DESC, account_id LIMIT $2
         ), ranked AS (
           SELECT n.*, s.newest,
                  row_number() OVER (PARTITION BY n.account_id ORDER BY n.received_at DESC, n.id DESC) AS nth,
                  count(*) OVER (PARTITION BY n.account_id) AS kept
           FROM platform_notices n JOIN shown s ON s.account_id = n.account_id
         )
         SELECT id, platform, account_id, report_id, summary, detail, received_at, kept FROM ranked
         WHERE nth <= $3 ORDER BY newest DESC, account_id, received_at DESC, id DESC`,
        [options.accounts * limits.keptPerAccount, options.accounts, options.each],
      );
      const groups: AccountNotices[] = [];
      for (const r of rows) {
        const accountId = Number(r.account_id);
        if (groups.at(-1)?.accountId !== accountId) groups.push({ accountId, kept: Number(r.kept), notices: [] });
        groups.at(-1)!.notices.push({
          id: Number(r.id),
          platform: r.platform,
          accountId,
          reportId: r.report_id,
          summary: r.summary,
          detail: JSON.parse(r.detail) as PlatformNotice['detail'],
          receivedAt: r.received_at,
        });
      }
      return groups;
    },
  };
}

/** `text`, at most `max` characters (a pair of surrogates never split), with "…" when it was cut. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 2] ?? '') ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
/** Kept free while a list fills, for the item that says how many were left out. */
const MORE_ROOM = 64;

/**
 * `detail` as it is stored, at most `detailMaxBytes` as JSON: each text cut to `textMaxLength`,
 * the single texts first, then each list's items in order while they fit, and in place of those
 * that do not, "… and N more, not kept". (A single text that does not fit is left out: none of a
 * platform's does, the lists are what grows.)
 */
function bounded(detail: Readonly<Record<string, string | string[]>>, limits: NoticeLimits): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  const fits = (room: number) => jsonBytes(kept) + room <= limits.detailMaxBytes;
  const entries = Object.entries(detail);
  for (const [key, value] of entries) {
    if (typeof value !== 'string') continue;
    kept[key] = cut(value, limits.textMaxLength);
    if (!fits(MORE_ROOM)) delete kept[key];
  }
  for (const [key, items] of entries) {
    if (typeof items === 'string') continue;
    const list: string[] = [];
    kept[key] = list;
    if (!fits(MORE_ROOM)) {
      delete kept[key];
      continue;
    }
    for (const item of items) {
      list.push(cut(item, limits.textMaxLength));
      if (fits(MORE_ROOM)) continue;
      list.pop();
      list.push(`… and ${items.length - list.length} more, not kept`);
      if (!fits(0)) list.pop();
      break;
    }
  }
  return kept;
}
