import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountsCli } from '../../scripts/accounts.js';
import { accountAdmin, type Actor } from '../../src/partner/accounts/admin.js';
import { RefusedCredential, UnknownAccount } from '../../src/partner/accounts/rules.js';
import { accountStore } from '../../src/partner/accounts/store.js';
import { connectionStore } from '../../src/partner/connections/store.js';
import { openPartnerDatabase, type PartnerDatabase } from '../../src/partner/db/open.js';
import { definePlatform, kitPlatforms, type PlatformDefinition } from '../../src/partner/platforms/index.js';
import { freshDatabase, rowsOf } from '../support/database.js';
import { fakeClock } from '../support/partner.js';

const LINK = 'account-admin-link-secret-0123456789abcdefghij';
/** Acme's key for Acme ATS: 36 characters, ending in "wxyz". */
const SECRET = 'acme_live_8f3b2c1d9e0a7f6b5c4d3wxyz';
const ACME_ATS = definePlatform({
  name: 'acme-ats',
  label: 'Acme ATS',
  credential: { label: 'Acme ATS API key', required: true },
  create: () => {
    throw new Error('accounts are changed without making a platform');
  },
}) as PlatformDefinition;
const PLATFORMS = [...kitPlatforms(), ACME_ATS];
const OPERATOR: Actor = { via: 'dashboard', who: 'operator', address: '203.0.113.5' };

/**
 * The rules every change to an account follows, and the history it leaves, whether the accounts
 * CLI or the dashboard makes it (src/partner/accounts/admin.ts): the same refusals, and one line per
 * change saying who made it, never a token or a credential.
 */
