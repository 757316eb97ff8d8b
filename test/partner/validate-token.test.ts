import request from 'supertest';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { openPartnerDatabase, type PartnerDatabase } from '../../src/partner/db/open.js';
import { ON_POSTGRES, sqliteOf } from '../support/database.js';
import { bearer, countTokenLookups, partnerHarness, type PartnerHarness } from '../support/partner.js';

describe('validate_token', () => {
  let h: PartnerHarness;
  beforeEach(async () => {
    h = await partnerHarness();
  });
  afterEach(() => h.close());

  const companyOf = async (accountId: number) => (await h.row('SELECT company_id FROM accounts WHERE id = ?', accountId)) as { company_id: number | null };

  it('when a valid token is posted with a company, then it answers 200 and binds the account to that company', async () => {
    const c = await h.customer('Acme');
    const res = await request(h.app).post('/callbacks/validate_token').set(bearer(c.token)).send({ company_id: 3 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect((await companyOf(c.accountId)).company_id).toBe(3);
  });

  it('when the company id arrives as a string, then it is bound as the same integer', async () => {
    const c = await h.customer('Acme');
    const res = await request(h.app).post('/callbacks/validate_token').set(bearer(c.token)).send({ company_id: '42' });
    expect(res.status).toBe(200);
    expect((await companyOf(c.accountId)).company_id).toBe(42);
  });

  it('when the same company validates again, then it answers 200 again', async () => {
    const c = await h.customer('Acme', [], 3);
    const res = await request(h.app).post('/callbacks/validate_token').set(bearer(c.token)).send({ company_id: 3 });
    expect(res.status).toBe(200);
  });

  it('when the token is already bound to another company, then it answers 403 and the binding stays', async () => {
    const c = await h.customer('Acme', [], 3);
    const res = await request(h.app).post('/callbacks/validate_token').set(bearer(c.token)).send({ company_id: 4 });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/another company/);
    expect((await companyOf(c.accountId)).company_id).toBe(3);
  });

  it('when called with GET and no body, then a valid token answers 200 without binding', async () => {
    const c = await h.customer('Acme');
    const res = await request(h.app).get('/callbacks/validate_token').set(bearer(c.token));
    expect(res.status).toBe(200);
    expect((await companyOf(c.accountId)).company_id).toBeNull();
  });

  it('when called with GET naming the company in the query, then it binds like POST', async () => {
    const c = await h.customer('Acme');
    const res = await request(h.app).get('/callbacks/validate_token?company_id=9').set(bearer(c.token));
    expect(res.status).toBe(200);
    expect((await companyOf(c.accountId)).company_id).toBe(9);
  });

  it.each([['bearer '], ['BEARER '], ['Bearer   '], ['bEaReR\t']])(
    'when the header starts %j, then the token is accepted as after "Bearer " (the scheme is case-insensitive, RFC 9110)',
    async (scheme) => {
      const c = await h.customer('Acme');
      const res = await request(h.app).post('/callbacks/validate_token').set('Authorization', `${scheme}${c.token}`).send({ company_id: 3 });
      expect(res.status).toBe(200);
      expect((await companyOf(c.accountId)).company_id).toBe(3);
    },
  );

  it.each([
    ['no Authorization header', {}],
    ['a Basic header', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['a malformed token', { Authorization: 'Bearer hello' }],
    ['a well-formed but unknown token', { Authorization: 'Bearer ptk_000000000000000000000000000000000000000000000000' }],
  ])('when the request has %s, then it answers 401 in the contract shape', async (_case, headers) => {
    const res = await request(h.app).post('/callbacks/validate_token').set(headers).send({ company_id: 3 });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Invalid token' });
  });

  it('when a token was revoked, then it answers 401 and binds nothing', async () => {
    const c = await h.customer('Acme');
    await h.accounts.revokeTokens(c.accountId);
    const res = await request(h.app).post('/callbacks/validate_token').set(bearer(c.token)).send({ company_id: 3 });
    expect(res.status).toBe(401);
    expect((await companyOf(c.accountId)).company_id).toBeNull();
  });

  // Counts the statements run on the SQLite connection (a spy on its prepare): SQLite only.
  it.skipIf(ON_POSTGRES)('when one character of a valid token is changed, then the checksum refuses it with 401, before any lookup', async () => {
    await h.close();
    let lookups = { count: 0 };
    h = await partnerHarness({ beforeApp: (sql) => (lookups = countTokenLookups(sqliteOf(sql))) });
    const c = await h.customer('Acme');
    const last = c.token.at(-1) === 'a' ? 'b' : 'a';
    const res = await request(h.app)
      .post('/callbacks/validate_token')
      .set(bearer(c.token.slice(0, -1) + last))
      .send({ company_id: 3 });
    expect(res.status).toBe(401);
    expect(lookups.count).toBe(0);
    // The same request with the token as issued is looked up (and accepted).
    expect((await request(h.app).post('/callbacks/validate_token').set(bearer(c.token)).send({ company_id: 3 })).status).toBe(200);
    expect(lookups.count).toBe(1);
  });

  it.each([['{}'], ['42'], ['null'], ['[]'], ['{"companyId": 3}'], ['no body']])(
    'when POST carries %s instead of {company_id}, then it answers 422 naming company_id and the account stays unbound',
    async (raw) => {
      const c = await h.customer('Acme');
      const req = request(h.app).post('/callbacks/validate_token').set(bearer(c.token));
      const res = raw === 'no body' ? await req : await req.set('Content-Type', 'application/json').send(raw);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'company_id is required', errors: { company_id: ['is required'] } });
      expect(await h.row('SELECT company_id, bound_at FROM accounts WHERE id = ?', c.accountId)).toEqual({ company_id: null, bound_at: null });
    },
  );

  it.each([['abc'], [-1], [0], [1.5], [{}]])('when company_id is %j, then it answers 422 and binds nothing', async (bad) => {
    const c = await h.customer('Acme');
    const res = await request(h.app).post('/callbacks/validate_token').set(bearer(c.token)).send({ company_id: bad });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('company_id');
    expect((await companyOf(c.accountId)).company_id).toBeNull();
  });
});

