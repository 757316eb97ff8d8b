import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { issueToken, parseToken, TOKEN_PREFIX } from '../../src/partner/accounts/tokens.js';
import { systemClock } from '../../src/lib/clock.js';
import { openDb } from '../../src/partner/db/open.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { bearer, countTokenLookups, partnerHarness } from '../support/partner.js';

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

  it('when a token has the right shape but a wrong checksum, then it is refused without looking it up in the database', () => {
    const h = partnerHarness();
    try {
      const c = h.customer('Acme');
      // A store whose statements report each run, as the server's own store (same database).
      const lookups = countTokenLookups(h.db);
      const accounts = accountStore(h.db, h.clock);
      const unknown = issueToken().token;
      // The key id and secret of a real account, with a mistyped checksum.
      const mistyped = c.token.slice(0, -6) + (c.token.slice(-6) === '000000' ? '000001' : '000000');

      expect(accounts.authenticate(c.token)?.id).toBe(c.accountId);
      expect(accounts.authenticate(unknown)).toBeUndefined();
      expect(lookups.count).toBe(2); // the counter sees the lookups a good checksum leads to
      expect(accounts.authenticate(mistyped)).toBeUndefined();
      expect(accounts.authenticate('ptk_' + 'x'.repeat(50))).toBeUndefined();
      expect(lookups.count).toBe(2);
    } finally {
      h.close();
    }
  });

  it('when tokens are issued many times, then none repeats', () => {
    const seen = new Set(Array.from({ length: 2000 }, () => issueToken().token));
    expect(seen.size).toBe(2000);
  });

  it('when tokens are issued and used, then no plaintext token is anywhere in the database files', async () => {
    const h = partnerHarness();
    try {
      const tokens = Array.from({ length: 5 }, (_, i) => h.customer(`Customer ${i}`).token);
      tokens.push(h.accounts.issueToken(1)!);
      for (const t of tokens) expect(h.accounts.authenticate(t)).toBeDefined();
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
      h.close();
    }
  });

  it('when an account rotates tokens, then the old one works until revoked and revocation covers all', () => {
    const h = partnerHarness();
    try {
      const c = h.customer('Acme');
      const second = h.accounts.issueToken(c.accountId)!;
      expect(h.accounts.authenticate(c.token)?.id).toBe(c.accountId);
      expect(h.accounts.authenticate(second)?.id).toBe(c.accountId);
      expect(h.accounts.revokeTokens(c.accountId)).toBe(2);
      expect(h.accounts.authenticate(c.token)).toBeUndefined();
      expect(h.accounts.authenticate(second)).toBeUndefined();
    } finally {
      h.close();
    }
  });
});

describe('changes made by another process while the server runs', () => {
  it('when the CLI revokes a token the server has just accepted, then the very next call is refused', async () => {
    const h = partnerHarness();
    try {
      const c = h.customer('Acme', ['JS'], 3);
      expect((await request(h.app).get('/callbacks/tests').set(bearer(c.token))).status).toBe(200);
      // Another connection, as the accounts CLI in its own process has.
      const other = openDb(h.dbFile);
      accountStore(other, systemClock).revokeTokens(c.accountId);
      other.close();
      expect((await request(h.app).get('/callbacks/tests').set(bearer(c.token))).status).toBe(401);
    } finally {
      h.close();
    }
  });

  it('when tests are added to a catalog the server has listed, then the next listing shows them', async () => {
    const h = partnerHarness();
    try {
      const c = h.customer('Acme', ['JS'], 3);
      expect((await request(h.app).get('/callbacks/tests').set(bearer(c.token))).body).toHaveLength(1);
      const other = openDb(h.dbFile);
      addDemoTests(other, systemClock, c.accountId, ['Go']);
      other.close();
      const res = await request(h.app).get('/callbacks/tests').set(bearer(c.token));
      expect(res.body.map((t: { name: string }) => t.name)).toEqual(['JS', 'Go']);
    } finally {
      h.close();
    }
  });
});