describe('changing an account (the CLI and the dashboard alike)', () => {
  let dir: string;
  let settings: { DATABASE_PATH: string; DATABASE_URL?: string };
  let database: PartnerDatabase;
  let clock: ReturnType<typeof fakeClock>;
  const open = async () => {
    database = await openPartnerDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL });
    const accounts = accountStore(database.sql, clock);
    const connections = connectionStore(database.sql, clock, LINK);
    return { accounts, connections, admin: accountAdmin({ sql: database.sql, clock, accounts, connections, platforms: () => PLATFORMS }) };
  };
  let parts: Awaited<ReturnType<typeof open>>;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'account-admin-'));
    settings = await freshDatabase(dir);
    clock = fakeClock();
    parts = await open();
  });
  afterEach(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const history = () => rowsOf(database.sql, 'SELECT account_id, action, detail, via, who, address, at FROM account_events ORDER BY id');
  /** The CLI on the same database, as `npm run accounts` runs it, with `user` as the system's user. */
  const cli = async (...args: string[]) => {
    let out = '';
    const code = await accountsCli(args, {
      stdout: (t) => (out += t),
      stderr: (t) => (out += t),
      env: { ...process.env, ...settings, CANDIDATE_LINK_SECRET: LINK },
      platforms: async () => PLATFORMS,
      user: 'alice',
    });
    return { code, out };
  };

  it('when an account is created, then its token is returned once, only its key id is kept in its history, with who created it', async () => {
    const { accountId, name, token } = await parts.admin.create('  Acme Hiring ', OPERATOR);
    expect({ accountId, name }).toEqual({ accountId: 1, name: 'Acme Hiring' });
    expect((await parts.accounts.authenticate(token))?.id).toBe(1);
    expect(await history()).toEqual([
      {
        account_id: 1,
        action: 'created',
        detail: JSON.stringify({ name: 'Acme Hiring', keyId: token.slice(0, 16) }),
        via: 'dashboard',
        who: 'operator',
        address: '203.0.113.5',
        at: '2026-11-01T09:00:00.000Z',
      },
    ]);
    expect(JSON.stringify(await rowsOf(database.sql, 'SELECT * FROM account_tokens'))).not.toContain(token.slice(16));
  });

  it('when a name is blank, too long or holds a control character, then no account is created, and the CLI refuses it in the same words', async () => {
    for (const [name, why] of [
      ['   ', 'the account needs a name'],
      ['x'.repeat(201), "an account's name is at most 200 characters"],
      ['Acme\nHiring', "an account's name is one line, without control characters"],
    ] as const) {
      await expect(parts.admin.create(name, OPERATOR)).rejects.toThrow(why);
      if (name.trim() !== '') expect((await cli('create', name)).out).toContain(`create: ${why}`);
    }
    expect(await rowsOf(database.sql, 'SELECT id FROM accounts')).toEqual([]);
    expect(await history()).toEqual([]);
  });

  it('when tokens are issued and revoked, one or all, then each change is a line of the history, naming the token by its key id', async () => {
    const { accountId, token: first } = await parts.admin.create('Acme', OPERATOR);
    clock.advance(60_000);
    const second = await parts.admin.issueToken(accountId, OPERATOR);
    const third = await parts.admin.issueToken(accountId, { via: 'cli', who: 'alice' });
    expect(await parts.admin.revokeToken(accountId, first.slice(0, 16), OPERATOR)).toBe(true);
    // Again, or another account's, or not a key id: nothing revoked, nothing recorded.
    expect(await parts.admin.revokeToken(accountId, first.slice(0, 16), OPERATOR)).toBe(false);
    expect(await parts.admin.revokeToken(accountId, 'nonsense', OPERATOR)).toBe(false);
    expect(await parts.accounts.authenticate(first)).toBeUndefined();
    expect((await parts.accounts.authenticate(second))?.id).toBe(accountId);
    expect(await parts.admin.revokeTokens(accountId, OPERATOR)).toBe(2);
    expect(await parts.admin.revokeTokens(accountId, OPERATOR)).toBe(0);
    expect(await parts.accounts.authenticate(third)).toBeUndefined();
    expect((await history()).map((e) => [e.action, JSON.parse(e.detail as string), e.via])).toEqual([
      ['created', { name: 'Acme', keyId: first.slice(0, 16) }, 'dashboard'],
      ['token_issued', { keyId: second.slice(0, 16) }, 'dashboard'],
      ['token_issued', { keyId: third.slice(0, 16) }, 'cli'],
      ['token_revoked', { keyId: first.slice(0, 16) }, 'dashboard'],
      ['tokens_revoked', { count: 2 }, 'dashboard'],
    ]);
    for (const t of [first, second, third]) expect(JSON.stringify(await history())).not.toContain(t);
  });

  it('when the account does not exist, then every change is refused as an unknown account, and nothing is recorded', async () => {
    await expect(parts.admin.issueToken(9, OPERATOR)).rejects.toBeInstanceOf(UnknownAccount);
    await expect(parts.admin.revokeTokens(9, OPERATOR)).rejects.toThrow('No account 9');
    await expect(parts.admin.revokeToken(9, 'ptk_0123456789ab', OPERATOR)).rejects.toBeInstanceOf(UnknownAccount);
    await expect(parts.admin.credentialTarget(9, 'acme-ats', 'set')).rejects.toBeInstanceOf(UnknownAccount);
    expect(await history()).toEqual([]);
  });

  it('when a credential is set, replaced and removed, then the history says so with its last four characters only, and the rules refuse what the CLI refuses', async () => {
    const { accountId } = await parts.admin.create('Acme', OPERATOR);
    const target = await parts.admin.credentialTarget(accountId, 'acme-ats', 'set');
    expect(target.named).toEqual({ label: 'Acme ATS', credential: 'Acme ATS API key' });
    expect(await parts.admin.setCredential(target, SECRET, OPERATOR)).toEqual({ credential: '••••wxyz', credentialSetAt: '2026-11-01T09:00:00.000Z', replaced: false });
    const again = await parts.admin.credentialTarget(accountId, 'acme-ats', 'set');
    expect((await parts.admin.setCredential(again, 'acme_live_rotated_key_000000001234', OPERATOR)).replaced).toBe(true);
    expect(await parts.connections.credential(accountId, 'acme-ats')).toBe('acme_live_rotated_key_000000001234');

    for (const [secret, why] of [
      ['', 'no credential was given'],
      ['   ', 'the credential is blank'],
      ['abc\u0000def', 'the credential holds a control character'],
      ['x'.repeat(8193), 'a credential is at most 8192 characters'],
    ] as const) {
      const refused = parts.admin.setCredential(again, secret, OPERATOR);
      await expect(refused).rejects.toBeInstanceOf(RefusedCredential);
      await expect(refused).rejects.toThrow(why);
    }
    await expect(parts.admin.credentialTarget(accountId, 'nope', 'set')).rejects.toThrow(/No platform "nope": this partner speaks .*acme-ats/);
    await expect(parts.admin.credentialTarget(accountId, 'greenhouse', 'set')).rejects.toThrow(/Greenhouse \("greenhouse"\) keeps no credential per customer/);

    expect(await parts.admin.removeCredential(await parts.admin.credentialTarget(accountId, 'acme-ats', 'remove'), { via: 'cli', who: 'alice' })).toBe(true);
    expect(await parts.admin.removeCredential(await parts.admin.credentialTarget(accountId, 'acme-ats', 'remove'), OPERATOR)).toBe(false);
    expect(await parts.connections.credential(accountId, 'acme-ats')).toBeUndefined();
    const lines = await history();
    expect(lines.map((e) => [e.action, JSON.parse(e.detail as string)])).toEqual([
      ['created', expect.objectContaining({ name: 'Acme' })],
      ['credential_set', { platform: 'acme-ats', credential: '••••wxyz', replaced: false }],
      ['credential_set', { platform: 'acme-ats', credential: '••••1234', replaced: true }],
      ['credential_removed', { platform: 'acme-ats' }],
    ]);
    expect(JSON.stringify(lines)).not.toContain(SECRET.slice(0, 12));
    expect(await parts.admin.history(accountId, 2)).toMatchObject([
      { action: 'credential_removed', via: 'cli', who: 'alice', address: null },
      { action: 'credential_set', detail: { credential: '••••1234' }, via: 'dashboard', who: 'operator' },
    ]);
  });

  it('when the CLI changes an account, then its history names the CLI and the system user who ran it, as the dashboard reads it', async () => {
    expect((await cli('create', 'Globex')).code).toBe(0);
    expect((await cli('token', '1')).code).toBe(0);
    expect((await cli('credential', 'set', '1', 'acme-ats', SECRET)).code).toBe(0);
    expect((await cli('credential', 'remove', '1', 'acme-ats')).code).toBe(0);
    expect((await cli('revoke', '1')).code).toBe(0);
    expect((await parts.admin.history(1, 10)).map((e) => [e.action, e.via, e.who])).toEqual([
      ['tokens_revoked', 'cli', 'alice'],
      ['credential_removed', 'cli', 'alice'],
      ['credential_set', 'cli', 'alice'],
      ['token_issued', 'cli', 'alice'],
      ['created', 'cli', 'alice'],
    ]);
  });
});