/**
 * Two validate_token calls for one unbound account, at once (two processes, or two requests whose
 * bodies arrive in turn): each authenticated before either bound. Here the other call binds
 * through its own connection between this call's read of the account and its write.
 */
describe('validate_token calls racing to bind one account', () => {
  let h: PartnerHarness;
  let other: PartnerDatabase;
  beforeEach(async () => {
    h = await partnerHarness();
    other = await secondConnection(h);
  });
  afterEach(async () => {
    await other.close();
    await h.close();
  });

  /** The account as each call authenticated it, both before any bind. */
  const bothAuthenticate = async () => {
    const c = await h.customer('Acme');
    const otherAccounts = accountStore(other.sql, h.clock);
    const mine = (await h.accounts.authenticate(c.token))!;
    const theirs = (await otherAccounts.authenticate(c.token))!;
    expect([mine.companyId, theirs.companyId]).toEqual([null, null]);
    return { c, mine, theirs, otherAccounts };
  };

  it('when the other call binds another company first, then this one is refused (403) and the first binding stays', async () => {
    const { c, mine, theirs, otherAccounts } = await bothAuthenticate();
    expect(await otherAccounts.bindCompany(theirs, 3)).toBe(true);
    expect(await h.accounts.bindCompany(mine, 4)).toBe(false);
    expect((await h.row('SELECT company_id FROM accounts WHERE id = ?', c.accountId))?.company_id).toBe(3);
    // What the platform is told from now on.
    const res = await request(h.app).post('/callbacks/validate_token').set(bearer(c.token)).send({ company_id: 4 });
    expect(res.status).toBe(403);
  });

  it('when the other call binds the same company first, then both succeed', async () => {
    const { c, mine, theirs, otherAccounts } = await bothAuthenticate();
    expect(await otherAccounts.bindCompany(theirs, 3)).toBe(true);
    expect(await h.accounts.bindCompany(mine, 3)).toBe(true);
    expect((await h.row('SELECT company_id FROM accounts WHERE id = ?', c.accountId))?.company_id).toBe(3);
  });
});

/** A connection of its own to the harness's database, as another process has: the same SQLite file, or the same PostgreSQL database. */
async function secondConnection(h: PartnerHarness): Promise<PartnerDatabase> {
  if (!ON_POSTGRES) return openPartnerDatabase({ databasePath: h.dbFile });
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${(await h.row('SELECT current_database() AS name'))!.name as string}`;
  return openPartnerDatabase({ databasePath: h.dbFile, databaseUrl: url.toString() });
}
