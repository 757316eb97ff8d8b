import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';
import { notFound } from '../../lib/errors.js';

export interface Integration {
  companyId: number;
  codename: string;
  /** The customer token the partner issued; the platform presents it on every callback. */
  token: string;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  company_id: number;
  codename: string;
  token: string;
  created_at: string;
  updated_at: string;
}

export type IntegrationStore = ReturnType<typeof integrationStore>;

export function integrationStore(db: Db, clock: Clock) {
  const one = db.prepare<[number, string], Row>('SELECT * FROM integrations WHERE company_id = ? AND codename = ?');
  const ofCompany = db.prepare<[number], Row>('SELECT * FROM integrations WHERE company_id = ? ORDER BY codename');
  const partnerExists = db.prepare<[string], { codename: string }>('SELECT codename FROM partners WHERE codename = ?');
  const upsert = db.prepare<[number, string, string, string, string]>(
    `INSERT INTO integrations (company_id, codename, token, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (company_id, codename) DO UPDATE SET token = excluded.token, updated_at = excluded.updated_at`,
  );
  const remove = db.prepare<[number, string]>('DELETE FROM integrations WHERE company_id = ? AND codename = ?');

  const find = (companyId: number, codename: string): Integration | undefined => {
    const row = one.get(companyId, codename);
    return row && toIntegration(row);
  };

  return {
    find,
    ofCompany: (companyId: number): Integration[] => ofCompany.all(companyId).map(toIntegration),

    /** Stores (or replaces the token of) the integration after validate_token succeeded. */
    save(companyId: number, codename: string, token: string): { integration: Integration; created: boolean } {
      return db.transaction(() => {
        // The partner may have been deleted while its validate_token was answering.
        if (!partnerExists.get(codename)) throw notFound('Unknown partner');
        const created = !one.get(companyId, codename);
        const now = isoAt(clock.now());
        upsert.run(companyId, codename, token, now, now);
        return { integration: find(companyId, codename)!, created };
      })();
    },

    remove: (companyId: number, codename: string): boolean => remove.run(companyId, codename).changes === 1,
  };
}

/** What the platform shows of an integration: never the token, only its last characters. */
export function toJson(i: Integration) {
  return {
    company_id: i.companyId,
    codename: i.codename,
    // Short tokens would be given away by their last characters.
    token_hint: i.token.length >= 12 ? `…${i.token.slice(-4)}` : '…',
    created_at: i.createdAt,
    updated_at: i.updatedAt,
  };
}

function toIntegration(r: Row): Integration {
  return { companyId: r.company_id, codename: r.codename, token: r.token, createdAt: r.created_at, updatedAt: r.updated_at };
}
