import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/http/logger.js';
import { capturedLogger } from '../support/log.js';
import { invitationLifecycle } from '../../src/partner/invitations/lifecycle.js';
import { invitationStarter } from '../../src/partner/invitations/starter.js';
import { mailOutbox } from '../../src/partner/mail/outbox.js';
import { updateOutbox } from '../../src/partner/updates/outbox.js';
import type { Provider } from '../../src/partner/provider/types.js';
import { arrangeStatus, bearer, candidateBody, demoOn, partnerHarness, type PartnerHarness } from '../support/partner.js';

describe('invitation starter', () => {
  let h: PartnerHarness;
  let failuresLeft: number;
  let startCalls: string[];
  beforeEach(async () => {
    failuresLeft = 0;
    startCalls = [];
    h = await partnerHarness({
      provider: async (sql): Promise<Provider> => {
        const demo = await demoOn(sql);
        return {
          ...demo,
          async startInvitation(invitation) {
            startCalls.push(invitation.reportId);
            if (failuresLeft > 0) {
              failuresLeft -= 1;
              throw new Error('vendor API unavailable');
            }
            return demo.startInvitation(invitation);
          },
        };
      },
    });
  });
  afterEach(() => h.close());

  const links = { resultsUrl: (id: string) => `http://partner.test/results/${id}` };
  const starter = (overrides: Partial<Parameters<typeof invitationStarter>[0]> = {}) => {
    const lifecycle = invitationLifecycle({
      sql: h.sql,
      clock: h.clock,
      updates: updateOutbox(h.sql, h.clock),
      mail: mailOutbox(h.sql, h.clock),
      links,
    });
    return invitationStarter({
      sql: h.sql,
      invitations: h.invitations,
      provider: h.provider,
      clock: h.clock,
      logger: createLogger('silent'),
      random: () => 1,
      markStarted: (invitation, url, tx) => lifecycle.start(invitation, url, tx),
      leaseMs: 60_000,
      ...overrides,
    });
  };
  const row = async (id: string) => (await h.row('SELECT started_at, candidate_url, start_attempts, start_error FROM invitations WHERE report_id = ?', id))!;

  async function sendOne() {
    const c = await h.customer('Acme', ['JS'], 3);
    const body = candidateBody({ test_id: String(c.testIds[0]) });
    expect((await request(h.app).post('/callbacks/send_candidate').set(bearer(c.token)).send(body)).status).toBe(201);
    return body.report_id;
  }

  /** The database as the starter sees it, counting the transactions it opens. */
  const countingTransactions = () => {
    const counted = { transactions: 0 };
    const sql = {
      ...h.sql,
      transaction: <T>(fn: Parameters<typeof h.sql.transaction<T>>[0]) => {
        counted.transactions += 1;
        return h.sql.transaction(fn);
      },
    };
    return { sql, counted };
  };

  it('when several invitations are due, then their starts are recorded in one transaction', async () => {
    const ids = [await sendOne(), await sendOne(), await sendOne()];
    const { sql, counted } = countingTransactions();

    expect(await starter({ sql }).runOnce()).toBe(3);

    expect(counted.transactions).toBe(1);
    for (const id of ids) expect((await row(id)).started_at).not.toBeNull();
    expect((await h.rows('SELECT report_id FROM report_updates ORDER BY id')).map((u) => u.report_id)).toEqual(ids);
  });

  it('when one start of a batch fails to record, then it does not undo the others', async () => {
    const ids = [await sendOne(), await sendOne(), await sendOne()];
    const lifecycle = invitationLifecycle({ sql: h.sql, clock: h.clock, updates: updateOutbox(h.sql, h.clock), mail: mailOutbox(h.sql, h.clock), links });
    const { logger, entries } = capturedLogger();
    const s = starter({
      logger,
      markStarted: async (invitation, url, tx) => {
        if (invitation.reportId === ids[1]) throw new Error('report update refused');
        return lifecycle.start(invitation, url, tx);
      },
    });

    expect(await s.runOnce()).toBe(3);

    expect((await row(ids[0]!)).started_at).not.toBeNull();
    expect((await row(ids[2]!)).started_at).not.toBeNull();
    expect(await row(ids[1]!)).toMatchObject({ started_at: null, start_attempts: 1, start_error: 'report update refused' });
    // The recorded starts queued their first updates; the failed one queued nothing.
    const updates = (await h.rows('SELECT report_id FROM report_updates ORDER BY id')).map((u) => u.report_id);
    expect(updates).toEqual([ids[0], ids[2]]);
    // One line for the batch's starts, naming each; the failure has a line of its own.
    expect(entries().map((e) => [e.level, e.msg, e.reportIds ?? e.reportId])).toEqual([
      ['warn', 'invitation start failed', ids[1]],
      ['info', '2 invitations started', [ids[0], ids[2]]],
    ]);
  });

  it('when the provider is slow, then the starts it already made are recorded without waiting for the rest of the batch', async () => {
    const ids = [await sendOne(), await sendOne(), await sendOne()];
    const recordedBeforeLastCall: boolean[] = [];
    const s = starter({
      provider: {
        ...h.provider,
        async startInvitation(invitation) {
          if (invitation.reportId === ids[2]) recordedBeforeLastCall.push((await row(ids[0]!)).started_at !== null);
          await new Promise((resolve) => setTimeout(resolve, 120));
          return { candidateUrl: `http://partner.test/take/${invitation.reportId}` };
        },
      },
    });

    await s.runOnce();

    expect(recordedBeforeLastCall).toEqual([true]);
    for (const id of ids) expect((await row(id)).started_at).not.toBeNull();
  });

  it('when an invitation was stored and the process restarted before it started, then the next run starts it once', async () => {
    const id = await sendOne();
    expect((await row(id)).started_at).toBeNull();
    // A new starter, as after a restart: it finds the invitation in the table.
    expect(await starter().runOnce()).toBe(1);
    expect(await row(id)).toMatchObject({ candidate_url: `http://partner.test/take/${id}`, start_error: null });
    expect((await row(id)).started_at).not.toBeNull();
    expect(await starter().runOnce()).toBe(0);
    expect(startCalls).toEqual([id]);
  });

  it('when the provider fails, then the start is retried after a backoff and succeeds later', async () => {
    const id = await sendOne();
    failuresLeft = 2;
    const s = starter();
    await s.runOnce();
    expect(await row(id)).toMatchObject({ start_attempts: 1, start_error: 'vendor API unavailable', started_at: null });
    expect(await s.runOnce()).toBe(0); // not due yet
    h.clock.advance(10_000);
    await s.runOnce();
    expect(await row(id)).toMatchObject({ start_attempts: 2, started_at: null });
    h.clock.advance(19_999);
    expect(await s.runOnce()).toBe(0); // the second backoff is twice the first
    h.clock.advance(1);
    await s.runOnce();
    expect((await row(id)).started_at).not.toBeNull();
    expect(startCalls).toEqual([id, id, id]);
  });

  it('when an invitation is canceled before it started, then it is never started', async () => {
    const id = await sendOne();
    await arrangeStatus(h.sql, id, 'canceled');
    expect(await starter().runOnce()).toBe(0);
    expect(startCalls).toEqual([]);
  });
});
