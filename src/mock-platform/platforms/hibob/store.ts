import type { Clock } from '../../../lib/clock.js';
import { isoAt } from '../../../lib/clock.js';
import type { Db } from '../../../lib/db.js';

export interface BobApp {
  /** The vendor's name, as its marketplace listing shows it; null until a partner connected. */
  name: string | null;
  /** Where Bob sends the browser after an install (`{PUBLIC_URL}/hibob/oauth/callback`). */
  redirectUri: string | null;
  /** The one webhook listener for every company (`{PUBLIC_URL}/hibob/webhooks`). */
  webhookUrl: string | null;
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
  updatedAt: string;
}

export interface BobCompany {
  /** Bob's company id: what the install and every event name. */
  id: string;
  name: string;
  /** When the company last installed the vendor's app; null while it has not. */
  installedAt: string | null;
  /** When the vendor last registered the company's catalog; null while it has not. */
  catalogRegisteredAt: string | null;
}

export interface Employee {
  id: string;
  companyId: string;
  firstName: string;
  lastName: string;
  email: string;
}

export interface JobOpening {
  id: string;
  companyId: string;
  title: string;
}

export interface BobCandidate {
  id: number;
  companyId: string;
  bobId: string;
  jobOpeningId: string;
  firstName: string;
  lastName: string;
  email: string;
}

export interface Package {
  id: string;
  name: string;
  description: string | null;
  status: 'active' | 'archived';
  registeredAt: string;
}

