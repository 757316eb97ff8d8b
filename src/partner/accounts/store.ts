import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import { placeholders, type Sql } from '../../lib/sql.js';
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

/** A test of the kit's `tests` table, as the platforms' test listings show it. */
interface CatalogTest {
  id: number;
  name: string;
}

/** An account as read with one of its tokens. */
type TokenRow = AccountRow & { digest: Buffer; revoked_at: string | null };

/**
 * The largest code point: a prefix followed by it sorts after every text that starts with the
 * prefix (byte by byte, as UTF-8 sorts), so `>= prefix AND < prefix || PAST_ANY_CHARACTER` is a
 * prefix match an index can answer as a range.
 */
export const PAST_ANY_CHARACTER = '\u{10FFFF}';

const SUMMARY = `SELECT a.id, a.name, a.company_id, a.created_at, a.bound_at,
        (SELECT count(*) FROM account_tokens t WHERE t.account_id = a.id AND t.revoked_at IS NULL) AS active_tokens
   FROM accounts a`;

/** Customer accounts and their tokens. */
export function accountStore(sql: Sql, clock: Clock) {
  // Every callback authenticates; tokens already seen skip the parse, hash and query. Any write to
  // accounts or tokens (a bind, a revocation from the CLI) empties the cache: see lib/perf/read-cache.ts.
  const authenticated = readCache<string, Account>(sql, { max: 10_000 });
  // The tests of an account whose catalog is the kit's `tests` table, for the platforms' test
  // listings: a customer the caches hold is listed with no query (a write to tests empties it).
  const catalogs = readCache<number, readonly CatalogTest[]>(sql, { max: 10_000 });
  const testsOf = async (accountId: number): Promise<readonly CatalogTest[]> =>
    Object.freeze(await sql.all<CatalogTest>('SELECT id, name FROM tests WHERE account_id = $1 ORDER BY id', [accountId]));
  /** The row's account when the row is `token`'s: not revoked, and its secret matches the stored digest. */
  const accountIf = (token: string, row: TokenRow | undefined): Account | undefined =>
    row && row.revoked_at === null && tokenMatches(token, row.digest) ? Object.freeze({ id: row.id, name: row.name, companyId: row.company_id }) : undefined;
  const lookupToken = async (token: string): Promise<Account | undefined> => {
    const parsed = parseToken(token);
    if (!parsed) return undefined;
    const row = await sql.get<TokenRow>(
      `SELECT a.id, a.name, a.company_id, t.digest, t.revoked_at
         FROM account_tokens t JOIN accounts a ON a.id = t.account_id
        WHERE t.lookup = $1`,
      [parsed.lookup],
    );
    return accountIf(token, row);
  };

  /**
   * The token's account with its rows of the kit's `tests` table, in one statement: one row per
   * test in id order, or one row with no test when the account has none.
   */
  const lookupWithTests = async (token: string): Promise<{ account: Account; tests: readonly CatalogTest[] } | undefined> => {
    const parsed = parseToken(token);
    if (!parsed) return undefined;
    const rows = await sql.all<TokenRow & { test_id: number | null; test_name: string | null }>(
      `SELECT a.id, a.name, a.company_id, t.digest, t.revoked_at, c.id AS test_id, c.name AS test_name
         FROM account_tokens t JOIN accounts a ON a.id = t.account_id
         LEFT JOIN tests c ON c.account_id = a.id
        WHERE t.lookup = $1
        ORDER BY c.id`,
      [parsed.lookup],
    );
    const account = accountIf(token, rows[0]);
    if (!account) return undefined;
    return { account, tests: Object.freeze(rows[0]!.test_id === null ? [] : rows.map((r) => ({ id: r.test_id!, name: r.test_name! }))) };
  };

  const issueFor = async (tx: Sql, accountId: number): Promise<string> => {
    const issued = issueToken();
    await tx.run('INSERT INTO account_tokens (account_id, lookup, digest, created_at) VALUES ($1, $2, $3, $4)', [
      accountId,
      issued.lookup,
      issued.digest,
      isoAt(clock.now()),
    ]);
    return issued.token;
  };
  const exists = async (accountId: number, tx: Sql = sql) => (await tx.get('SELECT id FROM accounts WHERE id = $1', [accountId])) !== undefined;
  const summaries = async (query: string, params: unknown[] = []) => (await sql.all<SummaryRow>(`${SUMMARY} ${query}`, params)).map(toSummary);

  return {
    /** The account a presented token belongs to; undefined for malformed, unknown or revoked tokens. */
    async authenticate(token: string): Promise<Account | undefined> {
      return authenticated.get(token, lookupToken);
    },

    /**
     * `authenticate`, and the account's tests where they are the kit's `tests` table (a provider's
     * `catalog.table`), in one statement: the token joined to its tests, or the tests alone for a
     * token the read cache holds. A platform's test listing costs one round trip to PostgreSQL, not
     * two (the token, then the catalog). On SQLite, a customer both read caches hold costs none.
     */
    async authenticateWithTests(token: string): Promise<{ account: Account; tests: readonly CatalogTest[] } | undefined> {
      // At most one statement: a token the read cache holds (SQLite) needs only its tests, which
      // cost a third of the joined read there, or nothing when they are cached too; any other is
      // read joined to its tests.
      let joined: Awaited<ReturnType<typeof lookupWithTests>>;
      const account = await authenticated.get(token, async (t) => (joined = await lookupWithTests(t))?.account);
      if (!account) return undefined;
      return joined ?? { account, tests: (await catalogs.get(account.id, testsOf))! };
    },

    /**
     * Binds the account to a platform company on its first validate_token. Returns false when the
     * account is already bound to a different company. Two first calls at once, on any instances:
     * the conditional update lets one bind, and the other reads what it bound.
     */
    async bindCompany(account: Account, companyId: number): Promise<boolean> {
      // Already bound (every validate_token after the first): no write needed.
      if (account.companyId !== null) return account.companyId === companyId;
      const bound = await sql.run('UPDATE accounts SET company_id = $1, bound_at = $2 WHERE id = $3 AND company_id IS NULL', [
        companyId,
        isoAt(clock.now()),
        account.id,
      ]);
      if (bound.changes === 1) return true;
      // Bound by a concurrent call in the meantime.
      const row = await sql.get<{ company_id: number | null }>('SELECT company_id FROM accounts WHERE id = $1', [account.id]);
      return row?.company_id === companyId;
    },

    /**
     * Creates an account and its first token; the token is returned once and never stored. `tx`: a
     * transaction that stores more with the account (its tests).
     */
    async create(name: string, tx?: Sql): Promise<{ account: Account; token: string }> {
      const inside = async (t: Sql) => {
        const { id } = (await t.get<{ id: number }>('INSERT INTO accounts (name, created_at) VALUES ($1, $2) RETURNING id', [name, isoAt(clock.now())]))!;
        return { account: { id, name, companyId: null }, token: await issueFor(t, id) };
      };
      return tx ? inside(tx) : sql.transaction(inside);
    },

    /**
     * A new token for an existing account (rotation); older tokens stay valid until revoked. `tx`: a
     * transaction that stores more with it (its line in the account's history).
     */
    async issueToken(accountId: number, tx: Sql = sql): Promise<string | undefined> {
      return (await exists(accountId, tx)) ? issueFor(tx, accountId) : undefined;
    },

    /** Revokes every active token of the account; returns how many, or undefined for an unknown account. */
    async revokeTokens(accountId: number, tx: Sql = sql): Promise<number | undefined> {
      if (!(await exists(accountId, tx))) return undefined;
      const revoked = await tx.run('UPDATE account_tokens SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL', [isoAt(clock.now()), accountId]);
      return revoked.changes;
    },

    /**
     * Revokes one token of the account, named by its key id (`activeTokens`): true when it was
     * active, false when the account has no such active token, undefined for an unknown account.
     */
    async revokeToken(accountId: number, keyId: string, tx: Sql = sql): Promise<boolean | undefined> {
      if (!(await exists(accountId, tx))) return undefined;
      if (!keyId.startsWith(TOKEN_PREFIX)) return false;
      const revoked = await tx.run('UPDATE account_tokens SET revoked_at = $1 WHERE account_id = $2 AND lookup = $3 AND revoked_at IS NULL', [
        isoAt(clock.now()),
        accountId,
        keyId.slice(TOKEN_PREFIX.length),
      ]);
      return revoked.changes === 1;
    },

    /**
     * The account's tokens that still work, oldest first, by their key id: the token's prefix and
     * lookup part (`ptk_3F9aK2mQx7Lw`), which names it without being a secret. The token itself is
     * never stored.
     */
    async activeTokens(accountId: number): Promise<{ accountId: number; keyId: string; createdAt: string }[]> {
      const rows = await sql.all<{ account_id: number; lookup: string; created_at: string }>(
        'SELECT account_id, lookup, created_at FROM account_tokens WHERE account_id = $1 AND revoked_at IS NULL ORDER BY id',
        [accountId],
      );
      return rows.map((r) => ({ accountId: r.account_id, keyId: `${TOKEN_PREFIX}${r.lookup}`, createdAt: r.created_at }));
    },

    /** The tokens that still work of several accounts at once, each account's oldest first (the dashboard's list of accounts). */
    async activeTokensOf(accountIds: readonly number[]): Promise<{ accountId: number; keyId: string; createdAt: string }[]> {
      if (accountIds.length === 0) return [];
      const rows = await sql.all<{ account_id: number; lookup: string; created_at: string }>(
        `SELECT account_id, lookup, created_at FROM account_tokens WHERE account_id IN (${placeholders(accountIds.length)}) AND revoked_at IS NULL ORDER BY account_id, id`,
        accountIds,
      );
      return rows.map((r) => ({ accountId: r.account_id, keyId: `${TOKEN_PREFIX}${r.lookup}`, createdAt: r.created_at }));
    },

    /** Every account, oldest first (the accounts CLI). */
    list: (): Promise<AccountSummary[]> => summaries('ORDER BY a.id'),
    /** The `limit` newest accounts, newest first: what a page can show when there are thousands. */
    newest: (limit: number): Promise<AccountSummary[]> => summaries('ORDER BY a.id DESC LIMIT $1', [limit]),
    /**
     * A page of accounts, newest first: the `limit` created before account `before` (the last of
     * the page before), or the newest. A keyset, not an offset: a page costs the same however far
     * down the list it is, and accounts created meanwhile move no row to another page.
     */
    page: (before: number | undefined, limit: number): Promise<AccountSummary[]> =>
      before === undefined ? summaries('ORDER BY a.id DESC LIMIT $1', [limit]) : summaries('WHERE a.id < $1 ORDER BY a.id DESC LIMIT $2', [before, limit]),
    /**
     * Accounts whose name starts with `prefix`, in any case, by name: through the index on the
     * lowercased name (accounts_by_name), compared byte by byte on PostgreSQL (COLLATE "C"), where
     * a range from the prefix then holds exactly the names that start with it.
     */
    named: (prefix: string, limit: number): Promise<AccountSummary[]> => {
      const name = sql.dialect === 'postgres' ? 'lower(a.name) COLLATE "C"' : 'lower(a.name)';
      return summaries(`WHERE ${name} >= lower($1) AND ${name} < lower($1) || $2 ORDER BY ${name}, a.id LIMIT $3`, [prefix, PAST_ANY_CHARACTER, limit]);
    },
    count: async (): Promise<number> => (await sql.get<{ n: number }>('SELECT count(*) AS n FROM accounts'))!.n,
    async find(id: number): Promise<AccountSummary | undefined> {
      return (await summaries('WHERE a.id = $1', [id]))[0];
    },
    /** The accounts of each platform company that more than one account is connected to, by company. */
    sharingACompany: (): Promise<AccountSummary[]> =>
      summaries(
        `WHERE a.company_id IN (SELECT company_id FROM accounts WHERE company_id IS NOT NULL GROUP BY company_id HAVING count(*) > 1)
         ORDER BY a.company_id, a.id`,
      ),
    /** Names by id, for the ids given that exist. */
    async namesOf(ids: readonly number[]): Promise<Map<number, string>> {
      if (ids.length === 0) return new Map();
      const rows = await sql.all<{ id: number; name: string }>(`SELECT id, name FROM accounts WHERE id IN (${placeholders(ids.length)})`, ids);
      return new Map(rows.map((r) => [r.id, r.name]));
    },
  };
}
