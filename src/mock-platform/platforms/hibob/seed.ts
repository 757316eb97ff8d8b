import type { Clock } from '../../../lib/clock.js';
import { isoAt } from '../../../lib/clock.js';
import type { Db } from '../../../lib/db.js';

/**
 * The sandbox's companies whose HR system is Bob (Bob Hiring), by Bob's own company ids: Vandelay
 * Industries, whose recruiter orders assessments (what scripts act for), and Kramerica, a second
 * company, so that one company's token can be tried on the other's orders. Ids are fixed so the
 * sandbox, the docs, `npm run dev` and the tests can name them. Neither has installed the vendor's
 * app here: the marketplace page (or `npm run dev`, the harness) does it.
 */
export const BOB_COMPANIES = [
  { id: '640213', name: 'Vandelay Industries' },
  { id: '731524', name: 'Kramerica' },
] as const;
export const BOB_COMPANY = BOB_COMPANIES[0];

/**
 * The vendor's app as the sandbox's Developer Portal issued it: its OAuth client and the secret
 * Bob signs webhooks with. The sandbox's own, fixed — not anyone's secret — so that `npm run dev`
 * and the harness can give the partner the same (`HIBOB_CLIENT_ID`, `HIBOB_CLIENT_SECRET`,
 * `HIBOB_WEBHOOK_SECRET`) whatever database the mock keeps.
 */
export const BOB_APP = {
  clientId: 'bob-sandbox-app',
  clientSecret: 'bob-sandbox-client-secret-not-for-production',
  webhookSecret: 'bob-sandbox-webhook-secret-not-for-production',
} as const;

/** Who orders assessments: the first of each company is its recruiter. */
export const BOB_EMPLOYEES = [
  { id: '3332883884', companyId: '640213', firstName: 'Elaine', lastName: 'Benes', email: 'elaine@vandelay.example' },
  { id: '4443994995', companyId: '731524', firstName: 'Cosmo', lastName: 'Kramer', email: 'cosmo@kramerica.example' },
] as const;

export const BOB_JOB_OPENINGS = [
  { id: '58001', companyId: '640213', title: 'Backend Engineer' },
  { id: '58002', companyId: '640213', title: 'Data Analyst' },
  { id: '59001', companyId: '731524', title: 'Product Designer' },
] as const;

export const BOB_CANDIDATES = [
  { id: 1, companyId: '640213', bobId: '7100001', jobOpeningId: '58001', firstName: 'Barbara', lastName: 'Liskov', email: 'barbara@example.com' },
  { id: 2, companyId: '640213', bobId: '7100002', jobOpeningId: '58002', firstName: 'Edsger', lastName: 'Dijkstra', email: 'edsger@example.com' },
  { id: 3, companyId: '731524', bobId: '7200001', jobOpeningId: '59001', firstName: 'Radia', lastName: 'Perlman', email: 'radia@example.com' },
] as const;

/** Inserts the app, the Bob companies, their employees, job openings and candidates into a mock database that has none. */
export function seedHibob(db: Db, clock: Clock): void {
  const { n } = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM hibob_companies').get()!;
  if (n > 0) return;
  const now = isoAt(clock.now());
  const app = db.prepare('INSERT OR IGNORE INTO hibob_app (id, client_id, client_secret, webhook_secret, updated_at) VALUES (1, ?, ?, ?, ?)');
  const company = db.prepare('INSERT INTO hibob_companies (id, name, position, created_at) VALUES (?, ?, ?, ?)');
  const employee = db.prepare('INSERT INTO hibob_employees (id, company_id, first_name, last_name, email) VALUES (?, ?, ?, ?, ?)');
  const job = db.prepare('INSERT INTO hibob_job_openings (id, company_id, title) VALUES (?, ?, ?)');
  const candidate = db.prepare(
    'INSERT INTO hibob_candidates (id, company_id, bob_id, job_opening_id, first_name, last_name, email) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    app.run(BOB_APP.clientId, BOB_APP.clientSecret, BOB_APP.webhookSecret, now);
    BOB_COMPANIES.forEach((c, i) => company.run(c.id, c.name, i + 1, now));
    for (const e of BOB_EMPLOYEES) employee.run(e.id, e.companyId, e.firstName, e.lastName, e.email);
    for (const j of BOB_JOB_OPENINGS) job.run(j.id, j.companyId, j.title);
    for (const c of BOB_CANDIDATES) candidate.run(c.id, c.companyId, c.bobId, c.jobOpeningId, c.firstName, c.lastName, c.email);
  })();
}
