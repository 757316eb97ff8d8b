import { randomBytes } from 'node:crypto';
import type { Clock } from '../../../lib/clock.js';
import { isoAt } from '../../../lib/clock.js';
import type { Db } from '../../../lib/db.js';

/**
 * The sandbox's company whose ATS is Ashby: two jobs with their interview stages, and candidates
 * with applications to them. Ids are fixed so the sandbox, the docs, `npm run dev` and the tests
 * can name them; the Ashby ids (what `assessment.start` carries) are UUIDs, as Ashby's are. The
 * partner is not connected here: the sandbox's page (or `npm run dev`, with the demo token) does
 * it. The company's Ashby API key is issued here, at random: the partner must be given it.
 */
export const ASHBY_COMPANY = { id: 1, name: 'Hooli' } as const;

/** One job with a requisition id and a hiring team (assessment.start's optional fields), one with neither. */
export const ASHBY_JOBS = [
  {
    id: 1,
    ashbyId: '3f9c2d1e-7a4b-4c5d-8e6f-0a1b2c3d4e5f',
    name: 'Backend Engineer',
    reqId: 'ENG-42',
    hiringTeam: [
      { userId: '9b8a7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', firstName: 'Gavin', lastName: 'Belson', email: 'gavin@hooli.example', role: 'Hiring Manager' },
    ],
  },
  { id: 2, ashbyId: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a', name: 'Data Analyst', reqId: null, hiringTeam: [] },
] as const;

/** Each job's stages; the second of each is where an assessment is given. */
export const ASHBY_STAGES = [
  { id: 1, jobId: 1, position: 1, name: 'Application Review' },
  { id: 2, jobId: 1, position: 2, name: 'Technical Assessment' },
  { id: 3, jobId: 1, position: 3, name: 'Onsite Interview' },
  { id: 4, jobId: 2, position: 1, name: 'Application Review' },
  { id: 5, jobId: 2, position: 2, name: 'Technical Assessment' },
  { id: 6, jobId: 2, position: 3, name: 'Final Interview' },
] as const;

/** The stage's name where a script's start puts the assessment it starts (each job has one). */
export const ASSESSMENT_STAGE = 'Technical Assessment';

/** Grace has two applications (one a Lead); Cher is known by one name (`last_name` empty, as Ashby keeps it). */
export const ASHBY_CANDIDATES = [
  { id: 1, ashbyId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' },
  { id: 2, ashbyId: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e', firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com' },
  { id: 3, ashbyId: 'c3d4e5f6-a7b8-4c9d-8e1f-2a3b4c5d6e7f', firstName: 'Cher', lastName: '', email: 'cher@example.com' },
] as const;

export const ASHBY_APPLICATIONS = [
  { id: 1, candidateId: 1, jobId: 1, ashbyId: 'd4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f70', status: 'Active' },
  { id: 2, candidateId: 1, jobId: 2, ashbyId: 'e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7081', status: 'Lead' },
  { id: 3, candidateId: 2, jobId: 1, ashbyId: 'f6a7b8c9-d0e1-4f2a-9b3c-4d5e6f708192', status: 'Active' },
  { id: 4, candidateId: 3, jobId: 2, ashbyId: '0a7b8c9d-e1f2-4a3b-8c4d-5e6f708192a3', status: 'Active' },
] as const;

/** A new Ashby API key: random, recognisable as the sandbox's. */
export const newApiKey = () => `ashby_sandbox_${randomBytes(18).toString('base64url')}`;

/** Inserts the Ashby company, its jobs, stages, candidates and applications into a mock database that has none. */
export function seedAshby(db: Db, clock: Clock): void {
  const { n } = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM ashby_companies').get()!;
  if (n > 0) return;
  const now = isoAt(clock.now());
  const company = db.prepare('INSERT INTO ashby_companies (id, name, api_key, api_key_issued_at, created_at) VALUES (?, ?, ?, ?, ?)');
  const job = db.prepare('INSERT INTO ashby_jobs (id, company_id, ashby_id, name, req_id, hiring_team) VALUES (?, ?, ?, ?, ?, ?)');
  const stage = db.prepare('INSERT INTO ashby_stages (id, job_id, position, name) VALUES (?, ?, ?, ?)');
  const candidate = db.prepare('INSERT INTO ashby_candidates (id, company_id, ashby_id, first_name, last_name, email, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const application = db.prepare('INSERT INTO ashby_applications (id, candidate_id, job_id, ashby_id, status) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    company.run(ASHBY_COMPANY.id, ASHBY_COMPANY.name, newApiKey(), now, now);
    for (const j of ASHBY_JOBS) job.run(j.id, ASHBY_COMPANY.id, j.ashbyId, j.name, j.reqId, JSON.stringify(j.hiringTeam));
    for (const s of ASHBY_STAGES) stage.run(s.id, s.jobId, s.position, s.name);
    for (const c of ASHBY_CANDIDATES) candidate.run(c.id, ASHBY_COMPANY.id, c.ashbyId, c.firstName, c.lastName, c.email, now);
    for (const a of ASHBY_APPLICATIONS) application.run(a.id, a.candidateId, a.jobId, a.ashbyId, a.status);
  })();
}
