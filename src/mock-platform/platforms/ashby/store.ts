import type { Clock } from '../../../lib/clock.js';
import { isoAt } from '../../../lib/clock.js';
import type { Db } from '../../../lib/db.js';
import type { AssessmentData } from './wire.js';

export interface AshbyCompany {
  id: number;
  name: string;
  /** The Ashby API key the company issued for its assessment partner: what `assessment.update` must carry. */
  apiKey: string;
  apiKeyIssuedAt: string;
}

export interface AshbyPartner {
  companyId: number;
  name: string;
  /** Ashby calls `{baseUrl}/assessment.list`, `assessment.start`, `assessment.cancel`. */
  baseUrl: string;
  /** The key the partner gave the customer: the Basic user name of every call. */
  apiKey: string;
  createdAt: string;
  updatedAt: string;
}

export interface HiringTeamMember {
  userId: string;
  firstName: string;
  lastName: string;
  email: string;
  role: string;
}

export interface Stage {
  id: number;
  jobId: number;
  name: string;
  /** The partner's assessment picked for this stage, if any. */
  assessment: { id: string; name: string } | null;
}

export interface Job {
  id: number;
  ashbyId: string;
  name: string;
  reqId: string | null;
  hiringTeam: HiringTeamMember[];
  stages: Stage[];
}

export interface AshbyCandidate {
  id: number;
  companyId: number;
  ashbyId: string;
  firstName: string;
  lastName: string;
  email: string;
}

export interface Application {
  id: number;
  candidateId: number;
  jobId: number;
  ashbyId: string;
  status: string;
}

