import type { Clock } from '../lib/clock.js';
import { isoAt } from '../lib/clock.js';
import type { Db } from '../lib/db.js';
import { apiTokenStore } from './api-tokens/store.js';

/**
 * The sandbox's starting world: two companies (one on a trial plan, for the lower webhook rate
 * limit), a member of each who may manage webhooks and one who may not, and a few candidates.
 * Ids are fixed so the sandbox, the README and the tests can name them.
 */
export const SEED_COMPANIES = [
  { id: 1, name: 'Acme Corp', subdomain: 'acme', plan: 'standard' },
  { id: 2, name: 'Globex', subdomain: 'globex', plan: 'trial' },
] as const;

export const SEED_USERS = [
  { id: 1, companyId: 1, name: 'Riley Recruiter', email: 'riley@acme.example', canManageWebhooks: true },
  { id: 2, companyId: 1, name: 'Hana Hiring', email: 'hana@acme.example', canManageWebhooks: false },
  { id: 3, companyId: 2, name: 'Gus Globex', email: 'gus@globex.example', canManageWebhooks: true },
] as const;

export const SEED_CANDIDATES = [
  { id: 17, companyId: 1, name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0000' },
  { id: 18, companyId: 1, name: 'Alan Turing', email: 'alan@example.com', phone: null },
  { id: 19, companyId: 1, name: 'Grace Hopper', email: 'grace@example.com', phone: '+1 202 555 0143' },
  { id: 31, companyId: 2, name: 'Edsger Dijkstra', email: 'edsger@example.com', phone: null },
] as const;

/** Inserts the seed world into an empty mock database (a no-op when companies exist). */
export function seedCompanies(db: Db, clock: Clock): void {
  const { n } = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM companies').get()!;
  if (n > 0) return;
  const now = isoAt(clock.now());
  const company = db.prepare('INSERT INTO companies (id, name, subdomain, plan, created_at) VALUES (?, ?, ?, ?, ?)');
  const user = db.prepare(
    'INSERT INTO users (id, company_id, name, email, can_manage_webhooks, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const candidate = db.prepare(
    `INSERT INTO candidates (id, company_id, name, email, phone, source, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'manual', ?, ?)`,
  );
  db.transaction(() => {
    for (const c of SEED_COMPANIES) company.run(c.id, c.name, c.subdomain, c.plan, now);
    for (const u of SEED_USERS) user.run(u.id, u.companyId, u.name, u.email, u.canManageWebhooks ? 1 : 0, now);
    for (const c of SEED_CANDIDATES) candidate.run(c.id, c.companyId, c.name, c.email, c.phone, now, now);
  })();
}

/**
 * Known personal API tokens of the sandbox, one per seeded company, so the README and
 * `npm run register` work without a setup step. They are deliberately guessable: the mock is a
 * local sandbox. Create more with `POST /_mock/api-tokens` or on the sandbox's Admin page.
 */
export const SEED_API_TOKENS = [
  { token: 'mock_api_acme', companyId: 1, userId: 1, label: 'Sandbox token of Riley Recruiter' },
  { token: 'mock_api_globex', companyId: 2, userId: 3, label: 'Sandbox token of Gus Globex' },
] as const;

/** Stores the sandbox API tokens (their digests) unless they exist; run after `seedCompanies`. */
export function seedApiTokens(db: Db, clock: Clock): void {
  const tokens = apiTokenStore(db, clock);
  db.transaction(() => {
    for (const { token, ...owner } of SEED_API_TOKENS) tokens.add(token, owner);
  })();
}
