import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import type { Sql } from '../../lib/sql.js';
import { maskedCredential, type Connection, type ConnectionStore } from '../connections/store.js';
import type { PlatformDefinition } from '../platforms/platform.js';
import type { ProviderCatalog } from '../provider/types.js';
import { createAccountWithTests } from './demo-seed.js';
import { AccountName, CompanyId, credentialOf, RefusedCredential, Secret, UnknownAccount, type NamedCredential } from './rules.js';
import type { AccountStore, AccountSummary } from './store.js';
import { TOKEN_PREFIX } from './tokens.js';

/**
 * Who changed an account: the accounts CLI (the system user who ran it) or the dashboard (the admin
 * user name, or "ADMIN_TOKEN", and the client's address). Kept with each change in the account's
 * history.
 */
export interface Actor {
  via: 'cli' | 'dashboard';
  who?: string;
  address?: string;
}

/** What the account's history says of a change: never a token or a credential, only their names. */
export type AccountAction =
  | { action: 'created'; detail: { name: string; tests?: readonly string[]; keyId: string } }
  | { action: 'token_issued'; detail: { keyId: string } }
  | { action: 'tokens_revoked'; detail: { count: number } }
  | { action: 'token_revoked'; detail: { keyId: string } }
  | { action: 'credential_set'; detail: { platform: string; credential: string | null; replaced: boolean } }
  | { action: 'credential_removed'; detail: { platform: string } }
  | { action: 'company_connected'; detail: { platform: string; companyId: string; replaced: string | null } };

/** One line of an account's history, newest first (`history`). */
export interface AccountEvent {
  id: number;
  accountId: number;
  action: AccountAction['action'];
  detail: Record<string, unknown>;
  via: Actor['via'];
  who: string | null;
  address: string | null;
  at: string;
}

/** A credential the operator asked to set or remove: the account, how the platform and its credential are named, what is stored now. */
export interface CredentialTarget {
  account: AccountSummary;
  platform: string;
  named: NamedCredential;
  stored: Connection | undefined;
}

/** The key id of a token, as `activeTokens` and the dashboard name it: its prefix and lookup part. */
export const keyIdOf = (token: string) => token.slice(0, TOKEN_PREFIX.length + 12);

/**
 * Every change to a customer account, with its rules (rules.ts) and its line in the account's
 * history (`account_events`), written in the same transaction as the change where the store takes
 * one (a credential's removal is recorded just after it). The accounts CLI and the dashboard both
 * change accounts through this, and only through this: the same checks, the same refusals, the
 * same history, whichever was used.
 */