export interface Assessment {
  id: number;
  /** Bob's `assessmentRequestId`: the kit's report id. */
  requestId: string;
  companyId: string;
  candidateId: number;
  jobOpeningId: string;
  requesterId: string;
  packageId: string;
  packageName: string;
  /** The last `status` the vendor PATCHed; null until the first PATCH. */
  status: string | null;
  score: number | null;
  resultUrl: string | null;
  verdict: string | null;
  comments: string | null;
  providerAssessmentId: string | null;
  sectionSummary: unknown[] | null;
  detailsReadAt: string | null;
  detailsReads: number;
  cancelledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What a PATCH changes: the fields it gave (an omitted one keeps its value). */
export interface AssessmentChange {
  status: string;
  score?: number;
  resultUrl?: string;
  verdict?: string;
  comments?: string;
  providerAssessmentId?: string;
  sectionSummary?: unknown[];
}

export interface ReceivedUpdate {
  id: number;
  body: string;
  applied: boolean;
  note: string | null;
  receivedAt: string;
}

export type EventType = 'assessment.triggered' | 'assessment.cancelled';

export interface Delivery {
  id: number;
  assessment: number;
  companyId: string;
  eventType: EventType;
  /** The exact bytes signed and sent, the same on every attempt. */
  body: string;
  status: 'pending' | 'sending' | 'delivered' | 'failed';
  attempts: number;
  firstFailedAt: string | null;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

interface AppRow {
  name: string | null;
  redirect_uri: string | null;
  webhook_url: string | null;
  client_id: string;
  client_secret: string;
  webhook_secret: string;
  updated_at: string;
}

interface CompanyRow {
  id: string;
  name: string;
  installed_at: string | null;
  catalog_registered_at: string | null;
}

interface EmployeeRow {
  id: string;
  company_id: string;
  first_name: string;
  last_name: string;
  email: string;
}

interface JobRow {
  id: string;
  company_id: string;
  title: string;
}

interface CandidateRow {
  id: number;
  company_id: string;
  bob_id: string;
  job_opening_id: string;
  first_name: string;
  last_name: string;
  email: string;
}

interface PackageRow {
  id: string;
  name: string;
  description: string | null;
  status: Package['status'];
  registered_at: string;
}

interface AssessmentRow {
  id: number;
  request_id: string;
  company_id: string;
  candidate_id: number;
  job_opening_id: string;
  requester_id: string;
  package_id: string;
  package_name: string;
  status: string | null;
  score: number | null;
  result_url: string | null;
  verdict: string | null;
  comments: string | null;
  provider_assessment_id: string | null;
  section_summary: string | null;
  details_read_at: string | null;
  details_reads: number;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
}

interface UpdateRow {
  id: number;
  body: string;
  applied: number;
  note: string | null;
  received_at: string;
}

interface DeliveryRow {
  id: number;
  assessment: number;
  company_id: string;
  event_type: EventType;
  body: string;
  status: Delivery['status'];
  attempts: number;
  first_failed_at: string | null;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
}

export type BobStore = ReturnType<typeof bobStore>;

/**
 * Bob's tables (hibob/001_hibob.sql): the vendor's app, companies and their people, the install's
 * codes and tokens (by digest), the catalogs, the assessments ordered and what their PATCHes said,
 * the webhook deliveries.
 */
export function bobStore(db: Db, clock: Clock) {
  const now = () => isoAt(clock.now());

  const app = db.prepare<[], AppRow>('SELECT * FROM hibob_app WHERE id = 1');
  const saveApp = db.prepare<[string, string, string, string]>('UPDATE hibob_app SET name = ?, redirect_uri = ?, webhook_url = ?, updated_at = ? WHERE id = 1');
  const company = db.prepare<[string], CompanyRow>('SELECT id, name, installed_at, catalog_registered_at FROM hibob_companies WHERE id = ?');
  const companies = db.prepare<[], CompanyRow>('SELECT id, name, installed_at, catalog_registered_at FROM hibob_companies ORDER BY position');
  const installed = db.prepare<[string, string]>('UPDATE hibob_companies SET installed_at = ? WHERE id = ?');
  const employees = db.prepare<[string], EmployeeRow>('SELECT * FROM hibob_employees WHERE company_id = ? ORDER BY rowid');
  const employee = db.prepare<[string], EmployeeRow>('SELECT * FROM hibob_employees WHERE id = ?');
  const jobs = db.prepare<[string], JobRow>('SELECT * FROM hibob_job_openings WHERE company_id = ? ORDER BY id');
  const job = db.prepare<[string], JobRow>('SELECT * FROM hibob_job_openings WHERE id = ?');
  const candidate = db.prepare<[string, number], CandidateRow>('SELECT * FROM hibob_candidates WHERE company_id = ? AND id = ?');
  const candidates = db.prepare<[string], CandidateRow>('SELECT * FROM hibob_candidates WHERE company_id = ? ORDER BY id');

  const insertCode = db.prepare<[string, string, string, string, string]>(
    'INSERT INTO hibob_codes (digest, company_id, redirect_uri, expires_at, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const code = db.prepare<[string], { company_id: string; redirect_uri: string; expires_at: string; used_at: string | null }>(
    'SELECT company_id, redirect_uri, expires_at, used_at FROM hibob_codes WHERE digest = ?',
  );
  const useCode = db.prepare<[string, string]>('UPDATE hibob_codes SET used_at = ? WHERE digest = ? AND used_at IS NULL');
  const insertToken = db.prepare<[string, string, string, string | null, string]>(
    'INSERT INTO hibob_tokens (digest, kind, company_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const token = db.prepare<[string], { kind: 'access' | 'refresh'; company_id: string; expires_at: string | null; used_at: string | null }>(
    'SELECT kind, company_id, expires_at, used_at FROM hibob_tokens WHERE digest = ?',
  );
  const useToken = db.prepare<[string, string]>('UPDATE hibob_tokens SET used_at = ? WHERE digest = ? AND used_at IS NULL');
  const tokensOf = db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM hibob_tokens WHERE company_id = ? AND kind = 'access'");

  const packages = db.prepare<[string], PackageRow>('SELECT id, name, description, status, registered_at FROM hibob_packages WHERE company_id = ? ORDER BY status, position, id');
  const archiveAll = db.prepare<[string]>("UPDATE hibob_packages SET status = 'archived' WHERE company_id = ?");
  const upsertPackage = db.prepare<[string, string, string, string | null, number, string]>(
    `INSERT INTO hibob_packages (company_id, id, name, description, status, position, registered_at) VALUES (?, ?, ?, ?, 'active', ?, ?)
     ON CONFLICT (company_id, id) DO UPDATE SET name = excluded.name, description = excluded.description, status = 'active',
                                                position = excluded.position, registered_at = excluded.registered_at`,
  );
  const registered = db.prepare<[string, string]>('UPDATE hibob_companies SET catalog_registered_at = ? WHERE id = ?');
  const deletePackage = db.prepare<[string, string]>('DELETE FROM hibob_packages WHERE company_id = ? AND id = ?');

  const insertAssessment = db.prepare<Record<string, string | number>, { id: number }>(
    `INSERT INTO hibob_assessments (request_id, company_id, candidate_id, job_opening_id, requester_id, package_id, package_name, created_at, updated_at)
     VALUES (@requestId, @companyId, @candidateId, @jobOpeningId, @requesterId, @packageId, @packageName, @now, @now) RETURNING id`,
  );
  const requestIdTaken = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM hibob_assessments WHERE request_id = ?');
  const assessment = db.prepare<[number], AssessmentRow>('SELECT * FROM hibob_assessments WHERE id = ?');
  const byRequestId = db.prepare<[string], AssessmentRow>('SELECT * FROM hibob_assessments WHERE request_id = ?');
  const ofCandidate = db.prepare<[number], AssessmentRow>('SELECT * FROM hibob_assessments WHERE candidate_id = ? ORDER BY id DESC');
  const detailsRead = db.prepare<[string, string, number]>(
    'UPDATE hibob_assessments SET details_read_at = ?, details_reads = details_reads + 1, updated_at = ? WHERE id = ?',
  );
  const cancelled = db.prepare<[string, string, number]>('UPDATE hibob_assessments SET cancelled_at = ?, updated_at = ? WHERE id = ? AND cancelled_at IS NULL');
  const applied = db.prepare<Record<string, string | number | null>>(
    `UPDATE hibob_assessments SET
       status = @status,
       score = coalesce(@score, score),
       result_url = coalesce(@resultUrl, result_url),
       verdict = coalesce(@verdict, verdict),
       comments = coalesce(@comments, comments),
       provider_assessment_id = coalesce(@providerAssessmentId, provider_assessment_id),
       section_summary = coalesce(@sectionSummary, section_summary),
       updated_at = @now
     WHERE id = @id`,
  );
  const insertUpdate = db.prepare<[number, string, number, string | null, string]>(
    'INSERT INTO hibob_assessment_updates (assessment, body, applied, note, received_at) VALUES (?, ?, ?, ?, ?)',
  );
  const updatesOf = db.prepare<[number], UpdateRow>('SELECT id, body, applied, note, received_at FROM hibob_assessment_updates WHERE assessment = ? ORDER BY id');

  const insertDelivery = db.prepare<[number, string, string, string, string, string], { id: number }>(
    `INSERT INTO hibob_deliveries (assessment, company_id, event_type, body, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'sending', ?, ?) RETURNING id`,
  );
  const delivery = db.prepare<[number], DeliveryRow>('SELECT * FROM hibob_deliveries WHERE id = ?');
  const due = db.prepare<[string, number], DeliveryRow>(
    "SELECT * FROM hibob_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?",
  );
  const claim = db.prepare<[string, number, string]>(
    "UPDATE hibob_deliveries SET status = 'sending', updated_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at <= ?",
  );
  const deliveredNow = db.prepare<[number, string, string, number]>(
    "UPDATE hibob_deliveries SET status = 'delivered', attempts = attempts + 1, last_status = ?, last_error = NULL, next_attempt_at = NULL, delivered_at = ?, updated_at = ? WHERE id = ?",
  );
  const attemptFailed = db.prepare<Record<string, string | number | null>>(
    `UPDATE hibob_deliveries SET status = @status, attempts = attempts + 1, last_status = @lastStatus, last_error = @error,
       first_failed_at = coalesce(first_failed_at, @firstFailedAt), next_attempt_at = @nextAt, updated_at = @now WHERE id = @id`,
  );
  const deliveriesOf = db.prepare<[number], DeliveryRow>('SELECT * FROM hibob_deliveries WHERE assessment = ? ORDER BY id');
  const recent = db.prepare<[string, number], DeliveryRow>('SELECT * FROM hibob_deliveries WHERE company_id = ? ORDER BY id DESC LIMIT ?');
  const unstick = db.prepare<[string, string]>("UPDATE hibob_deliveries SET status = 'pending', next_attempt_at = coalesce(next_attempt_at, ?), updated_at = ? WHERE status = 'sending'");
  const nextDue = db.prepare<[], { at: string | null }>("SELECT min(next_attempt_at) AS at FROM hibob_deliveries WHERE status = 'pending'");

  return {
    app(): BobApp {
      const r = app.get()!;
      return {
        name: r.name,
        redirectUri: r.redirect_uri,
        webhookUrl: r.webhook_url,
        clientId: r.client_id,
        clientSecret: r.client_secret,
        webhookSecret: r.webhook_secret,
        updatedAt: r.updated_at,
      };
    },
    saveApp(input: { name: string; redirectUri: string; webhookUrl: string }): void {
      saveApp.run(input.name, input.redirectUri, input.webhookUrl, now());
    },

    company(id: string): BobCompany | undefined {
      const r = company.get(id);
      return r && toCompany(r);
    },
    companies: (): BobCompany[] => companies.all().map(toCompany),
    markInstalled: (id: string) => void installed.run(now(), id),
    employees: (companyId: string): Employee[] => employees.all(companyId).map(toEmployee),
    employee(id: string): Employee | undefined {
      const r = employee.get(id);
      return r && toEmployee(r);
    },
    jobOpenings: (companyId: string): JobOpening[] => jobs.all(companyId).map((r) => ({ id: r.id, companyId: r.company_id, title: r.title })),
    jobOpening(id: string): JobOpening | undefined {
      const r = job.get(id);
      return r && { id: r.id, companyId: r.company_id, title: r.title };
    },
    candidate(companyId: string, id: number): BobCandidate | undefined {
      const r = candidate.get(companyId, id);
      return r && toCandidate(r);
    },
    candidates: (companyId: string): BobCandidate[] => candidates.all(companyId).map(toCandidate),

    saveCode: (digest: string, companyId: string, redirectUri: string, expiresAt: number) =>
      void insertCode.run(digest, companyId, redirectUri, isoAt(expiresAt), now()),
    code(digest: string) {
      const r = code.get(digest);
      return r && { companyId: r.company_id, redirectUri: r.redirect_uri, expiresAt: r.expires_at, usedAt: r.used_at };
    },
    /** Marks the code exchanged; false when it was already (two exchanges at once: one wins). */
    useCode: (digest: string): boolean => useCode.run(now(), digest).changes === 1,
    saveToken: (digest: string, kind: 'access' | 'refresh', companyId: string, expiresAt: number | null) =>
      void insertToken.run(digest, kind, companyId, expiresAt === null ? null : isoAt(expiresAt), now()),
    token(digest: string) {
      const r = token.get(digest);
      return r && { kind: r.kind, companyId: r.company_id, expiresAt: r.expires_at, usedAt: r.used_at };
    },
    /** Marks a refresh token used (rotated); false when it was already. */
    useToken: (digest: string): boolean => useToken.run(now(), digest).changes === 1,
    /** How many access tokens the company was issued: whether the vendor ever exchanged an install's code. */
    accessTokensIssued: (companyId: string): number => tokensOf.get(companyId)!.n,

    packages: (companyId: string): Package[] =>
      packages.all(companyId).map((r) => ({ id: r.id, name: r.name, description: r.description, status: r.status, registeredAt: r.registered_at })),
    /** Replaces the company's catalog: the packages given are active, in this order; every other one is archived. */
    replaceCatalog(companyId: string, list: readonly { id: string; name: string; description?: string }[]): void {
      const at = now();
      db.transaction(() => {
        archiveAll.run(companyId);
        list.forEach((p, i) => upsertPackage.run(companyId, p.id, p.name, p.description ?? null, i, at));
        registered.run(at, companyId);
      })();
    },
    /** Deletes these packages of the company for good; unknown ids are ignored. */
    deletePackages(companyId: string, ids: readonly string[]): number {
      return db.transaction(() => ids.reduce((n, id) => n + deletePackage.run(companyId, id).changes, 0))();
    },

    requestIdTaken: (requestId: string): boolean => requestIdTaken.get(requestId)!.n > 0,
    createAssessment(a: { requestId: string; companyId: string; candidateId: number; jobOpeningId: string; requesterId: string; packageId: string; packageName: string }): Assessment {
      const { id } = insertAssessment.get({ ...a, now: now() })!;
      return toAssessment(assessment.get(id)!);
    },
    assessment(id: number): Assessment | undefined {
      const r = assessment.get(id);
      return r && toAssessment(r);
    },
    byRequestId(requestId: string): Assessment | undefined {
      const r = byRequestId.get(requestId);
      return r && toAssessment(r);
    },
    ofCandidate: (candidateId: number): Assessment[] => ofCandidate.all(candidateId).map(toAssessment),
    markDetailsRead: (id: number) => {
      const at = now();
      detailsRead.run(at, at, id);
    },
    /** The recruiter's cancel; false when it was cancelled already. */
    markCancelled: (id: number): boolean => {
      const at = now();
      return cancelled.run(at, at, id).changes === 1;
    },
    /** Applies a PATCH and records it. */
    apply(id: number, body: string, change: AssessmentChange): void {
      const at = now();
      db.transaction(() => {
        applied.run({
          id,
          status: change.status,
          score: change.score ?? null,
          resultUrl: change.resultUrl ?? null,
          verdict: change.verdict ?? null,
          comments: change.comments ?? null,
          providerAssessmentId: change.providerAssessmentId ?? null,
          sectionSummary: change.sectionSummary ? JSON.stringify(change.sectionSummary) : null,
          now: at,
        });
        insertUpdate.run(id, body, 1, null, at);
      })();
    },
    /** Records a PATCH that was refused, and why. */
    keep: (id: number, body: string, note: string) => void insertUpdate.run(id, body, 0, note, now()),
    updatesOf: (id: number): ReceivedUpdate[] =>
      updatesOf.all(id).map((r) => ({ id: r.id, body: r.body, applied: r.applied === 1, note: r.note, receivedAt: r.received_at })),

    /** A new event's delivery, claimed for its first attempt (`sending`) by whoever made it. */
    createDelivery(d: { assessment: number; companyId: string; eventType: EventType; body: string }): Delivery {
      const at = now();
      const { id } = insertDelivery.get(d.assessment, d.companyId, d.eventType, d.body, at, at)!;
      return toDelivery(delivery.get(id)!);
    },
    delivery(id: number): Delivery | undefined {
      const r = delivery.get(id);
      return r && toDelivery(r);
    },
    dueDeliveries: (limit: number): Delivery[] => due.all(now(), limit).map(toDelivery),
    /** Takes a due delivery for an attempt; false when another run took it, or it is not due. */
    claim: (id: number): boolean => {
      const at = now();
      return claim.run(at, id, at).changes === 1;
    },
    delivered: (id: number, status: number) => {
      const at = now();
      deliveredNow.run(status, at, at, id);
    },
    /** An attempt failed (the delivery's first failure at `firstFailedAt`, unless one came before): retried at `nextAt`, or given up (null). */
    attemptFailed: (id: number, outcome: { status: number | null; error: string; firstFailedAt: number; nextAt: number | null }) =>
      void attemptFailed.run({
        id,
        firstFailedAt: isoAt(outcome.firstFailedAt),
        status: outcome.nextAt === null ? 'failed' : 'pending',
        lastStatus: outcome.status,
        error: outcome.error.slice(0, 500),
        nextAt: outcome.nextAt === null ? null : isoAt(outcome.nextAt),
        now: now(),
      }),
    deliveriesOf: (assessmentId: number): Delivery[] => deliveriesOf.all(assessmentId).map(toDelivery),
    recentDeliveries: (companyId: string, limit: number): Delivery[] => recent.all(companyId, limit).map(toDelivery),
    /** Deliveries a stopped mock left mid-attempt: pending again, due now (the attempt is made again). */
    unstick: () => {
      const at = now();
      unstick.run(at, at);
    },
    /** When the next pending delivery falls due; undefined when none is pending. */
    nextDueAt: (): string | undefined => nextDue.get()!.at ?? undefined,
  };
}

const toCompany = (r: CompanyRow): BobCompany => ({ id: r.id, name: r.name, installedAt: r.installed_at, catalogRegisteredAt: r.catalog_registered_at });
const toEmployee = (r: EmployeeRow): Employee => ({ id: r.id, companyId: r.company_id, firstName: r.first_name, lastName: r.last_name, email: r.email });
const toCandidate = (r: CandidateRow): BobCandidate => ({
  id: r.id,
  companyId: r.company_id,
  bobId: r.bob_id,
  jobOpeningId: r.job_opening_id,
  firstName: r.first_name,
  lastName: r.last_name,
  email: r.email,
});

function toAssessment(r: AssessmentRow): Assessment {
  return {
    id: r.id,
    requestId: r.request_id,
    companyId: r.company_id,
    candidateId: r.candidate_id,
    jobOpeningId: r.job_opening_id,
    requesterId: r.requester_id,
    packageId: r.package_id,
    packageName: r.package_name,
    status: r.status,
    score: r.score,
    resultUrl: r.result_url,
    verdict: r.verdict,
    comments: r.comments,
    providerAssessmentId: r.provider_assessment_id,
    sectionSummary: r.section_summary === null ? null : (JSON.parse(r.section_summary) as unknown[]),
    detailsReadAt: r.details_read_at,
    detailsReads: r.details_reads,
    cancelledAt: r.cancelled_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  assessment: r.assessment,
  companyId: r.company_id,
  eventType: r.event_type,
  body: r.body,
  status: r.status,
  attempts: r.attempts,
  firstFailedAt: r.first_failed_at,
  nextAttemptAt: r.next_attempt_at,
  lastStatus: r.last_status,
  lastError: r.last_error,
  deliveredAt: r.delivered_at,
  createdAt: r.created_at,
});
