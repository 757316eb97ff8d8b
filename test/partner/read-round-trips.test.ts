import Database from 'better-sqlite3';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countingStatements } from '../../src/lib/sql.js';
import { ON_POSTGRES } from '../support/database.js';
import { bearer, partnerHarness, type PartnerHarness } from '../support/partner.js';

/**
 * The platforms' reads, counted in statements sent to the database (`countingStatements`): on
 * PostgreSQL each is a round trip, and a read that costs two waits for the database twice.
 */
describe('statements per read', () => {
  let h: PartnerHarness;
  const counter = { statements: 0 };
  /** What `call` sent to the database, and its answer. */
  const counted = async (call: () => PromiseLike<request.Response>) => {
    const before = counter.statements;
    const res = await call();
    return { res, statements: counter.statements - before };
  };
  beforeEach(async () => {
    h = await partnerHarness({ sql: (sql) => countingStatements(sql, counter) });
  });
  afterEach(() => h.close());

  it('validate_token of a bound account: one statement, the token', async () => {
    const c = await h.customer('Acme', ['JavaScript'], 42);
    const { res, statements } = await counted(() => request(h.app).post('/callbacks/validate_token').set(bearer(c.token)).send({ company_id: 42 }));
    expect(res.status).toBe(200);
    expect(statements).toBe(1);
  });

  it('tests: one statement, the token and the catalog together, listed in catalog order', async () => {
    const c = await h.customer('Acme', ['JavaScript', 'Ruby', 'SQL'], 42);
    const { res, statements } = await counted(() => request(h.app).get('/callbacks/tests').set(bearer(c.token)));
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: c.testIds[0], name: 'JavaScript' },
      { id: c.testIds[1], name: 'Ruby' },
      { id: c.testIds[2], name: 'SQL' },
    ]);
    expect(statements).toBe(1);
  });

  it('tests of an account without tests: one statement, and []', async () => {
    const c = await h.customer('Empty', [], 42);
    const { res, statements } = await counted(() => request(h.app).get('/callbacks/tests').set(bearer(c.token)));
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(statements).toBe(1);
  });

  it('tests of a customer who keeps calling: nothing once both read caches hold it on SQLite (one statement on PostgreSQL), and a test added from another connection, as the accounts CLI adds one, is listed on the next call', async () => {
    const c = await h.customer('Acme', ['JavaScript'], 42);
    const list = () => counted(() => request(h.app).get('/callbacks/tests').set(bearer(c.token)));
    // The caches keep a key missed twice (lib/perf/read-cache.ts): the token from the third call,
    // its tests, asked only once the token is held, from the fifth.
    for (let i = 0; i < 4; i++) expect((await list()).res.status).toBe(200);
    const again = await list();
    expect(again.res.body).toEqual([{ id: c.testIds[0], name: 'JavaScript' }]);
    expect(again.statements).toBe(ON_POSTGRES ? 1 : 0);

    const added = ['INSERT INTO tests (account_id, name, created_at) VALUES ($1, $2, $3)', [c.accountId, 'Ruby', new Date().toISOString()]] as const;
    if (ON_POSTGRES) await h.sql.run(...added);
    else {
      const other = new Database(h.dbFile);
      other.prepare(added[0].replace(/\$\d/g, '?')).run(...added[1]);
      other.close();
    }
    const after = await list();
    expect(after.res.body).toEqual([
      { id: c.testIds[0], name: 'JavaScript' },
      { id: expect.any(Number), name: 'Ruby' },
    ]);
    expect(after.statements).toBe(1);

    // Another customer, cached too, is listed its own tests, never the first one's.
    const other = await h.customer('Other', ['Go'], 43);
    let listed: request.Response | undefined;
    for (let i = 0; i < 5; i++) listed = await request(h.app).get('/callbacks/tests').set(bearer(other.token));
    expect(listed!.body).toEqual([{ id: other.testIds[0], name: 'Go' }]);
    expect((await list()).res.body.map((t: { name: string }) => t.name)).toEqual(['JavaScript', 'Ruby']);
  });

  it('Greenhouse list_tests: one statement, the key and the catalog together', async () => {
    const c = await h.customer('Acme', ['JavaScript', 'SQL']);
    const basic = `Basic ${Buffer.from(`${c.token}:`).toString('base64')}`;
    const { res, statements } = await counted(() => request(h.app).get('/greenhouse/list_tests').set('Authorization', basic));
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { partner_test_id: String(c.testIds[0]), partner_test_name: 'JavaScript' },
      { partner_test_id: String(c.testIds[1]), partner_test_name: 'SQL' },
    ]);
    expect(statements).toBe(1);
  });

  it('tests with a revoked token: 401, whatever the catalog holds', async () => {
    const c = await h.customer('Acme', ['JavaScript'], 42);
    await h.accounts.revokeTokens(c.accountId);
    const { res } = await counted(() => request(h.app).get('/callbacks/tests').set(bearer(c.token)));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});
