import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookHandler } from '../../src/partner/platforms/hiring-platform/webhooks/handlers/index.js';
import { COMPANY, candidateEvent, envelope, partnerWebhooks, signed, type PartnerWebhooks } from './partner-harness.js';

/**
 * The hiring platform's webhooks act only on the invitations that platform sent, for the accounts
 * bound to the event's company: a Greenhouse interview of the same customer, even one carrying the
 * same company and candidate numbers, and another company's report are not theirs to cancel or
 * erase. To a handler's cancel they are 'unknown', as an id that exists nowhere.
 */
let partner: PartnerWebhooks;
afterEach(() => partner?.close());

const deliver = async (body: string) => {
  await request(partner.app).post(`/webhooks/platform/${COMPANY}`).set(signed(body)).send(body).expect(200);
};
const invitation = (reportId: string) => partner.row('SELECT status, canceled_by, first_name, email, updated_at FROM invitations WHERE report_id = ?', reportId);
const queued = async (reportId: string) => (await partner.updates.pendingOf(reportId)).map((u) => u.body);

/**
 * A hiring-platform report of candidate 17 at COMPANY, and a Greenhouse interview of the same
 * account arranged with the same numbers (Greenhouse's own carry none: the numbers are what a
 * careless filter would match on); and another company's report.
 */
async function arrange() {
  const [ours] = await partner.invite(COMPANY, [17]);
  const { account_id: accountId } = (await partner.row('SELECT account_id FROM invitations WHERE report_id = ?', ours!))!;
  const greenhouse = '5b0f8c1e-2f4a-4c6e-9d3b-0123456789ab';
  await partner.invitations.create({
    reportId: greenhouse,
    accountId: Number(accountId),
    companyId: COMPANY,
    candidateId: 17,
    testId: '1',
    testName: 'JavaScript',
    firstName: 'Harry',
    lastName: 'Potter',
    email: 'hpotter@hogwarts.edu',
    phone: null,
    extraInputs: {},
    platform: 'greenhouse',
    platformData: { url: 'https://app.greenhouse.io/v1/partner/interviews/1' },
  });
  const [otherCompany] = await partner.invite(COMPANY + 1, [17]);
  return { ours: ours!, greenhouse, otherCompany: otherCompany! };
}

describe("the hiring platform's webhooks and other platforms' invitations", () => {
  it("a handler's cancel: 'unknown' for a Greenhouse interview and for another company's report, which stay as they were; 'canceled' for the platform's own", async () => {
    const outcomes: Record<string, string> = {};
    // The ids are arranged once the partner (and its handler) exist.
    const arranged: { ids?: Awaited<ReturnType<typeof arrange>> } = {};
    const handler: WebhookHandler = async (_event, ctx) => {
      for (const [name, reportId] of Object.entries(arranged.ids!)) outcomes[name] = await ctx.cancelInvitation(reportId);
      outcomes.nowhere = await ctx.cancelInvitation('7d0c8f0e-0f6b-4c55-9a53-0000deadbeef');
      return 'done';
    };
    partner = await partnerWebhooks({ handlers: { offer_published: handler } });
    const ids = (arranged.ids = await arrange());
    const before = { greenhouse: await invitation(ids.greenhouse), otherCompany: await invitation(ids.otherCompany) };

    await deliver(envelope({ id: 9501 }));
    expect(await partner.processor.runOnce()).toBe(1);

    expect(outcomes).toEqual({ ours: 'canceled', greenhouse: 'unknown', otherCompany: 'unknown', nowhere: 'unknown' });
    expect(await invitation(ids.greenhouse)).toEqual(before.greenhouse);
    expect(await invitation(ids.otherCompany)).toEqual(before.otherCompany);
    expect(await queued(ids.greenhouse)).toEqual([]);
    expect(await queued(ids.otherCompany)).toEqual([]);
    expect((await invitation(ids.ours))!.status).toBe('canceled');
  });

  it('candidate_moved/disqualified cancels the platform’s report of the candidate, not a Greenhouse interview with the same numbers', async () => {
    partner = await partnerWebhooks();
    const ids = await arrange();
    const before = await invitation(ids.greenhouse);

    await deliver(candidateEvent('candidate_moved', 'disqualified', 17, {}, 9502));
    await partner.processor.runOnce();

    expect((await invitation(ids.ours))!.status).toBe('canceled');
    expect(await invitation(ids.greenhouse)).toEqual(before);
    expect(await queued(ids.greenhouse)).toEqual([]);
    expect((await partner.processor.inbox.find(COMPANY, 9502))!.outcome).toBe('disqualified: canceled 1 pending invitation(s)');
  });

  it('candidate_deleted erases and cancels the platform’s report of the candidate, not a Greenhouse interview with the same numbers', async () => {
    partner = await partnerWebhooks();
    const ids = await arrange();
    const before = await invitation(ids.greenhouse);

    await deliver(candidateEvent('candidate_deleted', 'manual', 17, {}, 9503));
    await partner.processor.runOnce();

    expect(await invitation(ids.ours)).toMatchObject({ status: 'canceled', first_name: '', email: '' });
    expect(await invitation(ids.greenhouse)).toEqual(before);
    expect(await queued(ids.greenhouse)).toEqual([]);
    expect((await partner.processor.inbox.find(COMPANY, 9503))!.outcome).toBe('erased the personal data of 1 invitation(s); canceled 1 pending');
  });
});