export function accountAdmin(deps: {
  sql: Sql;
  clock: Clock;
  accounts: AccountStore;
  connections: Pick<ConnectionStore, 'get' | 'setCredential' | 'removeCredential' | 'connect'>;
  /** The platforms the partner speaks, which a credential's platform is checked against. */
  platforms: () => Promise<readonly Pick<PlatformDefinition, 'name' | 'label' | 'credential'>[]> | readonly Pick<PlatformDefinition, 'name' | 'label' | 'credential'>[];
}) {
  const { sql, clock, accounts, connections } = deps;
  const record = (tx: Sql, accountId: number, change: AccountAction, actor: Actor) =>
    tx.run('INSERT INTO account_events (account_id, action, detail, via, who, address, at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      accountId,
      change.action,
      JSON.stringify(change.detail),
      actor.via,
      actor.who ?? null,
      actor.address ?? null,
      isoAt(clock.now()),
    ]);
  const existing = async (accountId: number) => {
    const account = await accounts.find(accountId);
    if (!account) throw new UnknownAccount(accountId);
    return account;
  };

  return {
    /**
     * Creates an account and its first token (returned once, never stored), with `tests` added to
     * the provider's catalog when given, in one transaction with its history's first line. Throws
     * a `RangeError` with the rule's words for a name the rules refuse.
     */
    async create(name: string, actor: Actor, options: { catalog?: ProviderCatalog; tests?: readonly string[] } = {}): Promise<{ accountId: number; name: string; token: string }> {
      const given = AccountName.safeParse(name);
      if (!given.success) throw new RangeError(given.error.issues[0]!.message);
      const tests = options.tests ?? [];
      return sql.transaction(async (tx) => {
        const { accountId, token } = await createAccountWithTests(tx, accounts, given.data, options.catalog, tests);
        const detail = { name: given.data, ...(tests.length > 0 && { tests }), keyId: keyIdOf(token) };
        await record(tx, accountId, { action: 'created', detail }, actor);
        return { accountId, name: given.data, token };
      });
    },

    /** Another token for the account (the older ones keep working), shown once. */
    async issueToken(accountId: number, actor: Actor): Promise<string> {
      return sql.transaction(async (tx) => {
        const token = await accounts.issueToken(accountId, tx);
        if (token === undefined) throw new UnknownAccount(accountId);
        await record(tx, accountId, { action: 'token_issued', detail: { keyId: keyIdOf(token) } }, actor);
        return token;
      });
    },

    /** Revokes every token of the account that still works; how many. */
    async revokeTokens(accountId: number, actor: Actor): Promise<number> {
      return sql.transaction(async (tx) => {
        const count = await accounts.revokeTokens(accountId, tx);
        if (count === undefined) throw new UnknownAccount(accountId);
        if (count > 0) await record(tx, accountId, { action: 'tokens_revoked', detail: { count } }, actor);
        return count;
      });
    },

    /** Revokes one token of the account by its key id; false when no active token of the account has it. */
    async revokeToken(accountId: number, keyId: string, actor: Actor): Promise<boolean> {
      return sql.transaction(async (tx) => {
        const revoked = await accounts.revokeToken(accountId, keyId, tx);
        if (revoked === undefined) throw new UnknownAccount(accountId);
        if (revoked) await record(tx, accountId, { action: 'token_revoked', detail: { keyId } }, actor);
        return revoked;
      });
    },

    /**
     * The account and platform a credential is set for or removed from, checked before anything is
     * asked or stored: an unknown account (`UnknownAccount`), a platform the partner does not speak
     * or that keeps no credential (`RefusedCredential`), unless, to remove it, one is stored.
     */
    async credentialTarget(accountId: number, platform: string, action: 'set' | 'remove'): Promise<CredentialTarget> {
      const account = await existing(accountId);
      const stored = await connections.get(accountId, platform);
      const named = credentialOf(await deps.platforms(), platform, action === 'remove' && stored?.hasCredential === true);
      return { account, platform, named, stored };
    },

    /**
     * Sets (or replaces) the customer's credential for the platform, sealed; refused
     * (`RefusedCredential`, saying why, never what was given) when the rules refuse it. Returns the
     * connection as anyone may see it: the credential masked.
     */
    async setCredential(target: CredentialTarget, secret: string, actor: Actor): Promise<{ credential: string | null; credentialSetAt: string | null; replaced: boolean }> {
      const given = Secret.safeParse(secret);
      if (!given.success) throw new RefusedCredential(`credential set: ${given.error.issues[0]!.message}; nothing was stored`);
      const { account, platform } = target;
      const replaced = target.stored?.hasCredential === true;
      const now = await sql.transaction(async (tx) => {
        await connections.setCredential(account.id, platform, given.data, tx);
        const row = await tx.get<{ credential_hint: string | null; credential_set_at: string | null }>(
          'SELECT credential_hint, credential_set_at FROM connections WHERE account_id = $1 AND platform = $2',
          [account.id, platform],
        );
        const credential = maskedCredential({ hasCredential: true, credentialHint: row?.credential_hint ?? null });
        await record(tx, account.id, { action: 'credential_set', detail: { platform, credential, replaced } }, actor);
        return { credential, credentialSetAt: row?.credential_set_at ?? null };
      });
      return { ...now, replaced };
    },

    /** Forgets the customer's credential for the platform; false when none was stored. */
    async removeCredential(target: CredentialTarget, actor: Actor): Promise<boolean> {
      const { account, platform } = target;
      const removed = await connections.removeCredential(account.id, platform);
      // The store removes outside any transaction of ours: the line follows the change at once.
      if (removed) await record(sql, account.id, { action: 'credential_removed', detail: { platform } }, actor);
      return removed;
    },

    /**
     * Connects the account to a platform's company (Bob's company id, say): the platform's calls
     * for that company then reach this account (an install from Bob's marketplace, its webhooks).
     * Refused (`RefusedCredential`, saying why) for a platform the partner does not speak, a blank
     * or malformed company id, or a company another account is connected to: one company is one
     * customer.
     */
    async connectCompany(accountId: number, platform: string, companyId: string, actor: Actor): Promise<{ replaced: string | null }> {
      await existing(accountId);
      const definition = (await deps.platforms()).find((p) => p.name === platform);
      if (!definition) throw new RefusedCredential(`connect: the partner speaks no platform named "${platform}"; nothing was changed`);
      const company = CompanyId.safeParse(companyId);
      if (!company.success) throw new RefusedCredential(`connect: the company id ${company.error.issues[0]!.message}; nothing was changed`);
      const before = (await connections.get(accountId, platform))?.companyId ?? null;
      return sql.transaction(async (tx) => {
        if (!(await connections.connect(accountId, platform, company.data, tx))) {
          throw new RefusedCredential(`connect: ${definition.label}'s company ${company.data} is connected to another account; nothing was changed`);
        }
        const replaced = before !== null && before !== company.data ? before : null;
        if (before !== company.data) await record(tx, accountId, { action: 'company_connected', detail: { platform, companyId: company.data, replaced } }, actor);
        return { replaced };
      });
    },

    /** The account's history, newest first: the `limit` newest lines. */
    async history(accountId: number, limit: number): Promise<AccountEvent[]> {
      const rows = await sql.all<{ id: number; account_id: number; action: AccountAction['action']; detail: string; via: Actor['via']; who: string | null; address: string | null; at: string }>(
        'SELECT id, account_id, action, detail, via, who, address, at FROM account_events WHERE account_id = $1 ORDER BY id DESC LIMIT $2',
        [accountId, limit],
      );
      return rows.map((r) => ({ id: r.id, accountId: r.account_id, action: r.action, detail: JSON.parse(r.detail) as Record<string, unknown>, via: r.via, who: r.who, address: r.address, at: r.at }));
    },
  };
}

export type AccountAdmin = ReturnType<typeof accountAdmin>;
