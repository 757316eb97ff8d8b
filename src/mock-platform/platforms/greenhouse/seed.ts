import type { Clock } from '../../../lib/clock.js';
import { isoAt } from '../../../lib/clock.js';
import type { Db } from '../../../lib/db.js';

/**
 * The sandbox's company whose ATS is Greenhouse, beside the other platform's companies: a job with
 * its interview stages, and candidates who applied to it. Ids are fixed so the sandbox, the docs,
 * `npm run dev` and the tests can name them. The partner is not configured here: the sandbox's
 * page (or `npm run dev`, with the demo account's key) does it.
 */
export const GREENHOUSE_COMPANY = { id: 1, name: 'Initech', sentBy: 'morgan@initech.example' } as const;

export const GREENHOUSE_JOB = { id: 1, companyId: 1, name: 'Backend Engineer' } as const;

export const GREENHOUSE_STAGES = [
  { id: 1, jobId: 1, position: 1, name: 'Application Review' },
  { id: 2, jobId: 1, position: 2, name: 'Take-Home Test' },
  { id: 3, jobId: 1, position: 3, name: 'Onsite Interview' },
] as const;

/** The stage a take-home test is sent at: where a script's send puts the test it sends. */
export const TAKE_HOME_STAGE = GREENHOUSE_STAGES[1];

/** One with every optional field given, one with none (null, as Greenhouse sends "no value"). */
export const GREENHOUSE_CANDIDATES = [
  {
    id: 1,
    companyId: 1,
    jobId: 1,
    firstName: 'Katherine',
    lastName: 'Johnson',
    preferredName: 'Kathy',
    email: 'katherine@example.com',
    phoneNumber: '+1 757 555 0100',
  },
  { id: 2, companyId: 1, jobId: 1, firstName: 'Margaret', lastName: 'Hamilton', preferredName: null, email: 'margaret@example.com', phoneNumber: null },
] as const;

/** Inserts the Greenhouse company, its job, stages and candidates into a mock database that has none. */
export function seedGreenhouse(db: Db, clock: Clock): void {
  const { n } = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM greenhouse_companies').get()!;
  if (n > 0) return;
  const now = isoAt(clock.now());
  const company = db.prepare('INSERT INTO greenhouse_companies (id, name, sent_by, created_at) VALUES (?, ?, ?, ?)');
  const job = db.prepare('INSERT INTO greenhouse_jobs (id, company_id, name) VALUES (?, ?, ?)');
  const stage = db.prepare('INSERT INTO greenhouse_stages (id, job_id, position, name) VALUES (?, ?, ?, ?)');
  const candidate = db.prepare(
    `INSERT INTO greenhouse_candidates (id, company_id, job_id, first_name, last_name, preferred_name, email, phone_number, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    company.run(GREENHOUSE_COMPANY.id, GREENHOUSE_COMPANY.name, GREENHOUSE_COMPANY.sentBy, now);
    job.run(GREENHOUSE_JOB.id, GREENHOUSE_JOB.companyId, GREENHOUSE_JOB.name);
    for (const s of GREENHOUSE_STAGES) stage.run(s.id, s.jobId, s.position, s.name);
    for (const c of GREENHOUSE_CANDIDATES) {
      candidate.run(c.id, c.companyId, c.jobId, c.firstName, c.lastName, c.preferredName, c.email, c.phoneNumber, now);
    }
  })();
}
