import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { ReportStatus } from '../../contract/decisions.js';
import { Report } from '../../contract/schemas.js';
import type { Db } from '../../lib/db.js';

export type Delivery = 'pending' | 'delivered' | 'failed';

export interface ReportProperty {
  label: string;
  value: string;
}

export interface StoredReport {
  id: string;
  codename: string;
  companyId: number;
  candidateId: number;
  testId: string | null;
  testName: string | null;
  status: ReportStatus;
  score: string | null;
  completedAt: string | null;
  subtitle: string | null;
  properties: ReportProperty[];
  urls: Record<string, string>;
  sentByUserId: number | null;
  delivery: Delivery;
  deliveryError: string | null;
  cancelRequestedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The fields a report update may change (see rules.ts for what is allowed). */
export type ReportFields = Pick<StoredReport, 'status' | 'score' | 'completedAt' | 'subtitle' | 'properties' | 'urls'>;

interface Row {
  id: string;
  codename: string;
  company_id: number;
  candidate_id: number;
  test_id: string | null;
  test_name: string | null;
  status: ReportStatus;
  score: string | null;
  completed_at: string | null;
  subtitle: string | null;
  properties: string;
  urls: string;
  sent_by_user_id: number | null;
  delivery: Delivery;
  delivery_error: string | null;
  cancel_requested_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface NewReport {
  id: string;
  codename: string;
  companyId: number;
  candidateId: number;
  testId: string;
  testName: string;
  sentByUserId: number | null;
}

export type ReportStore = ReturnType<typeof reportStore>;

export function reportStore(db: Db, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO reports (id, codename, company_id, candidate_id, test_id, test_name, sent_by_user_id, created_at, updated_at)
     VALUES (@id, @codename, @companyId, @candidateId, @testId, @testName, @sentByUserId, @now, @now)
     ON CONFLICT (id) DO NOTHING`,
  );
  const byId = db.prepare<[string], Row>('SELECT * FROM reports WHERE id = ?');
  const visibleOfCandidate = db.prepare<[number, number], Row>(
    `SELECT * FROM reports WHERE company_id = ? AND candidate_id = ? AND delivery <> 'failed' ORDER BY created_at, id`,
  );
  const update = db.prepare(
    `UPDATE reports SET status = @status, score = @score, completed_at = @completedAt, subtitle = @subtitle,
            properties = @properties, urls = @urls, updated_at = @now
      WHERE id = @id`,
  );
  const delivered = db.prepare<[string, string]>(
    `UPDATE reports SET delivery = 'delivered', delivery_error = NULL, updated_at = ? WHERE id = ?`,
  );
  // A failure never hides a report that an earlier (or concurrent) send already delivered.
  const failed = db.prepare<[string, string, string]>(
    `UPDATE reports SET delivery = 'failed', delivery_error = ?, updated_at = ? WHERE id = ? AND delivery <> 'delivered'`,
  );
  const cancelRequested = db.prepare<[string, string, string]>(
    'UPDATE reports SET cancel_requested_at = ?, updated_at = ? WHERE id = ?',
  );

  const find = (id: string): StoredReport | undefined => {
    const row = byId.get(id);
    return row && toStored(row);
  };

  return {
    /** Any report, including one whose send failed. */
    find,

    /** A report the platform shows (its send did not fail), or undefined. */
    findVisible(id: string): StoredReport | undefined {
      const report = find(id);
      return report?.delivery === 'failed' ? undefined : report;
    },

    /** Creates the report in `sent`, unless its id exists; returns the stored row either way. */
    create(input: NewReport): { report: StoredReport; created: boolean } {
      const created = insert.run({ ...input, now: isoAt(clock.now()) }).changes === 1;
      return { report: find(input.id)!, created };
    },

    /** The candidate's reports as the platform shows them, optionally of one partner. */
    ofCandidate(companyId: number, candidateId: number, codename?: string): StoredReport[] {
      return visibleOfCandidate
        .all(companyId, candidateId)
        .map(toStored)
        .filter((r) => codename === undefined || r.codename === codename);
    },

    update(id: string, fields: ReportFields): StoredReport {
      update.run({
        id,
        status: fields.status,
        score: fields.score,
        completedAt: fields.completedAt,
        subtitle: fields.subtitle,
        properties: JSON.stringify(fields.properties),
        urls: JSON.stringify(fields.urls),
        now: isoAt(clock.now()),
      });
      return find(id)!;
    },

    markDelivered(id: string): StoredReport {
      delivered.run(isoAt(clock.now()), id);
      return find(id)!;
    },

    markFailed(id: string, error: string): StoredReport {
      failed.run(error.slice(0, 500), isoAt(clock.now()), id);
      return find(id)!;
    },

    markCancelRequested(id: string): StoredReport {
      const now = isoAt(clock.now());
      cancelRequested.run(now, now, id);
      return find(id)!;
    },
  };
}

/** The wire shape (§3.2). */
export function toWire(r: StoredReport): Report {
  return Report.parse({
    id: r.id,
    codename: r.codename,
    company_id: r.companyId,
    candidate_id: r.candidateId,
    test_id: r.testId,
    test_name: r.testName,
    status: r.status,
    score: r.score,
    completed_at: r.completedAt,
    subtitle: r.subtitle,
    properties: r.properties,
    urls: r.urls,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  });
}

function toStored(r: Row): StoredReport {
  return {
    id: r.id,
    codename: r.codename,
    companyId: r.company_id,
    candidateId: r.candidate_id,
    testId: r.test_id,
    testName: r.test_name,
    status: r.status,
    score: r.score,
    completedAt: r.completed_at,
    subtitle: r.subtitle,
    properties: JSON.parse(r.properties) as ReportProperty[],
    urls: JSON.parse(r.urls) as Record<string, string>,
    sentByUserId: r.sent_by_user_id,
    delivery: r.delivery,
    deliveryError: r.delivery_error,
    cancelRequestedAt: r.cancel_requested_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
