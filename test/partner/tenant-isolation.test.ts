import request from 'supertest';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOKEN_PREFIX } from '../../src/partner/accounts/tokens.js';
import { bearer, candidateBody, demoOn, partnerHarness, type PartnerHarness } from '../support/partner.js';

/** Account A's token must never read or change B's data, and must learn nothing about it. */
describe('tenant isolation', () => {
  let h: PartnerHarness;
  let a: Awaited<ReturnType<PartnerHarness['customer']>>;
  let b: Awaited<ReturnType<PartnerHarness['customer']>>;
  beforeEach(async () => {
    h = await partnerHarness();
    a = await h.customer('A', ['A test'], 3);
    b = await h.customer('B', ['B secret test'], 4);
  });
  afterEach(() => h.close());

  it("when A lists tests, then it sees only its own, never B's", async () => {
    const res = await request(h.app).get('/callbacks/tests').set(bearer(a.token));
    expect(res.body).toEqual([{ id: a.testIds[0], name: 'A test' }]);
  });

  it("when A sends a candidate to B's test, then the answer is the same as for a test that does not exist", async () => {
    const toB = await request(h.app)
      .post('/callbacks/send_candidate')
      .set(bearer(a.token))
      .send(candidateBody({ test_id: String(b.testIds[0]) }));
    const toNothing = await request(h.app)
      .post('/callbacks/send_candidate')
      .set(bearer(a.token))
      .send(candidateBody({ test_id: '987654' }));
    expect(toB.status).toBe(422);
    expect({ status: toB.status, body: toB.body }).toEqual({ status: toNothing.status, body: toNothing.body });
    expect(await h.row('SELECT count(*) AS n FROM invitations')).toEqual({ n: 0 });
  });

  it("when A cancels B's report, then the answer is the same as for an unknown report and B's report stays sent", async () => {
    const bReport = candidateBody({ company_id: 4, test_id: String(b.testIds[0]) });
    await request(h.app).post('/callbacks/send_candidate').set(bearer(b.token)).send(bReport);
    const onB = await request(h.app).post(`/callbacks/reports/${bReport.report_id}/cancel`).set(bearer(a.token));
    const onNothing = await request(h.app)
      .post('/callbacks/reports/7d0c8f0e-0f6b-4c55-9a53-eeeeeeeeeeee/cancel')
      .set(bearer(a.token));
    expect({ status: onB.status, body: onB.body }).toEqual({ status: onNothing.status, body: onNothing.body });
    expect(onB.status).toBe(404);
    expect((await h.invitations.find(b.accountId, bReport.report_id))?.status).toBe('sent');
  });

  it("when A posts validate_token for B's company, then B's binding is untouched", async () => {
    const res = await request(h.app).post('/callbacks/validate_token').set(bearer(a.token)).send({ company_id: 4 });
    expect(res.status).toBe(403);
    const rows = await h.rows('SELECT id, company_id FROM accounts ORDER BY id');
    expect(rows).toEqual([
      { id: a.accountId, company_id: 3 },
      { id: b.accountId, company_id: 4 },
    ]);
  });
});

describe("another account's key id", () => {
  it('when a token carries a real account’s key id with a secret of its own and a checksum that matches, then it answers 401', async () => {
    const h = await partnerHarness();
    try {
      const victim = await h.customer('Victim', ['JS'], 3);
      // The key id is not secret (it finds the row) and the checksum is a public CRC: anyone can
      // build a well-formed token around a key id they saw. Only the secret part proves anything.
      const keyId = victim.token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + 12);
      const forged = withChecksum(TOKEN_PREFIX + keyId + 'A'.repeat(32));
      expect(forged).not.toBe(victim.token);
      const res = await request(h.app).get('/callbacks/tests').set(bearer(forged));
      expect(res.status).toBe(401);
      expect(await h.accounts.authenticate(forged)).toBeUndefined();
    } finally {
      await h.close();
    }
  });
});

describe('report ids across accounts', () => {
  // A vendor whose catalog is the same for every customer: test ids are not per account. Its tests
  // are not the kit's `tests` table: no `catalog.table`, so the kit asks its findTest.
  const sharedCatalog = () =>
    partnerHarness({
      provider: async (sql) => {
        const demo = await demoOn(sql);
        const shared = { id: 'js-basics', name: 'JavaScript basics' };
        return {
          ...demo,
          catalog: { ...demo.catalog!, table: undefined },
          listTests: async () => [shared],
          findTest: async (_account, id) => (id === shared.id ? shared : undefined),
        };
      },
    });

  it("when a vendor's catalog is its own, then its findTest decides a send: an id it knows is stored with the name it gives, one it does not is 422 and stores nothing", async () => {
    const h = await sharedCatalog();
    try {
      const a = await h.customer('A', [], 3);
      const send = (testId: string) => request(h.app).post('/callbacks/send_candidate').set(bearer(a.token)).send(candidateBody({ company_id: 3, test_id: testId }));
      const unknown = await send('1');
      expect(unknown.status).toBe(422);
      expect(unknown.body.error).toBe('Unknown test');
      expect((await send('js-basics')).status).toBe(201);
      expect(await h.rows('SELECT test_id, test_name FROM invitations')).toEqual([{ test_id: 'js-basics', test_name: 'JavaScript basics' }]);
    } finally {
      await h.close();
    }
  });

  it('when another account sends a report_id already used, with the same candidate and a test id both catalogs share, then it answers 409 and keeps the first', async () => {
    const h = await sharedCatalog();
    try {
      const a = await h.customer('A', [], 3);
      const b = await h.customer('B', [], 4);
      const body = candidateBody({ company_id: 3, test_id: 'js-basics' });
      expect((await request(h.app).post('/callbacks/send_candidate').set(bearer(a.token)).send(body)).status).toBe(201);
      const fromB = await request(h.app)
        .post('/callbacks/send_candidate')
        .set(bearer(b.token))
        .send({ ...body, company_id: 4 });
      expect(fromB.status).toBe(409);
      expect(await h.invitations.find(a.accountId, body.report_id)).toBeDefined();
      expect(await h.invitations.find(b.accountId, body.report_id)).toBeUndefined();
    } finally {
      await h.close();
    }
  });
});

/** The token's checksum as the format documents it: CRC32 of everything before it, 6 base62 digits. */
function withChecksum(unsigned: string): string {
  const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let n = crc32(unsigned);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return unsigned + out;
}
