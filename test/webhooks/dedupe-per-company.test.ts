import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { COMPANY, SECRET, envelope, partnerWebhooks, signed, type PartnerWebhooks } from './partner-harness.js';

const OTHER = 2;
const OTHER_SECRET = 'secret-of-company-two-0123456789';

let partner: PartnerWebhooks;
afterEach(() => partner?.close());

const deliver = (companyId: number, body: string, secret: string) =>
  request(partner.app).post(`/webhooks/platform/${companyId}`).set(signed(body, secret)).send(body).expect(200);
const invitation = (reportId: string) => partner.row('SELECT first_name, email, status FROM invitations WHERE report_id = ?', reportId);

/** candidate_deleted as the platform sends it to `companyId`. */
const candidateDeleted = (companyId: number, id: number, candidateId: number) =>
  envelope({
    id,
    companyId,
    event_type: 'candidate_deleted',
    event_subtype: 'manual',
    payload: {
      candidate: { id: candidateId, name: 'Ada Lovelace', emails: ['ada@example.com'], phones: [] },
      company: { id: companyId, name: `Company ${companyId}` },
      offers: [],
    },
  });

describe('webhook events are deduplicated per company', () => {
  it('an event id first used by another company does not suppress this company’s event: both are handled', async () => {
    partner = await partnerWebhooks();
    partner.secrets.set(OTHER, [OTHER_SECRET]);
    const [ours] = await partner.invite(COMPANY, [17]);
    const [theirs] = await partner.invite(OTHER, [17]);

    // A customer who knows its own secret sends an event with the id the platform will give next…
    const first = await deliver(COMPANY, envelope({ id: 5000, companyId: COMPANY }), SECRET);
    expect(first.body).toEqual({ ok: true });
    // …and the other company's genuine event with that id arrives.
    const genuine = await deliver(OTHER, candidateDeleted(OTHER, 5000, 17), OTHER_SECRET);
    expect(genuine.body).toEqual({ ok: true });

    expect(await partner.processor.runOnce()).toBe(2);
    // Company 2's candidate is erased; company 1's candidate of the same id is not.
    expect(await invitation(theirs!)).toEqual({ first_name: '', email: '', status: 'canceled' });
    expect(await invitation(ours!)).toEqual({ first_name: 'Ada', email: 'candidate-17@example.com', status: 'sent' });
    expect(await partner.processor.inbox.find(OTHER, 5000)).toMatchObject({
      companyId: OTHER,
      eventType: 'candidate_deleted',
      status: 'handled',
      outcome: 'erased the personal data of 1 invitation(s); canceled 1 pending',
    });
    expect(await partner.processor.inbox.find(COMPANY, 5000)).toMatchObject({ companyId: COMPANY, eventType: 'offer_published', status: 'handled' });
  });

  it('a redelivery within one company is still a duplicate, answered 200 and handled once', async () => {
    partner = await partnerWebhooks();
    partner.secrets.set(OTHER, [OTHER_SECRET]);
    const [theirs] = await partner.invite(OTHER, [17]);
    const event = candidateDeleted(OTHER, 5001, 17);
    expect((await deliver(OTHER, event, OTHER_SECRET)).body).toEqual({ ok: true });
    expect(await partner.processor.runOnce()).toBe(1);
    expect((await deliver(OTHER, event, OTHER_SECRET)).body).toEqual({ ok: true, duplicate: true });
    expect(await partner.processor.runOnce()).toBe(0);
    expect((await partner.updates.pendingOf(theirs!)).map((u) => u.body)).toEqual([{ status: 'canceled', canceled_by: 'platform', cancel_reason: null, at: expect.any(String) }]);
    expect(await partner.processor.inbox.find(OTHER, 5001)).toMatchObject({ status: 'handled', duplicates: 1 });
    expect(await partner.processor.inbox.list()).toHaveLength(1);
  });

});