export interface Assessment {
  id: number;
  companyId: number;
  applicationId: number;
  stageId: number | null;
  assessmentTypeId: string;
  assessmentName: string;
  /** The partner's id for it (the kit's report id), once `assessment.start` answered. */
  assessmentId: string | null;
  delivery: 'pending' | 'started' | 'failed';
  deliveryError: string | null;
  /** The last `assessment_status` value the partner sent. */
  status: string | null;
  result: AssessmentData | null;
  profileUrl: string | null;
  metadata: AssessmentData[];
  /** When the candidate started (a `Started` update's timestamp, ms). */
  startedAt: number | null;
  /** When the result came (its update's timestamp, ms). */
  completedAt: number | null;
  cancelledBy: 'ashby' | 'partner' | null;
  cancelledReason: string | null;
  cancelledAt: string | null;
  /** The newest update's timestamp applied (ms). */
  lastTimestamp: number | null;
  problem: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ReceivedUpdate {
  id: number;
  source: 'start' | 'update';
  timestamp: number;
  body: string;
  applied: boolean;
  note: string | null;
  receivedAt: string;
}

/** What an update changes of an assessment, as `service.ts` applies it. */
export interface UpdateChange {
  status?: string;
  result?: AssessmentData;
  profileUrl?: string;
  metadata?: AssessmentData[];
  startedAt?: number;
  completedAt?: number;
  cancelledReason?: string;
  timestamp: number;
}

interface CompanyRow {
  id: number;
  name: string;
  api_key: string;
  api_key_issued_at: string;
}

interface PartnerRow {
  company_id: number;
  name: string;
  base_url: string;
  api_key: string;
  created_at: string;
  updated_at: string;
}

interface JobRow {
  id: number;
  ashby_id: string;
  name: string;
  req_id: string | null;
  hiring_team: string;
}

interface StageRow {
  id: number;
  job_id: number;
  name: string;
  assessment_type_id: string | null;
  assessment_name: string | null;
}

interface CandidateRow {
  id: number;
  company_id: number;
  ashby_id: string;
  first_name: string;
  last_name: string;
  email: string;
}

interface ApplicationRow {
  id: number;
  candidate_id: number;
  job_id: number;
  ashby_id: string;
  status: string;
}

interface AssessmentRow {
  id: number;
  company_id: number;
  application_id: number;
  stage_id: number | null;
  assessment_type_id: string;
  assessment_name: string;
  assessment_id: string | null;
  delivery: Assessment['delivery'];
  delivery_error: string | null;
  status: string | null;
  result: string | null;
  profile_url: string | null;
  metadata: string | null;
  started_at: number | null;
  completed_at: number | null;
  cancelled_by: Assessment['cancelledBy'];
  cancelled_reason: string | null;
  cancelled_at: string | null;
  last_timestamp: number | null;
  problem: string | null;
  created_at: string;
  updated_at: string;
}

interface UpdateRow {
  id: number;
  source: ReceivedUpdate['source'];
  timestamp: number;
  body: string;
  applied: number;
  note: string | null;
  received_at: string;
}

export type AshbyStore = ReturnType<typeof ashbyStore>;

/** The Ashby side's tables (ashby/001_ashby.sql): companies and their API key, the partner, jobs, candidates, assessments. */
export function ashbyStore(db: Db, clock: Clock) {
  const now = () => isoAt(clock.now());
  const company = db.prepare<[number], CompanyRow>('SELECT id, name, api_key, api_key_issued_at FROM ashby_companies WHERE id = ?');
  const companies = db.prepare<[], CompanyRow>('SELECT id, name, api_key, api_key_issued_at FROM ashby_companies ORDER BY id');
  const newKey = db.prepare<[string, string, number]>('UPDATE ashby_companies SET api_key = ?, api_key_issued_at = ? WHERE id = ?');
  const partner = db.prepare<[number], PartnerRow>('SELECT * FROM ashby_partners WHERE company_id = ?');
  const upsertPartner = db.prepare<Record<string, string | number>>(
    `INSERT INTO ashby_partners (company_id, name, base_url, api_key, created_at, updated_at)
     VALUES (@companyId, @name, @baseUrl, @apiKey, @now, @now)
     ON CONFLICT (company_id) DO UPDATE SET name = excluded.name, base_url = excluded.base_url, api_key = excluded.api_key, updated_at = excluded.updated_at`,
  );
  const jobs = db.prepare<[number], JobRow>('SELECT id, ashby_id, name, req_id, hiring_team FROM ashby_jobs WHERE company_id = ? ORDER BY id');
  const stagesOfCompany = db.prepare<[number], StageRow>(
    `SELECT s.id, s.job_id, s.name, s.assessment_type_id, s.assessment_name FROM ashby_stages s
     JOIN ashby_jobs j ON j.id = s.job_id WHERE j.company_id = ? ORDER BY s.job_id, s.position`,
  );
  const pickAssessment = db.prepare<[string | null, string | null, number, number]>(
    `UPDATE ashby_stages SET assessment_type_id = ?, assessment_name = ?
     WHERE id = ? AND job_id IN (SELECT id FROM ashby_jobs WHERE company_id = ?)`,
  );
  const candidate = db.prepare<[number, number], CandidateRow>('SELECT * FROM ashby_candidates WHERE company_id = ? AND id = ?');
  const candidates = db.prepare<[number], CandidateRow>('SELECT * FROM ashby_candidates WHERE company_id = ? ORDER BY id');
  const applicationsOf = db.prepare<[number], ApplicationRow>('SELECT * FROM ashby_applications WHERE candidate_id = ? ORDER BY id');
  const application = db.prepare<[number, number], ApplicationRow>(
    `SELECT a.* FROM ashby_applications a JOIN ashby_candidates c ON c.id = a.candidate_id WHERE c.company_id = ? AND a.id = ?`,
  );
  const insertAssessment = db.prepare<[number, number, number, string, string, string, string], { id: number }>(
    `INSERT INTO ashby_assessments (company_id, application_id, stage_id, assessment_type_id, assessment_name, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const assessment = db.prepare<[number], AssessmentRow>('SELECT * FROM ashby_assessments WHERE id = ?');
  const byAssessmentId = db.prepare<[number, string], AssessmentRow>(
    "SELECT * FROM ashby_assessments WHERE company_id = ? AND assessment_id = ? AND delivery = 'started' ORDER BY id DESC LIMIT 1",
  );
  const ofCandidate = db.prepare<[number], AssessmentRow>(
    `SELECT s.* FROM ashby_assessments s JOIN ashby_applications a ON a.id = s.application_id WHERE a.candidate_id = ? ORDER BY s.id DESC`,
  );
  const started = db.prepare<[string, string, number]>("UPDATE ashby_assessments SET delivery = 'started', assessment_id = ?, updated_at = ? WHERE id = ?");
  const failed = db.prepare<[string, string, number]>("UPDATE ashby_assessments SET delivery = 'failed', delivery_error = ?, updated_at = ? WHERE id = ?");
  const remove = db.prepare<[number]>('DELETE FROM ashby_assessments WHERE id = ?');
  const problem = db.prepare<[string | null, string, number]>('UPDATE ashby_assessments SET problem = ?, updated_at = ? WHERE id = ?');
  const cancelled = db.prepare<[string, string, string, string, number]>(
    'UPDATE ashby_assessments SET cancelled_by = ?, cancelled_reason = ?, cancelled_at = ?, problem = NULL, updated_at = ? WHERE id = ? AND cancelled_at IS NULL',
  );
  const applied = db.prepare<Record<string, string | number | null>>(
    `UPDATE ashby_assessments SET
       status = coalesce(@status, status),
       result = coalesce(@result, result),
       profile_url = coalesce(@profileUrl, profile_url),
       metadata = coalesce(@metadata, metadata),
       started_at = coalesce(@startedAt, started_at),
       completed_at = coalesce(@completedAt, completed_at),
       cancelled_by = CASE WHEN @cancelledReason IS NULL THEN cancelled_by ELSE 'partner' END,
       cancelled_reason = coalesce(@cancelledReason, cancelled_reason),
       cancelled_at = CASE WHEN @cancelledReason IS NULL THEN cancelled_at ELSE @now END,
       last_timestamp = @timestamp, problem = @problem, updated_at = @now
     WHERE id = @id`,
  );
  const insertUpdate = db.prepare<[number, string, number, string, number, string | null, string]>(
    'INSERT INTO ashby_assessment_updates (assessment, source, timestamp, body, applied, note, received_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const updatesOf = db.prepare<[number], UpdateRow>('SELECT * FROM ashby_assessment_updates WHERE assessment = ? ORDER BY id');

  return {
    company(id: number): AshbyCompany | undefined {
      const row = company.get(id);
      return row && toCompany(row);
    },
    companies: (): AshbyCompany[] => companies.all().map(toCompany),
    /** The company whose API key this is; every key is compared, so the time taken does not tell which. */
    companyOfKey(key: string, equal: (a: string, b: string) => boolean): AshbyCompany | undefined {
      let found: AshbyCompany | undefined;
      for (const row of companies.all()) if (equal(key, row.api_key)) found ??= toCompany(row);
      return found;
    },
    issueApiKey(companyId: number, key: string): void {
      newKey.run(key, now(), companyId);
    },

    partner(companyId: number): AshbyPartner | undefined {
      const row = partner.get(companyId);
      return row && toPartner(row);
    },
    savePartner(companyId: number, input: { name: string; baseUrl: string; apiKey: string }): AshbyPartner {
      upsertPartner.run({ companyId, ...input, now: now() });
      return toPartner(partner.get(companyId)!);
    },

    jobs(companyId: number): Job[] {
      const stages = stagesOfCompany.all(companyId).map(toStage);
      return jobs.all(companyId).map((j) => ({
        id: j.id,
        ashbyId: j.ashby_id,
        name: j.name,
        reqId: j.req_id,
        hiringTeam: JSON.parse(j.hiring_team) as HiringTeamMember[],
        stages: stages.filter((s) => s.jobId === j.id),
      }));
    },
    stage: (companyId: number, stageId: number): Stage | undefined =>
      stagesOfCompany
        .all(companyId)
        .map(toStage)
        .find((s) => s.id === stageId),
    /** Gives the stage an assessment (or none); false when the stage is not the company's. */
    pickAssessment: (companyId: number, stageId: number, picked: { id: string; name: string } | null): boolean =>
      pickAssessment.run(picked?.id ?? null, picked?.name ?? null, stageId, companyId).changes === 1,

    candidate(companyId: number, id: number): AshbyCandidate | undefined {
      const row = candidate.get(companyId, id);
      return row && toCandidate(row);
    },
    candidates: (companyId: number): AshbyCandidate[] => candidates.all(companyId).map(toCandidate),
    applicationsOf: (candidateId: number): Application[] => applicationsOf.all(candidateId).map(toApplication),
    application(companyId: number, id: number): Application | undefined {
      const row = application.get(companyId, id);
      return row && toApplication(row);
    },

    /** An assessment about to be started. */
    createAssessment(a: { companyId: number; applicationId: number; stageId: number; assessmentTypeId: string; assessmentName: string }): Assessment {
      const at = now();
      const { id } = insertAssessment.get(a.companyId, a.applicationId, a.stageId, a.assessmentTypeId, a.assessmentName, at, at)!;
      return toAssessment(assessment.get(id)!);
    },
    assessment(id: number): Assessment | undefined {
      const row = assessment.get(id);
      return row && toAssessment(row);
    },
    /** The company's started assessment the partner gave this id. */
    byAssessmentId(companyId: number, assessmentId: string): Assessment | undefined {
      const row = byAssessmentId.get(companyId, assessmentId);
      return row && toAssessment(row);
    },
    ofCandidate: (candidateId: number): Assessment[] => ofCandidate.all(candidateId).map(toAssessment),
    markStarted: (id: number, assessmentId: string) => void started.run(assessmentId, now(), id),
    markFailed: (id: number, error: string) => void failed.run(error, now(), id),
    /** An assessment that was never started: the partner answered the id of one that was. */
    remove: (id: number) => void remove.run(id),
    storeProblem: (id: number, text: string | null) => void problem.run(text, now(), id),
    /** Ashby's own cancel (the recruiter's); false when it was cancelled already. */
    markCancelled: (id: number, reason: string): boolean => {
      const at = now();
      return cancelled.run('ashby', reason, at, at, id).changes === 1;
    },

    /** Applies what an update changes, and records it in the assessment's history (`note`: what is odd about it). */
    apply(id: number, source: ReceivedUpdate['source'], body: string, change: UpdateChange, note: string | null = null): void {
      const at = now();
      db.transaction(() => {
        applied.run({
          id,
          status: change.status ?? null,
          result: change.result ? JSON.stringify(change.result) : null,
          profileUrl: change.profileUrl ?? null,
          metadata: change.metadata ? JSON.stringify(change.metadata) : null,
          startedAt: change.startedAt ?? null,
          completedAt: change.completedAt ?? null,
          cancelledReason: change.cancelledReason ?? null,
          timestamp: change.timestamp,
          problem: note,
          now: at,
        });
        insertUpdate.run(id, source, change.timestamp, body, 1, note, at);
      })();
    },
    /** Records an update that was not applied, and why. */
    keep(id: number, source: ReceivedUpdate['source'], body: string, timestamp: number, note: string): void {
      insertUpdate.run(id, source, timestamp, body, 0, note, now());
    },
    updatesOf: (id: number): ReceivedUpdate[] =>
      updatesOf.all(id).map((r) => ({ id: r.id, source: r.source, timestamp: r.timestamp, body: r.body, applied: r.applied === 1, note: r.note, receivedAt: r.received_at })),
  };
}

const toCompany = (r: CompanyRow): AshbyCompany => ({ id: r.id, name: r.name, apiKey: r.api_key, apiKeyIssuedAt: r.api_key_issued_at });

const toPartner = (r: PartnerRow): AshbyPartner => ({
  companyId: r.company_id,
  name: r.name,
  baseUrl: r.base_url,
  apiKey: r.api_key,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toStage = (r: StageRow): Stage => ({
  id: r.id,
  jobId: r.job_id,
  name: r.name,
  assessment: r.assessment_type_id === null ? null : { id: r.assessment_type_id, name: r.assessment_name ?? r.assessment_type_id },
});

const toCandidate = (r: CandidateRow): AshbyCandidate => ({
  id: r.id,
  companyId: r.company_id,
  ashbyId: r.ashby_id,
  firstName: r.first_name,
  lastName: r.last_name,
  email: r.email,
});

const toApplication = (r: ApplicationRow): Application => ({ id: r.id, candidateId: r.candidate_id, jobId: r.job_id, ashbyId: r.ashby_id, status: r.status });

function toAssessment(r: AssessmentRow): Assessment {
  return {
    id: r.id,
    companyId: r.company_id,
    applicationId: r.application_id,
    stageId: r.stage_id,
    assessmentTypeId: r.assessment_type_id,
    assessmentName: r.assessment_name,
    assessmentId: r.assessment_id,
    delivery: r.delivery,
    deliveryError: r.delivery_error,
    status: r.status,
    result: r.result === null ? null : (JSON.parse(r.result) as AssessmentData),
    profileUrl: r.profile_url,
    metadata: r.metadata === null ? [] : (JSON.parse(r.metadata) as AssessmentData[]),
    startedAt: r.started_at,
    completedAt: r.completed_at,
    cancelledBy: r.cancelled_by,
    cancelledReason: r.cancelled_reason,
    cancelledAt: r.cancelled_at,
    lastTimestamp: r.last_timestamp,
    problem: r.problem,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
