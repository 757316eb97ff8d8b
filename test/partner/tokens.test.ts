import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import request from 'supertest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { issueToken, parseToken, TOKEN_PREFIX } from '../../src/partner/accounts/tokens.js';
import { systemClock } from '../../src/lib/clock.js';
import { openPartnerDatabase, type PartnerDatabase } from '../../src/partner/db/open.js';
import { sqliteSql } from '../../src/lib/sql.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { ON_POSTGRES } from '../support/database.js';
import { bearer, countTokenLookups, partnerHarness, type PartnerHarness } from '../support/partner.js';

describe('customer tokens', () => {
  it('when a token is issued, then it has the prefix, at least 160 random bits and a valid checksum', () => {
    const { token, lookup } = issueToken();
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
    const random = token.slice(TOKEN_PREFIX.length, -6);
    expect(random.length * Math.log2(62)).toBeGreaterThanOrEqual(160);
    expect(parseToken(token)).toEqual({ lookup });
  });

  it('when any single character of a token is changed, then the checksum refuses it', () => {
    const { token } = issueToken();
    for (let i = TOKEN_PREFIX.length; i < token.length; i++) {
      const swapped = token[i] === 'A' ? 'B' : 'A';
      expect(parseToken(token.slice(0, i) + swapped + token.slice(i + 1))).toBeUndefined();
    }
  });

  // Counts the statements run on the SQLite connection (a spy on its prepare): SQLite only.
  it.skipIf(ON_POSTGRES)('when a token has the right shape but a wrong checksum, then it is refused without looking it up in the database', async () => {
    const h = await partnerHarness();
    try {
      const c = await h.customer('Acme');
      // A store whose statements report each run, as the server's own store (same database).
      const lookups = countTokenLookups(h.db);
      const accounts = accountStore(sqliteSql(h.db), h.clock);
      const unknown = issueToken().token;
      // The key id and secret of a real account, with a mistyped checksum.
      const mistyped = c.token.slice(0, -6) + (c.token.slice(-6) === '000000' ? '000001' : '000000');

      expect((await accounts.authenticate(c.token))?.id).toBe(c.accountId);
      expect(await accounts.authenticate(unknown)).toBeUndefined();
      expect(lookups.count).toBe(2); // the counter sees the lookups a good checksum leads to
      expect(await accounts.authenticate(mistyped)).toBeUndefined();
      expect(await accounts.authenticate('ptk_' + 'x'.repeat(50))).toBeUndefined();
      expect(lookups.count).toBe(2);
    } finally {
      await h.close();
    }
  });

  it('when tokens are issued many times, then none repeats', () => {
    const seen = new Set(Array.from({ length: 2000 }, () => issueToken().token));
    expect(seen.size).toBe(2000);
  });

  // Reads the SQLite database's files (after a WAL checkpoint): SQLite only.
  it.skipIf(ON_POSTGRES)('when tokens are issued and used, then no plaintext token is anywhere in the database files', async () => {
    const h = await partnerHarness();
    try {
      const tokens: string[] = [];
      for (let i = 0; i < 5; i++) tokens.push((await h.customer(`Customer ${i}`)).token);
      tokens.push((await h.accounts.issueToken(1))!);
      for (const t of tokens) expect(await h.accounts.authenticate(t)).toBeDefined();
      h.db.pragma('wal_checkpoint(TRUNCATE)');
      const dir = path.dirname(h.dbFile);
      const bytes = readdirSync(dir).map((f) => readFileSync(path.join(dir, f)).toString('latin1'));
      for (const token of tokens) {
        const secretPart = token.slice(TOKEN_PREFIX.length + 12);
        for (const content of bytes) {
          expect(content).not.toContain(token);
          expect(content).not.toContain(secretPart);
        }
      }
    } finally {
      await h.close();
    }
  });

  it('when an account rotates tokens, then the old one works until revoked and revocation covers all', async () => {
    const h = await partnerHarness();
    try {
      const c = await h.customer('Acme');
      const second = (await h.accounts.issueToken(c.accountId))!;
      expect((await h.accounts.authenticate(c.token))?.id).toBe(c.accountId);
      expect((await h.accounts.authenticate(second))?.id).toBe(c.accountId);
      expect(await h.accounts.revokeTokens(c.accountId)).toBe(2);
      expect(await h.accounts.authenticate(c.token)).toBeUndefined();
      expect(await h.accounts.authenticate(second)).toBeUndefined();
    } finally {
      await h.close();
    }
  });
});

describe('changes made by another process while the server runs', () => {
  it('when the CLI revokes a token the server has just accepted, then the very next call is refused', async () => {
    const h = await partnerHarness();
    try {
      const c = await h.customer('Acme', ['JS'], 3);
      expect((await request(h.app).get('/callbacks/tests').set(bearer(c.token))).status).toBe(200);
      // Another connection, as the accounts CLI in its own process has.
      const other = await secondConnection(h);
      await accountStore(other.sql, systemClock).revokeTokens(c.accountId);
      await other.close();
      expect((await request(h.app).get('/callbacks/tests').set(bearer(c.token))).status).toBe(401);
    } finally {
      await h.close();
    }
  });

  it('when tests are added to a catalog the server has listed, then the next listing shows them', async () => {
    const h = await partnerHarness();
    try {
      const c = await h.customer('Acme', ['JS'], 3);
      expect((await request(h.app).get('/callbacks/tests').set(bearer(c.token))).body).toHaveLength(1);
      const other = await secondConnection(h);
      await other.sql.transaction((tx) => addDemoTests(tx, systemClock, c.accountId, ['Go']));
      await other.close();
      const res = await request(h.app).get('/callbacks/tests').set(bearer(c.token));
      expect(res.body.map((t: { name: string }) => t.name)).toEqual(['JS', 'Go']);
    } finally {
      await h.close();
    }
  });
});

/** A connection of its own to the harness's database, as another process has: the same SQLite file, or the same PostgreSQL database. */
async function secondConnection(h: PartnerHarness): Promise<PartnerDatabase> {
  if (!ON_POSTGRES) return openPartnerDatabase({ databasePath: h.dbFile });
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${(await h.row('SELECT current_database() AS name'))!.name as string}`;
  return openPartnerDatabase({ databasePath: h.dbFile, databaseUrl: url.toString() });
}

