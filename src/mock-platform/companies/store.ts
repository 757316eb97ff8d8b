import type { Db } from '../../lib/db.js';

export interface Company {
  id: number;
  name: string;
  subdomain: string;
  plan: 'trial' | 'standard';
}

export interface User {
  id: number;
  companyId: number;
  name: string;
  email: string;
}

export interface Candidate {
  id: number;
  companyId: number;
  name: string;
  email: string;
  phone: string | null;
  source: string;
  photoThumbUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

interface CandidateRow {
  id: number;
  company_id: number;
  name: string;
  email: string;
  phone: string | null;
  source: string;
  photo_thumb_url: string | null;
  created_at: string;
  updated_at: string;
}

export type CompanyStore = ReturnType<typeof companyStore>;

/**
 * Read access to the platform's companies, their members and candidates (deleted ones excluded).
 * Candidates are added, moved and deleted through `pipeline.ts`, which emits their webhook events.
 */
export function companyStore(db: Db) {
  const one = db.prepare<[number], Company>('SELECT id, name, subdomain, plan FROM companies WHERE id = ?');
  const all = db.prepare<[], Company>('SELECT id, name, subdomain, plan FROM companies ORDER BY id');
  const usersOf = db.prepare<[number], User>(
    'SELECT id, company_id AS companyId, name, email FROM users WHERE company_id = ? ORDER BY id',
  );
  const candidateOf = db.prepare<[number, number], CandidateRow>(
    'SELECT * FROM candidates WHERE company_id = ? AND id = ? AND deleted_at IS NULL',
  );
  const candidatesOf = db.prepare<[number], CandidateRow>(
    'SELECT * FROM candidates WHERE company_id = ? AND deleted_at IS NULL ORDER BY id',
  );

  return {
    find: (id: number): Company | undefined => one.get(id),
    list: (): Company[] => all.all(),
    users: (companyId: number): User[] => usersOf.all(companyId),
    user: (companyId: number, userId: number): User | undefined => usersOf.all(companyId).find((u) => u.id === userId),
    candidate: (companyId: number, id: number): Candidate | undefined => {
      const row = candidateOf.get(companyId, id);
      return row && toCandidate(row);
    },
    candidates: (companyId: number): Candidate[] => candidatesOf.all(companyId).map(toCandidate),
  };
}

function toCandidate(r: CandidateRow): Candidate {
  return {
    id: r.id,
    companyId: r.company_id,
    name: r.name,
    email: r.email,
    phone: r.phone,
    source: r.source,
    photoThumbUrl: r.photo_thumb_url,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
