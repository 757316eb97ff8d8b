import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import { sealer, type Sealer } from '../../lib/sealer.js';
import type { Sql } from '../../lib/sql.js';

/**
 * A customer account's connection to a platform: the platform's company id (text: every platform
 * names its companies its own way), and the customer's credential for it, when the platform needs
 * one to be told of an invitation's updates (Ashby's API key, Bob's OAuth tokens).
 */
export interface Connection {
  accountId: number;
  platform: string;
  companyId: string | null;
  /** A credential is stored (sealed); never the credential itself. */
  hasCredential: boolean;
  /** Its last four characters, for the dashboard ("••••wxyz"); null when none is stored or it is short. */
  credentialHint: string | null;
  credentialSetAt: string | null;
  updatedAt: string;
}

interface ConnectionRow {
  account_id: number;
  platform: string;
  company_id: string | null;
  credential: string | null;
  credential_hint: string | null;
  credential_set_at: string | null;
  updated_at: string;
}

/** The largest credential kept: an OAuth token pair as JSON fits with room to spare. */
export const CREDENTIAL_MAX_LENGTH = 8192;

const toConnection = (r: ConnectionRow): Connection => ({
  accountId: r.account_id,
  platform: r.platform,
  companyId: r.company_id,
  hasCredential: r.credential !== null,
  credentialHint: r.credential_hint,
  credentialSetAt: r.credential_set_at,
  updatedAt: r.updated_at,
});

/**
 * A stored credential as anyone may see it: `••••wxyz` (its last four characters, for one of 12 or
 * more), `set` (a shorter one: four of its characters would say too much), or null when none is
 * stored. Never the credential: the dashboard and `npm run accounts` show this.
 */
export function maskedCredential(connection: Pick<Connection, 'hasCredential' | 'credentialHint'>): string | null {
  if (!connection.hasCredential) return null;
  return connection.credentialHint === null ? 'set' : `••••${connection.credentialHint}`;
}

/** What a sealed credential is bound to: one account on one platform. */
const boundTo = (accountId: number, platform: string) => `connection:${accountId}:${platform}`;

export type ConnectionStore = ReturnType<typeof connectionStore>;

/**
 * The `connections` table: one row per account and platform. Credentials are sealed (lib/sealer.ts)
 * under CANDIDATE_LINK_SECRET, bound to their account and platform, and never returned by a
 * listing; only `credential` opens one, for the platform's own requests.
 */
export function connectionStore(sql: Sql, clock: Clock, linkSecret: string) {
  const sealed: Sealer = sealer(linkSecret, 'partner-integration-kit/connection-credential/v1', {
    what: "the customer's stored credential",
    since: 'it was set (set it again: npm run accounts -- credential set)',
  });
  const now = () => isoAt(clock.now());
  const upsert = `INSERT INTO connections (account_id, platform, company_id, credential, credential_hint, credential_set_at, created_at, updated_at)
                  VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
                  ON CONFLICT (account_id, platform) DO UPDATE SET `;

  return {
    async get(accountId: number, platform: string): Promise<Connection | undefined> {
      const row = await sql.get<ConnectionRow>('SELECT * FROM connections WHERE account_id = $1 AND platform = $2', [accountId, platform]);
      return row && toConnection(row);
    },

    /** An account's connections, by platform name. */
    async ofAccount(accountId: number): Promise<Connection[]> {
      return (await sql.all<ConnectionRow>('SELECT * FROM connections WHERE account_id = $1 ORDER BY platform', [accountId])).map(toConnection);
    },

    /** Every account's connections, by account then platform (`npm run accounts -- list`). */
    async all(): Promise<Connection[]> {
      return (await sql.all<ConnectionRow>('SELECT * FROM connections ORDER BY account_id, platform')).map(toConnection);
    },

    /** The connections of several accounts at once (the dashboard's list). */
    async ofAccounts(accountIds: readonly number[]): Promise<Connection[]> {
      if (accountIds.length === 0) return [];
      const list = accountIds.map((_, i) => `$${i + 1}`).join(', ');
      return (await sql.all<ConnectionRow>(`SELECT * FROM connections WHERE account_id IN (${list}) ORDER BY account_id, platform`, [...accountIds])).map(toConnection);
    },

    /** The account connected to a platform's company (Bob's install names the company, not the account). */
    async byCompany(platform: string, companyId: string): Promise<Connection | undefined> {
      const row = await sql.get<ConnectionRow>('SELECT * FROM connections WHERE platform = $1 AND company_id = $2', [platform, companyId]);
      return row && toConnection(row);
    },

    /**
     * Connects the account to the platform's company; refused (false) when that company is
     * another account's already: one company is one customer.
     */
    async connect(accountId: number, platform: string, companyId: string, tx: Sql = sql): Promise<boolean> {
      const other = await tx.get<{ account_id: number }>('SELECT account_id FROM connections WHERE platform = $1 AND company_id = $2', [platform, companyId]);
      if (other && other.account_id !== accountId) return false;
      await tx.run(`${upsert} company_id = $3, updated_at = $7`, [accountId, platform, companyId, null, null, null, now()]);
      return true;
    },

    /**
     * Records that the account uses the platform, with no company id or credential yet: the
     * dashboard then lists the connection, and flags a credential the platform needs and lacks
     * (Ashby refusing a start for want of the customer's key). Nothing changes when it exists.
     */
    async ensure(accountId: number, platform: string, tx: Sql = sql): Promise<void> {
      const at = now();
      await tx.run(
        `INSERT INTO connections (account_id, platform, created_at, updated_at) VALUES ($1, $2, $3, $3) ON CONFLICT (account_id, platform) DO NOTHING`,
        [accountId, platform, at],
      );
    },

    /** Stores the customer's credential for the platform, replacing any before (a rotation). */
    async setCredential(accountId: number, platform: string, credential: string, tx: Sql = sql): Promise<void> {
      if (credential.length === 0 || credential.length > CREDENTIAL_MAX_LENGTH) {
        throw new RangeError(`a credential is 1 to ${CREDENTIAL_MAX_LENGTH} characters`);
      }
      const at = now();
      const hint = credential.length >= 12 ? credential.slice(-4) : null;
      await tx.run(`${upsert} credential = $4, credential_hint = $5, credential_set_at = $6, updated_at = $7`, [
        accountId,
        platform,
        null,
        sealed.seal(boundTo(accountId, platform), credential),
        hint,
        at,
        at,
      ]);
    },

    /** Forgets the credential; true when there was one. */
    async removeCredential(accountId: number, platform: string): Promise<boolean> {
      const changed = await sql.run(
        `UPDATE connections SET credential = NULL, credential_hint = NULL, credential_set_at = NULL, updated_at = $1
          WHERE account_id = $2 AND platform = $3 AND credential IS NOT NULL`,
        [now(), accountId, platform],
      );
      return changed.changes === 1;
    },

    /**
     * The customer's credential for the platform, opened; undefined when none is stored. Throws a
     * `SealError` when it cannot be opened (CANDIDATE_LINK_SECRET rotated since it was set).
     */
    async credential(accountId: number, platform: string, tx: Sql = sql): Promise<string | undefined> {
      const row = await tx.get<{ credential: string | null }>('SELECT credential FROM connections WHERE account_id = $1 AND platform = $2', [accountId, platform]);
      return row?.credential == null ? undefined : sealed.open(boundTo(accountId, platform), row.credential);
    },
  };
}
