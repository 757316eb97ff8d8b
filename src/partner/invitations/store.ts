import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { ReportStatus } from '../../contract/decisions.js';
import { placeholders, type Sql } from '../../lib/sql.js';
import { claimQuery } from '../jobs/lease.js';
import type { ResultDetail } from './result.js';
import type { ProgressStage } from './progress.js';

export interface NewInvitation {
  reportId: string;
  accountId: number;
  /**
   * The hiring platform's numeric company and candidate ids (its webhooks find invitations by
   * them); 0 for a platform that names neither by number, which keeps its own ids, as text, in
   * `platformData`.
   */
  companyId: number;
  candidateId: number;
  testId: string;
  testName: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  extraInputs: Record<string, unknown>;
  /** The platform that sent it (`Platform.name`): the one its updates go to. */
  platform: string;
  /** What that platform's routes keep with it (Greenhouse: where to PATCH); `{}` when nothing. */
  platformData: Record<string, unknown>;
}

export interface Invitation extends NewInvitation {
  status: ReportStatus;
  candidateUrl: string | null;
  startAttempts: number;
  startedAt: string | null;
  startError: string | null;
  openedAt: string | null;
  submittedAt: string | null;
  completedAt: string | null;
  score: string | null;
  subtitle: string | null;
  properties: { label: string; value: string }[];
  /** Details pushed with the result by the vendor's product (for the results page); null when none. */
  details: ResultDetail[] | null;
  canceledAt: string | null;
  canceledBy: 'platform' | 'vendor' | null;
  /** Why it was canceled, when the kit canceled it on its own (the platform does not know the report); null otherwise. */
  cancelReason: string | null;
  /** When the platform first accepted an update of the report: it knows the report; the e-mail may go. */
  platformAcceptedAt: string | null;
  /** What the product heard of the cancel (`Provider.cancelInvitation`, product-canceller.ts); null when it has nothing to hear. */
  productCancel: ProductCancel | null;
  productCancelAttempts: number;
  /** When the call is tried next, while pending. */
  productCancelNextAt: string | null;
  productCancelError: string | null;
  /** When the product's cancel hook returned. */
  productToldAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A row of `invitations`, as the database returns it. */
export interface InvitationRow {
  report_id: string;
  account_id: number;
  company_id: number;
  candidate_id: number;
  test_id: string;
  test_name: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  extra_inputs: string;
  platform: string;
  platform_data: string;
  status: ReportStatus;
  candidate_url: string | null;
  start_attempts: number;
  started_at: string | null;
  start_error: string | null;
  opened_at: string | null;
  submitted_at: string | null;
  completed_at: string | null;
  score: string | null;
  subtitle: string | null;
  properties: string;
  details: string | null;
  canceled_at: string | null;
  canceled_by: 'platform' | 'vendor' | null;
  cancel_reason: string | null;
  platform_accepted_at: string | null;
  product_cancel: ProductCancel | null;
  product_cancel_attempts: number;
  product_cancel_next_at: string | null;
  product_cancel_error: string | null;
  product_told_at: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * What the vendor's product heard of a cancel: to be told (`pending`), `told`, given up (`dead`),
 * or nothing to tell, as it made the cancel itself (`by_product`).
 */
export type ProductCancel = 'pending' | 'told' | 'dead' | 'by_product';

/**
 * What happened to a send_candidate: a new invitation, a replay of the same one, or a clash; or,
 * for a test of the kit's `tests` table (`NewInvitation` without its `testName`), no such test of
 * the account's there.
 */
export type CreateOutcome = 'created' | 'replayed' | 'conflict' | 'unknown_test';

/** A new invitation as a send stores it: without its `testName` when the test is one of the kit's `tests` table, whose row has it. */
export type InvitationToStore = OptionalIds<NewInvitation> | OptionalIds<Omit<NewInvitation, 'testName'>>;
/** `companyId` and `candidateId` may be left out (stored as 0) by a platform without numeric ids. */
type OptionalIds<T extends Pick<NewInvitation, 'companyId' | 'candidateId'>> = Omit<T, 'companyId' | 'candidateId'> & Partial<Pick<T, 'companyId' | 'candidateId'>>;

/** A test id of the kit's `tests` table as the platforms send it: its number, written as listed ("01" names no test). */
export const CATALOG_TEST_ID = /^[1-9]\d{0,14}$/;

export type InvitationStore = ReturnType<typeof invitationStore>;

export function invitationStore(sql: Sql, clock: Clock) {
  const dueStarts = claimQuery(sql, {
    table: 'invitations',
    lease: 'next_start_at',
    from: 'invitations i',
    alias: 'i',
    where: `i.started_at IS NULL AND i.status = 'sent' AND i.next_start_at <= $1`,
    order: 'i.next_start_at',
  });
  const dueProductCancels = claimQuery(sql, {
    table: 'invitations',
    lease: 'product_cancel_next_at',
    from: 'invitations i',
    alias: 'i',
    where: `i.product_cancel = 'pending' AND i.product_cancel_next_at <= $1`,
    order: 'i.product_cancel_next_at, i.id',
  });
  return {
    /**
     * Stores the invitation unless its report_id exists. A report_id is the platform's idempotency
     * key: the same account, candidate and test again is a replay (a double click); anything else
     * under that id is a conflict. The insert rests on the unique report_id, not on a read first,
     * so two sends of one report at once, on one instance or two, cannot both create. `tx`: the
     * group commit's transaction (app.ts).
     *
     * Without a `testName`, the test is one of the kit's `tests` table (`catalog.table`, the
     * demo's): the INSERT takes its name from the account's row there, a send in one statement,
     * and `unknown_test` when the account has no such test (checked before replay and conflict).
     */
    async create(input: InvitationToStore, tx: Sql = sql): Promise<CreateOutcome> {
      const fromCatalog = !('testName' in input);
      if (fromCatalog && !CATALOG_TEST_ID.test(input.testId)) return 'unknown_test';
      const now = isoAt(clock.now());
      const params = [
        input.reportId, input.accountId, input.companyId ?? 0, input.candidateId ?? 0, input.testId,
        fromCatalog ? Number(input.testId) : input.testName,
        input.firstName, input.lastName, input.email, input.phone, JSON.stringify(input.extraInputs),
        input.platform, JSON.stringify(input.platformData), now,
      ];
      const columns = `report_id, account_id, company_id, candidate_id, test_id, test_name, first_name,
            last_name, email, phone, extra_inputs, platform, platform_data, next_start_at, created_at, updated_at`;
      const result = await tx.run(
        fromCatalog
          ? `INSERT INTO invitations (${columns})
             SELECT $1, $2, $3, $4, $5, t.name, $7, $8, $9, $10, $11, $12, $13, $14, $14, $14 FROM tests t WHERE t.id = $6 AND t.account_id = $2
             ON CONFLICT (report_id) DO NOTHING`
          : `INSERT INTO invitations (${columns})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14, $14)
             ON CONFLICT (report_id) DO NOTHING`,
        params,
      );
      if (result.changes === 1) return 'created';
      // Nothing stored: the test is not the account's, or the report_id was used (by this send before, or another).
      const prior = await tx.get<Pick<InvitationRow, 'account_id' | 'candidate_id' | 'test_id' | 'platform'> & { known: number }>(
        `SELECT ${fromCatalog ? 'CASE WHEN EXISTS (SELECT 1 FROM tests WHERE id = $2 AND account_id = $3) THEN 1 ELSE 0 END' : '1'} AS known,
                i.account_id, i.candidate_id, i.test_id, i.platform
           FROM (SELECT 1 AS one) o LEFT JOIN invitations i ON i.report_id = $1`,
        fromCatalog ? [input.reportId, Number(input.testId), input.accountId] : [input.reportId],
      );
      if (!prior?.known) return 'unknown_test';
      return prior.account_id === input.accountId &&
        prior.platform === input.platform &&
        prior.candidate_id === input.candidateId &&
        prior.test_id === input.testId
        ? 'replayed'
        : 'conflict';
    },

    /** The account's invitation for a report; undefined for unknown ids and other accounts' reports alike. */
    async find(accountId: number, reportId: string): Promise<Invitation | undefined> {
      const row = await sql.get<InvitationRow>('SELECT * FROM invitations WHERE report_id = $1 AND account_id = $2', [reportId, accountId]);
      return row && toInvitation(row);
    },

    /** Any account's invitation: for links, which name the report and nothing else. */
    async get(reportId: string): Promise<Invitation | undefined> {
      const row = await sql.get<InvitationRow>('SELECT * FROM invitations WHERE report_id = $1', [reportId]);
      return row && toInvitation(row);
    },

    /** The newest invitations first, for the dashboard. */
    async recent(options: { status?: ReportStatus; limit?: number } = {}): Promise<Invitation[]> {
      const limit = options.limit ?? 100;
      const rows =
        options.status === undefined
          ? await sql.all<InvitationRow>('SELECT * FROM invitations ORDER BY created_at DESC, report_id LIMIT $1', [limit])
          : await sql.all<InvitationRow>('SELECT * FROM invitations WHERE status = $1 ORDER BY created_at DESC, report_id LIMIT $2', [options.status, limit]);
      return rows.map(toInvitation);
    },

    /** The candidate opened the link for the first time. */
    async markOpened(reportId: string): Promise<void> {
      const now = isoAt(clock.now());
      await sql.transaction(async (tx) => {
        const opened = await tx.run('UPDATE invitations SET opened_at = $1, updated_at = $1 WHERE report_id = $2 AND opened_at IS NULL', [now, reportId]);
        if (opened.changes === 1) {
          await tx.run(`INSERT INTO invitation_events (report_id, stage, at) VALUES ($1, 'opened', $2) ON CONFLICT (report_id, stage) DO NOTHING`, [reportId, now]);
        }
      });
    },

    /** How far the candidate got (opened, started, in review), oldest first: for the dashboard. */
    progressOf(reportId: string): Promise<{ stage: ProgressStage; at: string }[]> {
      return sql.all('SELECT stage, at FROM invitation_events WHERE report_id = $1 ORDER BY at, id', [reportId]);
    },

    /**
     * Claims the invitations whose provider start is due (new ones, and failed starts whose retry
     * time has come) for `leaseMs` (jobs/lease.ts): another run, on this instance or another,
     * passes over them until then. A start recorded (or failed) before that settles them; an instance that dies
     * holding them leaves them to be taken over when the lease runs out.
     */
    async claimDueStarts(limit: number, leaseMs: number): Promise<Invitation[]> {
      const rows = await sql.all<InvitationRow>(dueStarts, [isoAt(clock.now()), isoAt(clock.now() + leaseMs), limit]);
      return rows.map(toInvitation).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.reportId.localeCompare(b.reportId));
    },

    /** Claims given back unstarted (a shutdown): due again at once, for any instance. */
    async release(reportIds: readonly string[]): Promise<void> {
      if (reportIds.length === 0) return;
      await sql.run(
        `UPDATE invitations SET next_start_at = $1 WHERE started_at IS NULL AND status = 'sent' AND report_id IN (${placeholders(reportIds.length, 2)})`,
        [isoAt(clock.now()), ...reportIds],
      );
    },

    /**
     * Claims the canceled invitations whose product is due to be told (product-canceller.ts) for
     * `leaseMs`, as `claimDueStarts` claims starts.
     */
    async claimDueProductCancels(limit: number, leaseMs: number): Promise<Invitation[]> {
      const rows = await sql.all<InvitationRow>(dueProductCancels, [isoAt(clock.now()), isoAt(clock.now() + leaseMs), limit]);
      return rows.map(toInvitation).sort((a, b) => (a.productCancelNextAt ?? '').localeCompare(b.productCancelNextAt ?? '') || a.reportId.localeCompare(b.reportId));
    },

    /** Claims given back untold (a shutdown): due again at once, for any instance. */
    async releaseProductCancels(reportIds: readonly string[]): Promise<void> {
      if (reportIds.length === 0) return;
      await sql.run(
        `UPDATE invitations SET product_cancel_next_at = $1 WHERE product_cancel = 'pending' AND report_id IN (${placeholders(reportIds.length, 2)})`,
        [isoAt(clock.now()), ...reportIds],
      );
    },

    /** The product's cancel hook returned. */
    async markProductTold(reportId: string): Promise<void> {
      const now = isoAt(clock.now());
      await sql.run(
        `UPDATE invitations SET product_cancel = 'told', product_told_at = $1, product_cancel_attempts = product_cancel_attempts + 1,
                product_cancel_error = NULL, updated_at = $1
          WHERE report_id = $2 AND product_cancel = 'pending'`,
        [now, reportId],
      );
    },

    /** The product's cancel hook threw: tried again at `retryAt`, or given up (`dead`) when `retryAt` is null. */
    async markProductCancelFailed(reportId: string, error: string, retryAt: number | null): Promise<void> {
      const now = isoAt(clock.now());
      await sql.run(
        `UPDATE invitations SET product_cancel = $1, product_cancel_attempts = product_cancel_attempts + 1, product_cancel_error = $2,
                product_cancel_next_at = $3, updated_at = $4
          WHERE report_id = $5 AND product_cancel = 'pending'`,
        [retryAt === null ? 'dead' : 'pending', error.slice(0, 500), retryAt === null ? null : isoAt(retryAt), now, reportId],
      );
    },

    async markStartFailed(reportId: string, error: string, retryAt: number, tx: Sql = sql): Promise<void> {
      await tx.run('UPDATE invitations SET start_attempts = start_attempts + 1, start_error = $1, next_start_at = $2, updated_at = $3 WHERE report_id = $4', [
        error.slice(0, 500),
        isoAt(retryAt),
        isoAt(clock.now()),
        reportId,
      ]);
    },
  };
}

/** An invitation from its row. */
export function toInvitation(r: InvitationRow): Invitation {
  return {
    reportId: r.report_id,
    accountId: r.account_id,
    companyId: r.company_id,
    candidateId: r.candidate_id,
    testId: r.test_id,
    testName: r.test_name,
    firstName: r.first_name,
    lastName: r.last_name,
    email: r.email,
    phone: r.phone,
    extraInputs: JSON.parse(r.extra_inputs) as Record<string, unknown>,
    platform: r.platform,
    platformData: JSON.parse(r.platform_data) as Record<string, unknown>,
    status: r.status,
    candidateUrl: r.candidate_url,
    startAttempts: r.start_attempts,
    startedAt: r.started_at,
    startError: r.start_error,
    openedAt: r.opened_at,
    submittedAt: r.submitted_at,
    completedAt: r.completed_at,
    score: r.score,
    subtitle: r.subtitle,
    properties: JSON.parse(r.properties) as Invitation['properties'],
    details: r.details === null ? null : (JSON.parse(r.details) as ResultDetail[]),
    canceledAt: r.canceled_at,
    canceledBy: r.canceled_by,
    cancelReason: r.cancel_reason,
    platformAcceptedAt: r.platform_accepted_at,
    productCancel: r.product_cancel,
    productCancelAttempts: r.product_cancel_attempts,
    productCancelNextAt: r.product_cancel_next_at,
    productCancelError: r.product_cancel_error,
    productToldAt: r.product_told_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
