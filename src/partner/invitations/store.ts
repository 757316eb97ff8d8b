import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { ReportStatus } from '../../contract/decisions.js';
import type { Db } from '../../lib/db.js';
import type { ResultDetail } from '../provider/types.js';
import type { ProgressStage } from './lifecycle.js';

export interface NewInvitation {
  reportId: string;
  accountId: number;
  companyId: number;
  candidateId: number;
  testId: string;
  testName: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  extraInputs: Record<string, unknown>;
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
  createdAt: string;
  updatedAt: string;
}

interface Row {
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
  created_at: string;
  updated_at: string;
}

/** What happened to a send_candidate: a new invitation, a replay of the same one, or a clash. */
export type CreateOutcome = 'created' | 'replayed' | 'conflict';

export type InvitationStore = ReturnType<typeof invitationStore>;

export function invitationStore(db: Db, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO invitations (report_id, account_id, company_id, candidate_id, test_id, test_name, first_name,
        last_name, email, phone, extra_inputs, next_start_at, created_at, updated_at)
     VALUES (@reportId, @accountId, @companyId, @candidateId, @testId, @testName, @firstName,
        @lastName, @email, @phone, @extraInputs, @now, @now, @now)
     ON CONFLICT (report_id) DO NOTHING`,
  );
  const identity = db.prepare<[string], Pick<Row, 'account_id' | 'candidate_id' | 'test_id'>>(
    'SELECT account_id, candidate_id, test_id FROM invitations WHERE report_id = ?',
  );
  const byReport = db.prepare<[string, number], Row>('SELECT * FROM invitations WHERE report_id = ? AND account_id = ?');
  const byReportOnly = db.prepare<[string], Row>('SELECT * FROM invitations WHERE report_id = ?');
  const recent = db.prepare<[{ status: string | null; limit: number }], Row>(
    'SELECT * FROM invitations WHERE (@status IS NULL OR status = @status) ORDER BY created_at DESC, report_id LIMIT @limit',
  );
  const opened = db.prepare<[string, string, string]>(
    'UPDATE invitations SET opened_at = ?, updated_at = ? WHERE report_id = ? AND opened_at IS NULL',
  );
  const openedEvent = db.prepare<[string, string]>(
    `INSERT INTO invitation_events (report_id, stage, at) VALUES (?, 'opened', ?) ON CONFLICT (report_id, stage) DO NOTHING`,
  );
  const markOpened = db.transaction((reportId: string, now: string) => {
    if (opened.run(now, now, reportId).changes === 1) openedEvent.run(reportId, now);
  });
  const eventsOf = db.prepare<[string], { stage: ProgressStage; at: string }>(
    'SELECT stage, at FROM invitation_events WHERE report_id = ? ORDER BY at, id',
  );
  const dueStarts = db.prepare<[string, number], Row>(
    `SELECT * FROM invitations WHERE started_at IS NULL AND status = 'sent' AND next_start_at <= ?
      ORDER BY next_start_at LIMIT ?`,
  );
  const startFailed = db.prepare<[string, string, string, string]>(
    `UPDATE invitations SET start_attempts = start_attempts + 1, start_error = ?, next_start_at = ?, updated_at = ?
      WHERE report_id = ?`,
  );

  return {
    /**
     * Stores the invitation unless its report_id exists. A report_id is the platform's idempotency
     * key: the same account, candidate and test again is a replay (a double click); anything else
     * under that id is a conflict. The insert and the check run in one statement each on a single
     * connection, so concurrent duplicates cannot both create.
     */
    create(input: NewInvitation): CreateOutcome {
      const now = isoAt(clock.now());
      const result = insert.run({ ...input, extraInputs: JSON.stringify(input.extraInputs), now });
      if (result.changes === 1) return 'created';
      const prior = identity.get(input.reportId);
      return prior &&
        prior.account_id === input.accountId &&
        prior.candidate_id === input.candidateId &&
        prior.test_id === input.testId
        ? 'replayed'
        : 'conflict';
    },

    /** The account's invitation for a report; undefined for unknown ids and other accounts' reports alike. */
    find(accountId: number, reportId: string): Invitation | undefined {
      const row = byReport.get(reportId, accountId);
      return row && toInvitation(row);
    },

    /** Any account's invitation: for links, which name the report and nothing else. */
    get(reportId: string): Invitation | undefined {
      const row = byReportOnly.get(reportId);
      return row && toInvitation(row);
    },

    /** The newest invitations first, for the dashboard. */
    recent(options: { status?: ReportStatus; limit?: number } = {}): Invitation[] {
      return recent.all({ status: options.status ?? null, limit: options.limit ?? 100 }).map(toInvitation);
    },

    /** The candidate opened the link for the first time. */
    markOpened(reportId: string): void {
      markOpened(reportId, isoAt(clock.now()));
    },

    /** How far the candidate got (opened, started, in review), oldest first: for the dashboard. */
    progressOf(reportId: string): { stage: ProgressStage; at: string }[] {
      return eventsOf.all(reportId);
    },

    /** Invitations whose provider start is due (new ones, and failed starts whose retry time has come). */
    dueStarts(limit: number): Invitation[] {
      return dueStarts.all(isoAt(clock.now()), limit).map(toInvitation);
    },

    markStartFailed(reportId: string, error: string, retryAt: number): void {
      startFailed.run(error.slice(0, 500), isoAt(retryAt), isoAt(clock.now()), reportId);
    },
  };
}

function toInvitation(r: Row): Invitation {
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
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
