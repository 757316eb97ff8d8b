import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, partnerHarness, type PartnerHarness } from '../support/partner.js';

describe('tests', () => {
  let h: PartnerHarness;
  beforeEach(async () => {
    h = await partnerHarness();
  });
  afterEach(() => h.close());

  it('when an account has tests, then it answers a bare JSON array of {id, name} in catalog order', async () => {
    const c = await h.customer('Acme', ['JavaScript', 'Ruby']);
    const res = await request(h.app).get('/callbacks/tests').set(bearer(c.token));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual([
      { id: c.testIds[0], name: 'JavaScript' },
      { id: c.testIds[1], name: 'Ruby' },
    ]);
  });

  it('when an account has no tests, then it answers []', async () => {
    const c = await h.customer('Empty', []);
    const res = await request(h.app).get('/callbacks/tests').set(bearer(c.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('when the token is unknown or revoked, then it answers 401', async () => {
    const c = await h.customer('Acme');
    await h.accounts.revokeTokens(c.accountId);
    expect((await request(h.app).get('/callbacks/tests').set(bearer(c.token))).status).toBe(401);
    expect((await request(h.app).get('/callbacks/tests')).status).toBe(401);
  });
});
