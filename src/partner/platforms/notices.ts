import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Sql } from '../../lib/sql.js';

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
  /** The rest of what the platform sent, as it sent it (strings only). */
  detail: Record<string, string | string[]>;
  receivedAt: string;
}

export type NewPlatformNotice = Omit<PlatformNotice, 'id' | 'receivedAt'>;

/**
 * [kit decision] How long notices are kept: 90 days, older ones are removed as new ones arrive, so
 * a caller repeating a report cannot grow the table without bound over time.
 */
export const NOTICE_RETENTION_MS = 90 * 24 * 60 * 60_000;

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

export function platformNoticeStore(sql: Sql, clock: Clock) {
  return {
    async add(notice: NewPlatformNotice): Promise<void> {
      const now = clock.now();
      await sql.transaction(async (tx) => {
        await tx.run('DELETE FROM platform_notices WHERE received_at < $1', [isoAt(now - NOTICE_RETENTION_MS)]);
        await tx.run(
          'INSERT INTO platform_notices (platform, account_id, report_id, summary, detail, received_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [notice.platform, notice.accountId, notice.reportId, notice.summary, JSON.stringify(notice.detail), isoAt(now)],
        );
      });
    },

    /** The newest first. */
    async recent(limit = 20): Promise<PlatformNotice[]> {
      const rows = await sql.all<Row>('SELECT * FROM platform_notices ORDER BY received_at DESC, id DESC LIMIT $1', [limit]);
      return rows.map((r) => ({
        id: Number(r.id),
        platform: r.platform,
        accountId: r.account_id === null ? null : Number(r.account_id),
        reportId: r.report_id,
        summary: r.summary,
        detail: JSON.parse(r.detail) as PlatformNotice['detail'],
        receivedAt: r.received_at,
      }));
    },
  };
}
