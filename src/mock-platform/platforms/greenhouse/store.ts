import type { Clock } from '../../../lib/clock.js';
import { isoAt } from '../../../lib/clock.js';
import type { Db } from '../../../lib/db.js';

export interface GreenhouseCompany {
  id: number;
  name: string;
  /** The recruiter who sends tests: send_test's `sent_by`. */
  sentBy: string;
}

/** The four endpoints of a partner, as Greenhouse's partnerships team configures them. */
export interface PartnerEndpoints {
  listTests: string;
  sendTest: string;
  testStatus: string;
  responseError: string;
}

export interface GreenhousePartner {
  companyId: number;
  name: string;
  /** The customer's API key, presented as `Basic base64(key + ":")` both ways. */
  apiKey: string;
  urls: PartnerEndpoints;
  createdAt: string;
  updatedAt: string;
}

export interface Stage {
  id: number;
  jobId: number;
  name: string;
  /** The partner test picked for this stage, if any. */
  test: { id: string; name: string } | null;
}

export interface Job {
  id: number;
  name: string;
  stages: Stage[];
}

export interface GreenhouseCandidate {
  id: number;
  companyId: number;
  jobId: number;
  firstName: string;
  lastName: string;
  preferredName: string | null;
  email: string;
  phoneNumber: string | null;
}

export type Metadata = Record<string, string | number | boolean | null>;

