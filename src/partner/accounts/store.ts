import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';
import { readCache } from '../../lib/perf/read-cache.js';
import { TOKEN_PREFIX, issueToken, parseToken, tokenMatches } from './tokens.js';

export interface Account {
  id: number;
  name: string;
  /** The platform company this account integrated with, or null until validate_token. */
  companyId: number | null;
}

export interface AccountSummary extends Account {
  createdAt: string;
  boundAt: string | null;
  activeTokens: number;
}

interface AccountRow {
  id: number;
  name: string;
  company_id: number | null;
}

type SummaryRow = AccountRow & { created_at: string; bound_at: string | null; active_tokens: number };

function toSummary(r: SummaryRow): AccountSummary {
  return { id: r.id, name: r.name, companyId: r.company_id, createdAt: r.created_at, boundAt: r.bound_at, activeTokens: r.active_tokens };
}

export type AccountStore = ReturnType<typeof accountStore>;

/** Customer accounts and their tokens. */
export function accountStore(db: Db, clock: Clock) {
  const tokenByLookup = db.prepare<[string], AccountRow & { digest: Buffer; revoked_at: string | null }>(
    `SELECT a.id, a.name, a.company_id, t.digest, t.revoked_at
       FROM account_tokens t JOIN accounts a ON a.id = t.account_id
      WHERE t.lookup = ?`,
  );
  const bind = db.prepare<[number, string, number]>(
    'UPDATE accounts SET company_id = ?, bound_at = ? WHERE id = ? AND company_id IS NULL',
  );
  const companyOf = db.prepare<[number], { company_id: number | null }>('SELECT company_id FROM accounts WHERE id = ?');
  const insertAccount = db.prepare<[string, string], { id: number }>(
    'INSERT INTO accounts (name, created_at) VALUES (?, ?) RETURNING id',
  );
  const insertToken = db.prepare<[number, string, Buffer, string]>(
    'INSERT INTO account_tokens (account_id, lookup, digest, created_at) VALUES (?, ?, ?, ?)',
  );
  const revokeAll = db.prepare<[string, number]>(
    'UPDATE account_tokens SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL',
  );
  const summaries = <P extends unknown[]>(where: string) =>
    db.prepare<P, SummaryRow>(
      `SELECT a.id, a.name, a.company_id, a.created_at, a.bound_at,
              (SELECT count(*) FROM account_tokens t WHERE t.account_id = a.id AND t.revoked_at IS NULL) AS active_tokens
         FROM accounts a ${where}`,
    );
  const listAll = summaries<[]>('ORDER BY a.id');
  const newest = summaries<[number]>('ORDER BY a.id DESC LIMIT ?');
  const summaryOf = summaries<[number]>('WHERE a.id = ?');
  // Each account of a platform company that several accounts are connected to.
  const sharing = summaries<[]>(
    `WHERE a.company_id IN (SELECT company_id FROM accounts WHERE company_id IS NOT NULL GROUP BY company_id HAVING count(*) > 1)
     ORDER BY a.company_id, a.id`,
  );
  const countAll = db.prepare<[], number>('SELECT count(*) FROM accounts').pluck();
  const namesOf = db.prepare<[string], { id: number; name: string }>('SELECT id, name FROM accounts WHERE id IN (SELECT value FROM json_each(?))');
  const activeTokenRows = db.prepare<[number], { account_id: number; lookup: string; created_at: string }>(
    'SELECT account_id, lookup, created_at FROM account_tokens WHERE account_id = ? AND revoked_at IS NULL ORDER BY id',
  );
  const exists = db.prepare<[number], { id: number }>('SELECT id FROM accounts WHERE id = ?');

  // Every callback authenticates; tokens already seen skip the parse, hash and query. Any write to
  // accounts or tokens (a bind, a revocation from the CLI) empties the cache: see lib/perf/read-cache.ts.
  const authenticated = readCache<string, Account>(db, { max: 10_000 });
  const lookupToken = (token: string): Account | undefined => {
    const parsed = parseToken(token);
    if (!parsed) return undefined;
    const row = tokenByLookup.get(parsed.lookup);
    if (!row || row.revoked_at !== null || !tokenMatches(token, row.digest)) return undefined;
    return Object.freeze({ id: row.id, name: row.name, companyId: row.company_id });
  };

  const issueFor = (accountId: number): string => {
    const issued = issueToken();
    insertToken.run(accountId, issued.lookup, issued.digest, isoAt(clock.now()));
    return issued.token;
  };

  return {
    /** The account a presented token belongs to; undefined for malformed, unknown or revoked tokens. */
    authenticate(token: string): Account | undefined {
      return authenticated.get(token, lookupToken);
    },

    /**
     * Binds the account to a platform company on its first validate_token. Returns false when the
     * account is already bound to a different company.
     */
    bindCompany(account: Account, companyId: number): boolean {
      // Already bound (every validate_token after the first): no write needed.
      if (account.companyId !== null) return account.companyId === companyId;
      if (bind.run(companyId, isoAt(clock.now()), account.id).changes === 1) return true;
      // Bound by a concurrent call in the meantime.
      return companyOf.get(account.id)?.company_id === companyId;
    },

    /** Creates an account and its first token; the token is returned once and never stored. */
    create(name: string): { account: Account; token: string } {
      return db.transaction(() => {
        const { id } = insertAccount.get(name, isoAt(clock.now()))!;
        return { account: { id, name, companyId: null }, token: issueFor(id) };
      })();
    },

    /** A new token for an existing account (rotation); older tokens stay valid until revoked. */
    issueToken(accountId: number): string | undefined {
      return exists.get(accountId) ? issueFor(accountId) : undefined;
    },

    /** Revokes every active token of the account; returns how many, or undefined for an unknown account. */
    revokeTokens(accountId: number): number | undefined {
      return exists.get(accountId) ? revokeAll.run(isoAt(clock.now()), accountId).changes : undefined;
    },

    /**
     * The account's tokens that still work, oldest first, by their key id: the token's prefix and
     * lookup part (`ptk_3F9aK2mQx7Lw`), which names it without being a secret. The token itself is
     * never stored.
     */
    activeTokens(accountId: number): { accountId: number; keyId: string; createdAt: string }[] {
      return activeTokenRows.all(accountId).map((r) => ({ accountId: r.account_id, keyId: `${TOKEN_PREFIX}${r.lookup}`, createdAt: r.created_at }));
    },

    /** Every account, oldest first (the accounts CLI). */
    list: (): AccountSummary[] => listAll.all().map(toSummary),
    /** The `limit` newest accounts, newest first: what a page can show when there are thousands. */
    newest: (limit: number): AccountSummary[] => newest.all(limit).map(toSummary),
    count: (): number => countAll.get()!,
    find(id: number): AccountSummary | undefined {
      const row = summaryOf.get(id);
      return row && toSummary(row);
    },
    /** The accounts of each platform company that more than one account is connected to, by company. */
    sharingACompany: (): AccountSummary[] => sharing.all().map(toSummary),
    /** Names by id, for the ids given that exist. */
    namesOf: (ids: readonly number[]): Map<number, string> => new Map(namesOf.all(JSON.stringify(ids)).map((r) => [r.id, r.name])),
  };
}
