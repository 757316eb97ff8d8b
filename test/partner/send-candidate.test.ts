import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, candidateBody, partnerHarness, reportId, type PartnerHarness } from '../support/partner.js';

describe('send_candidate', () => {
  let h: PartnerHarness;
  let c: Awaited<ReturnType<PartnerHarness['customer']>>;
  beforeEach(async () => {
    h = await partnerHarness();
    c = await h.customer('Acme', ['JavaScript', 'SQL'], 3);
  });
  afterEach(() => h.close());

  const send = (body: object, token = c.token) =>
    request(h.app).post('/callbacks/send_candidate').set(bearer(token)).send(body);
  const invitationRows = () => h.rows('SELECT * FROM invitations');

  it('when a candidate is sent, then it answers 201 {id, status: "sent"} and stores one invitation', async () => {
    const body = candidateBody({ test_id: String(c.testIds[1]), phone: '+1 555 0100' });
    const res = await send(body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: body.report_id, status: 'sent' });
    const rows = await invitationRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      report_id: body.report_id,
      account_id: c.accountId,
      company_id: 3,
      candidate_id: 17,
      test_id: String(c.testIds[1]),
      test_name: 'SQL',
      first_name: 'Ada',
      email: 'ada@example.com',
      phone: '+1 555 0100',
      status: 'sent',
    });
  });

  it('when test_id arrives as a number, then it is compared as a string and accepted', async () => {
    const res = await send(candidateBody({ test_id: c.testIds[0] }));
    expect(res.status).toBe(201);
    expect((await invitationRows())[0]).toMatchObject({ test_id: String(c.testIds[0]) });
  });

  it('when the body carries unknown keys and an admin input, then they are tolerated', async () => {
    const res = await send(
      candidateBody({ test_id: String(c.testIds[0]), shoe_size: 44, admin: { id: 5, name: 'Riley', email: 'r@x.io' } }),
    );
    expect(res.status).toBe(201);
    expect(JSON.parse((await invitationRows())[0]!.extra_inputs as string)).toEqual({ admin: { id: 5, name: 'Riley', email: 'r@x.io' } });
  });

  it('when the same report arrives twice, then the replay gets the same status and body and one invitation exists', async () => {
    const body = candidateBody({ test_id: String(c.testIds[0]) });
    const first = await send(body);
    const second = await send(body);
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
    expect(await invitationRows()).toHaveLength(1);
  });

  it('when a report id already used comes again with a test the account does not have, then 422 "Unknown test" (the test is checked first) and the invitation is untouched', async () => {
    const body = candidateBody({ test_id: String(c.testIds[0]) });
    expect((await send(body)).status).toBe(201);
    const res = await send({ ...body, test_id: '999999' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Unknown test');
    expect(await invitationRows()).toMatchObject([{ report_id: body.report_id, test_id: String(c.testIds[0]), test_name: 'JavaScript' }]);
  });

  it("when a report id already used comes again with another of the account's tests, then 409 and the first invitation is kept", async () => {
    const body = candidateBody({ test_id: String(c.testIds[0]) });
    expect((await send(body)).status).toBe(201);
    const res = await send({ ...body, test_id: String(c.testIds[1]) });
    expect(res.status).toBe(409);
    expect(await invitationRows()).toMatchObject([{ report_id: body.report_id, test_id: String(c.testIds[0]), test_name: 'JavaScript' }]);
  });

  it('when 20 duplicates of one report arrive concurrently, then exactly one invitation exists and all get 201', async () => {
    const server: Server = h.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { port } = server.address() as AddressInfo;
      const body = JSON.stringify(candidateBody({ test_id: String(c.testIds[0]) }));
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`http://127.0.0.1:${port}/callbacks/send_candidate`, {
            method: 'POST',
            headers: { ...bearer(c.token), 'content-type': 'application/json' },
            body,
          }).then(async (r) => ({ status: r.status, body: await r.json() })),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
      expect(new Set(responses.map((r) => JSON.stringify(r.body))).size).toBe(1);
      expect(await invitationRows()).toHaveLength(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it.each([
    ['another candidate', (b: ReturnType<typeof candidateBody>) => ({ ...b, candidate_id: 18 })],
    ['another test', (b: ReturnType<typeof candidateBody>) => ({ ...b, test_id: String(c.testIds[1]) })],
  ])('when a report_id is reused for %s, then it answers 409 and changes nothing', async (_case, change) => {
    const body = candidateBody({ test_id: String(c.testIds[0]) });
    await send(body);
    const res = await send(change(body));
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/report_id/);
    expect(await invitationRows()).toHaveLength(1);
    expect((await invitationRows())[0]).toMatchObject({ candidate_id: 17, test_id: String(c.testIds[0]) });
  });

  it('when company_id is not the company the token is bound to, then it answers 403', async () => {
    const res = await send(candidateBody({ company_id: 4, test_id: String(c.testIds[0]) }));
    expect(res.status).toBe(403);
    expect(await invitationRows()).toHaveLength(0);
  });

  it('when the account has not integrated with any company yet, then it answers 403', async () => {
    const unbound = await h.customer('Unbound', ['JS']);
    const res = await send(candidateBody({ test_id: String(unbound.testIds[0]) }), unbound.token);
    expect(res.status).toBe(403);
  });

  it.each([['999999'], ['abc'], ['01'], [' ']])('when test_id is %j (not a test of the account), then 422 "Unknown test"', async (testId) => {
    const res = await send(candidateBody({ test_id: testId }));
    expect(res.status).toBe(422);
    if (testId.trim()) expect(res.body.error).toBe('Unknown test');
    expect(await invitationRows()).toHaveLength(0);
  });

  it.each([
    ['a missing e-mail', { email: undefined }, 'email'],
    ['an invalid e-mail', { email: 'ada.example.com' }, 'email'],
    ['an empty first name', { first_name: '  ' }, 'first_name'],
    ['a report_id that is not a UUID', { report_id: '42' }, 'report_id'],
    ['a negative candidate id', { candidate_id: -3 }, 'candidate_id'],
    ['a fractional company id', { company_id: 3.5 }, 'company_id'],
    // PostgreSQL cannot store NUL in text: refused here on either database, never a 500 at the insert.
    ['a NUL character in the last name', { last_name: 'Love\u0000lace' }, 'last_name'],
    ['a NUL character in the phone', { phone: '\u0000' }, 'phone'],
  ])('when the body has %s, then it answers 422 naming the field and stores nothing', async (_case, change, field) => {
    const res = await send(candidateBody({ test_id: String(c.testIds[0]), ...change }));
    expect(res.status).toBe(422);
    expect(res.body.error).toContain(field);
    expect(res.body.errors).toHaveProperty(field);
    expect(await invitationRows()).toHaveLength(0);
  });

  it('when the body is an array, then it answers 422', async () => {
    const res = await request(h.app).post('/callbacks/send_candidate').set(bearer(c.token)).send([1, 2]);
    expect(res.status).toBe(422);
  });

  it('when the token is unknown, then it answers 401 before anything is stored', async () => {
    const res = await send(candidateBody({ test_id: String(c.testIds[0]) }), 'ptk_nope');
    expect(res.status).toBe(401);
    expect(await invitationRows()).toHaveLength(0);
  });

  it('when a report id arrives in upper case, then a lower-case replay is the same report', async () => {
    const id = reportId();
    await send(candidateBody({ report_id: id.toUpperCase(), test_id: String(c.testIds[0]) }));
    const replay = await send(candidateBody({ report_id: id, test_id: String(c.testIds[0]) }));
    expect(replay.status).toBe(201);
    expect(await invitationRows()).toHaveLength(1);
  });
});