export interface TakeHomeTest {
  id: number;
  companyId: number;
  candidateId: number;
  stageId: number | null;
  partnerTestId: string;
  partnerTestName: string;
  partnerInterviewId: string | null;
  delivery: 'pending' | 'delivered' | 'failed';
  deliveryError: string | null;
  partnerStatus: string | null;
  partnerScore: number | null;
  partnerProfileUrl: string | null;
  metadata: Metadata | null;
  problem: string | null;
  patchedAt: string | null;
  checkedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface PartnerRow {
  company_id: number;
  name: string;
  api_key: string;
  list_tests_url: string;
  send_test_url: string;
  test_status_url: string;
  response_error_url: string;
  created_at: string;
  updated_at: string;
}

interface StageRow {
  id: number;
  job_id: number;
  name: string;
  partner_test_id: string | null;
  partner_test_name: string | null;
}

interface CandidateRow {
  id: number;
  company_id: number;
  job_id: number;
  first_name: string;
  last_name: string;
  preferred_name: string | null;
  email: string;
  phone_number: string | null;
}

interface TestRow {
  id: number;
  company_id: number;
  candidate_id: number;
  stage_id: number | null;
  partner_test_id: string;
  partner_test_name: string;
  partner_interview_id: string | null;
  delivery: TakeHomeTest['delivery'];
  delivery_error: string | null;
  partner_status: string | null;
  partner_score: number | null;
  partner_profile_url: string | null;
  metadata: string | null;
  problem: string | null;
  patched_at: string | null;
  checked_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A partner's last valid test_status answer. */
export interface PartnerStatus {
  partnerStatus: string;
  partnerScore: number | null;
  partnerProfileUrl: string | null;
  metadata: Metadata | null;
}

export type GreenhouseStore = ReturnType<typeof greenhouseStore>;

/** The Greenhouse side's tables (migration 300): companies, their partner, jobs, candidates, tests sent. */
export function greenhouseStore(db: Db, clock: Clock) {
  const now = () => isoAt(clock.now());
  const company = db.prepare<[number], GreenhouseCompany>('SELECT id, name, sent_by AS sentBy FROM greenhouse_companies WHERE id = ?');
  const companies = db.prepare<[], GreenhouseCompany>('SELECT id, name, sent_by AS sentBy FROM greenhouse_companies ORDER BY id');
  const partner = db.prepare<[number], PartnerRow>('SELECT * FROM greenhouse_partners WHERE company_id = ?');
  const partners = db.prepare<[], PartnerRow>('SELECT * FROM greenhouse_partners');
  const upsertPartner = db.prepare<Record<string, string | number>>(
    `INSERT INTO greenhouse_partners (company_id, name, api_key, list_tests_url, send_test_url, test_status_url, response_error_url, created_at, updated_at)
     VALUES (@companyId, @name, @apiKey, @listTests, @sendTest, @testStatus, @responseError, @now, @now)
     ON CONFLICT (company_id) DO UPDATE SET name = excluded.name, api_key = excluded.api_key,
       list_tests_url = excluded.list_tests_url, send_test_url = excluded.send_test_url,
       test_status_url = excluded.test_status_url, response_error_url = excluded.response_error_url, updated_at = excluded.updated_at`,
  );
  const jobs = db.prepare<[number], { id: number; name: string }>('SELECT id, name FROM greenhouse_jobs WHERE company_id = ? ORDER BY id');
  const stagesOfCompany = db.prepare<[number], StageRow>(
    `SELECT s.id, s.job_id, s.name, s.partner_test_id, s.partner_test_name FROM greenhouse_stages s
     JOIN greenhouse_jobs j ON j.id = s.job_id WHERE j.company_id = ? ORDER BY s.job_id, s.position`,
  );
  const pickTest = db.prepare<[string | null, string | null, number, number]>(
    `UPDATE greenhouse_stages SET partner_test_id = ?, partner_test_name = ?
     WHERE id = ? AND job_id IN (SELECT id FROM greenhouse_jobs WHERE company_id = ?)`,
  );
  const candidate = db.prepare<[number, number], CandidateRow>('SELECT * FROM greenhouse_candidates WHERE company_id = ? AND id = ?');
  const candidates = db.prepare<[number], CandidateRow>('SELECT * FROM greenhouse_candidates WHERE company_id = ? ORDER BY id');
  const insertTest = db.prepare<[number, number, number, string, string, string, string], { id: number }>(
    `INSERT INTO greenhouse_take_home_tests (company_id, candidate_id, stage_id, partner_test_id, partner_test_name, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const test = db.prepare<[number], TestRow>('SELECT * FROM greenhouse_take_home_tests WHERE id = ?');
  const testsOfCandidate = db.prepare<[number, number], TestRow>(
    'SELECT * FROM greenhouse_take_home_tests WHERE company_id = ? AND candidate_id = ? ORDER BY id DESC',
  );
  const testByInterviewId = db.prepare<[string], TestRow>(
    'SELECT * FROM greenhouse_take_home_tests WHERE partner_interview_id = ? ORDER BY id DESC LIMIT 1',
  );
  const testsOfCompany = db.prepare<[number], TestRow>('SELECT * FROM greenhouse_take_home_tests WHERE company_id = ? ORDER BY id DESC');
  const delivered = db.prepare<[string, string, number]>(
    "UPDATE greenhouse_take_home_tests SET delivery = 'delivered', partner_interview_id = ?, updated_at = ? WHERE id = ?",
  );
  const failed = db.prepare<[string, string, number]>(
    "UPDATE greenhouse_take_home_tests SET delivery = 'failed', delivery_error = ?, updated_at = ? WHERE id = ?",
  );
  const patched = db.prepare<[string, string, number]>('UPDATE greenhouse_take_home_tests SET patched_at = ?, updated_at = ? WHERE id = ?');
  const statusStored = db.prepare<[string, number | null, string | null, string | null, string, string, number]>(
    `UPDATE greenhouse_take_home_tests SET partner_status = ?, partner_score = ?, partner_profile_url = ?, metadata = ?,
       problem = NULL, checked_at = ?, updated_at = ? WHERE id = ?`,
  );
  const problemStored = db.prepare<[string, string, string, number]>(
    'UPDATE greenhouse_take_home_tests SET problem = ?, checked_at = ?, updated_at = ? WHERE id = ?',
  );

  return {
    company: (id: number): GreenhouseCompany | undefined => company.get(id),
    companies: (): GreenhouseCompany[] => companies.all(),

    partner(companyId: number): GreenhousePartner | undefined {
      const row = partner.get(companyId);
      return row && toPartner(row);
    },
    partners: (): GreenhousePartner[] => partners.all().map(toPartner),
    savePartner(companyId: number, input: { name: string; apiKey: string; urls: PartnerEndpoints }): GreenhousePartner {
      upsertPartner.run({ companyId, name: input.name, apiKey: input.apiKey, ...input.urls, now: now() });
      return toPartner(partner.get(companyId)!);
    },

    jobs(companyId: number): Job[] {
      const stages = stagesOfCompany.all(companyId).map(toStage);
      return jobs.all(companyId).map((j) => ({ ...j, stages: stages.filter((s) => s.jobId === j.id) }));
    },
    stage: (companyId: number, stageId: number): Stage | undefined =>
      stagesOfCompany
        .all(companyId)
        .map(toStage)
        .find((s) => s.id === stageId),
    /** Gives the stage a partner test (or none); false when the stage is not the company's. */
    pickTest: (companyId: number, stageId: number, test: { id: string; name: string } | null): boolean =>
      pickTest.run(test?.id ?? null, test?.name ?? null, stageId, companyId).changes === 1,

    candidate(companyId: number, id: number): GreenhouseCandidate | undefined {
      const row = candidate.get(companyId, id);
      return row && toCandidate(row);
    },
    candidates: (companyId: number): GreenhouseCandidate[] => candidates.all(companyId).map(toCandidate),

    /** A test about to be sent: its id is the one in send_test's `url`. */
    createTest(t: { companyId: number; candidateId: number; stageId: number; partnerTestId: string; partnerTestName: string }): TakeHomeTest {
      const at = now();
      const { id } = insertTest.get(t.companyId, t.candidateId, t.stageId, t.partnerTestId, t.partnerTestName, at, at)!;
      return toTest(test.get(id)!);
    },
    test(id: number): TakeHomeTest | undefined {
      const row = test.get(id);
      return row && toTest(row);
    },
    /** The latest test the partner gave this partner_interview_id (the kit's report id). */
    testByInterviewId(interviewId: string): TakeHomeTest | undefined {
      const row = testByInterviewId.get(interviewId);
      return row && toTest(row);
    },
    testsOfCandidate: (companyId: number, candidateId: number): TakeHomeTest[] => testsOfCandidate.all(companyId, candidateId).map(toTest),
    testsOfCompany: (companyId: number): TakeHomeTest[] => testsOfCompany.all(companyId).map(toTest),
    markDelivered: (id: number, partnerInterviewId: string) => void delivered.run(partnerInterviewId, now(), id),
    markFailed: (id: number, error: string) => void failed.run(error, now(), id),
    markPatched: (id: number) => void patched.run(now(), now(), id),
    storeStatus(id: number, s: PartnerStatus): void {
      const at = now();
      statusStored.run(s.partnerStatus, s.partnerScore, s.partnerProfileUrl, s.metadata && JSON.stringify(s.metadata), at, at, id);
    },
    storeProblem(id: number, problem: string): void {
      const at = now();
      problemStored.run(problem, at, at, id);
    },
  };
}

function toPartner(r: PartnerRow): GreenhousePartner {
  return {
    companyId: r.company_id,
    name: r.name,
    apiKey: r.api_key,
    urls: { listTests: r.list_tests_url, sendTest: r.send_test_url, testStatus: r.test_status_url, responseError: r.response_error_url },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toStage(r: StageRow): Stage {
  return {
    id: r.id,
    jobId: r.job_id,
    name: r.name,
    test: r.partner_test_id === null ? null : { id: r.partner_test_id, name: r.partner_test_name ?? r.partner_test_id },
  };
}

function toCandidate(r: CandidateRow): GreenhouseCandidate {
  return {
    id: r.id,
    companyId: r.company_id,
    jobId: r.job_id,
    firstName: r.first_name,
    lastName: r.last_name,
    preferredName: r.preferred_name,
    email: r.email,
    phoneNumber: r.phone_number,
  };
}

function toTest(r: TestRow): TakeHomeTest {
  return {
    id: r.id,
    companyId: r.company_id,
    candidateId: r.candidate_id,
    stageId: r.stage_id,
    partnerTestId: r.partner_test_id,
    partnerTestName: r.partner_test_name,
    partnerInterviewId: r.partner_interview_id,
    delivery: r.delivery,
    deliveryError: r.delivery_error,
    partnerStatus: r.partner_status,
    partnerScore: r.partner_score,
    partnerProfileUrl: r.partner_profile_url,
    metadata: r.metadata === null ? null : (JSON.parse(r.metadata) as Metadata),
    problem: r.problem,
    patchedAt: r.patched_at,
    checkedAt: r.checked_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
