import { DEFAULT_JOB_LEASE_MS } from '../../src/partner/jobs/lease.js';
import { arrangeStatus } from '../support/partner.js';
import Database from 'better-sqlite3';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { WEBHOOK_DEDUPE_WINDOW_MS } from '../../src/contract/decisions.js';
import { createLogger } from '../../src/lib/http/logger.js';
import { dollars, ON_POSTGRES } from '../support/database.js';
import { capturedLogger } from '../support/log.js';
import { mailOutbox } from '../../src/partner/mail/outbox.js';
import { createMailer } from '../../src/partner/mail/transport.js';
import { MAX_HANDLER_ATTEMPTS } from '../../src/partner/platforms/hiring-platform/webhooks/processor.js';
import { COMPANY, candidateEvent, envelope, partnerWebhooks, signed, type PartnerWebhooks } from './partner-harness.js';

let partner: PartnerWebhooks;
afterEach(() => partner?.close());

const deliver = async (body: string) => {
  await request(partner.app).post(`/webhooks/platform/${COMPANY}`).set(signed(body)).send(body).expect(200);
};
const invitation = (reportId: string) =>
  partner.row('SELECT first_name, last_name, email, phone, extra_inputs, status, score, candidate_id FROM invitations WHERE report_id = ?', reportId);
const queued = async (reportId: string) => (await partner.updates.pendingOf(reportId)).map((u) => u.body);
const entry = (eventId: number) => partner.processor.inbox.find(COMPANY, eventId);

describe('webhook handlers', () => {
  it('candidate_moved/disqualified cancels the candidate’s pending invitations and queues each report update `canceled`', async () => {
    partner = await partnerWebhooks();
    const [first, second] = await partner.invite(COMPANY, [17, 17]);
    const [other] = await partner.invite(COMPANY, [18]);
    const [otherCompany] = await partner.invite(2, [17]);
    const event = candidateEvent('candidate_moved', 'disqualified', 17, {
      details: { to_stage: { id: 3, name: 'Interview' }, disqualify_reason: { id: 1, name: 'Not a fit' } },
    }, 9001);
    await deliver(event);
    expect((await invitation(first!))!.status).toBe('sent');

    expect(await partner.processor.runOnce()).toBe(1);
    for (const reportId of [first!, second!]) {
      expect((await invitation(reportId))!.status).toBe('canceled');
      expect(await queued(reportId)).toEqual([{ status: 'canceled', canceled_by: 'platform', cancel_reason: null, at: expect.any(String) }]);
    }
    expect((await invitation(other!))!.status).toBe('sent');
    expect((await invitation(otherCompany!))!.status).toBe('sent');
    expect(await queued(other!)).toEqual([]);
    expect(await entry(9001)).toMatchObject({ status: 'handled', outcome: 'disqualified: canceled 2 pending invitation(s)', candidateId: 17 });
    expect(await partner.row('SELECT payload FROM webhook_inbox WHERE event_id = 9001')).toEqual({ payload: null });

    // Redelivered later: nothing happens again.
    await deliver(event);
    expect(await partner.processor.runOnce()).toBe(0);
    expect(await queued(first!)).toEqual([{ status: 'canceled', canceled_by: 'platform', cancel_reason: null, at: expect.any(String) }]);
  });

  it('leaves finished invitations alone when a candidate is disqualified', async () => {
    partner = await partnerWebhooks();
    const [done] = await partner.invite(COMPANY, [17]);
    await arrangeStatus(partner.sql, done!, 'completed');
    await deliver(candidateEvent('candidate_moved', 'disqualified', 17, {}, 9002));
    await partner.processor.runOnce();
    expect((await invitation(done!))!.status).toBe('completed');
    expect(await queued(done!)).toEqual([]);
    expect((await entry(9002))!.outcome).toBe('disqualified: canceled 0 pending invitation(s)');
  });

  it.each([
    ['stage_changed', { from_stage: { id: 1, name: 'Applied' }, to_stage: { id: 3, name: 'Interview' } }, 'moved from Applied to Interview'],
    ['requalified', { to_stage: { id: 3, name: 'Interview' } }, 'requalified into Interview'],
  ])('candidate_moved/%s is recorded and cancels nothing', async (subtype, details, outcome) => {
    partner = await partnerWebhooks();
    const [reportId] = await partner.invite(COMPANY, [17]);
    await deliver(candidateEvent('candidate_moved', subtype, 17, { details }, 9003));
    await partner.processor.runOnce();
    expect((await invitation(reportId!))!.status).toBe('sent');
    expect(await entry(9003)).toMatchObject({ status: 'handled', outcome });
  });

  it('candidate_deleted erases the candidate’s personal data, keeps the rows, and logs it by ids only', async () => {
    const { logger, lines } = capturedLogger();
    partner = await partnerWebhooks({ logger });
    const [p2, f2] = await partner.invite(COMPANY, [17, 17]);
    const [k2] = await partner.invite(COMPANY, [18]);
    await arrangeStatus(partner.sql, f2!, 'completed');
    await partner.sql.run(dollars("UPDATE invitations SET score = '87' WHERE report_id = ?"), [f2!]);
    // An earlier event about the same candidate whose handling was given up still holds its payload.
    await deliver(candidateEvent('new_candidate', 'email', 17, { offers: [] }, 9010));
    await partner.sql.run("UPDATE webhook_inbox SET status = 'failed' WHERE event_id = 9010");

    await deliver(candidateEvent('candidate_deleted', 'manual', 17, { offers: [] }, 9011));
    await partner.processor.runOnce();

    for (const reportId of [p2!, f2!]) {
      expect(await invitation(reportId)).toMatchObject({ first_name: '', last_name: '', email: '', phone: null, extra_inputs: '{}', candidate_id: 17 });
    }
    expect((await invitation(p2!))!.status).toBe('canceled');
    expect(await queued(p2!)).toEqual([{ status: 'canceled', canceled_by: 'platform', cancel_reason: null, at: expect.any(String) }]);
    expect(await invitation(f2!)).toMatchObject({ status: 'completed', score: '87' });
    expect(await invitation(k2!)).toMatchObject({ first_name: 'Ada', email: 'candidate-18@example.com', status: 'sent' });
    expect(await entry(9011)).toMatchObject({
      status: 'handled',
      outcome: 'erased the personal data of 2 invitation(s); canceled 1 pending',
    });
    expect(await partner.rows('SELECT event_id FROM webhook_inbox WHERE payload IS NOT NULL')).toEqual([]);

    const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'erased the personal data of a candidate deleted on the platform');
    expect(line).toMatchObject({ eventId: 9011, companyId: COMPANY, candidateId: 17, invitations: 2, canceled: 1 });
    const all = lines.join('\n');
    for (const personal of ['Ada', 'Lovelace', 'candidate-17@example.com', '+44 20 7946 0000', 'ada@example.com']) {
      expect(all).not.toContain(personal);
    }
  });

  it('candidate_deleted also forgets the e-mails sent to the candidate: recipient, subject and the kept message, in the database', async () => {
    const { logger, lines } = capturedLogger();
    partner = await partnerWebhooks({ logger });
    const [reportId, completed] = await partner.invite(COMPANY, [17, 17]);
    const [other] = await partner.invite(COMPANY, [18]);
    await arrangeStatus(partner.sql, completed!, 'completed');
    const mail = mailOutbox(partner.sql, partner.clock);
    const mailer = createMailer({ transport: 'json', smtpUrl: undefined, from: 'Demo Assessments <no-reply@partner.test>', maxConnections: 1 });
    const sendTo = async (report: string, candidate: number) => {
      const id = await mail.enqueue(partner.sql, report, 'invitation');
      const subject = 'Acme invites you to take the JavaScript test';
      const sent = await mailer.send({
        to: { name: 'Ada Lovelace', address: `candidate-${candidate}@example.com` },
        subject,
        text: 'Hello Ada Lovelace, start here: https://partner.test/take?token=abc',
        html: '<p>Hello Ada Lovelace</p>',
      });
      await mail.markSent(partner.sql, id, { recipient: `candidate-${candidate}@example.com`, subject, ...sent });
      return id;
    };
    const ids = [await sendTo(reportId!, 17), await sendTo(completed!, 17)];
    const kept = await sendTo(other!, 18);
    mailer.close();
    // An e-mail sent through SMTP: its recipient and subject are kept, the message is not.
    const old = await mail.enqueue(partner.sql, completed!, 'invitation');
    await partner.sql.run(dollars("UPDATE mail_outbox SET status = 'sent', recipient = 'candidate-17@example.com', subject = 'Your test, Ada' WHERE id = ?"), [old]);
    expect((await mail.find(ids[0]!))!.message).toContain('candidate-17@example.com');

    await deliver(candidateEvent('candidate_deleted', 'manual', 17, { offers: [] }, 9015));
    await partner.processor.runOnce();

    // Read back from the database file, as anyone with a copy of it would (on PostgreSQL, from the
    // database, on a connection of its own).
    const copy = ON_POSTGRES ? undefined : new Database(partner.db.name, { readonly: true });
    const read = (text: string, ...params: unknown[]) =>
      copy ? Promise.resolve(copy.prepare(text).all(...params) as Record<string, unknown>[]) : partner.rows(text, ...params);
    try {
      const rows = await read('SELECT * FROM mail_outbox WHERE id IN (?, ?, ?) ORDER BY id', ...ids, old);
      expect(rows.map(({ recipient, subject, message, status }) => ({ recipient, subject, message, status }))).toEqual(
        [...ids, old].map(() => ({ recipient: null, subject: null, message: null, status: 'sent' })),
      );
      const left = JSON.stringify([rows, await read('SELECT * FROM invitations WHERE candidate_id = 17')]);
      for (const personal of ['Ada', 'Lovelace', 'candidate-17@example.com']) expect(left).not.toContain(personal);
      // Another candidate's e-mail is untouched.
      const [other18] = (await read('SELECT recipient, message FROM mail_outbox WHERE id = ?', kept)) as { recipient: string; message: string }[];
      expect(other18!.recipient).toBe('candidate-18@example.com');
      expect(JSON.parse(other18!.message)).toMatchObject({ to: [{ name: 'Ada Lovelace', address: 'candidate-18@example.com' }] });
    } finally {
      copy?.close();
    }
    const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'erased the personal data of a candidate deleted on the platform');
    expect(line).toMatchObject({ eventId: 9015, invitations: 2, mails: 3 });
    expect(lines.join('\n')).not.toContain('candidate-17@example.com');
  });

  it('an event for a company no account is bound to is recorded and changes nothing', async () => {
    partner = await partnerWebhooks();
    const [elsewhere] = await partner.invite(2, [17]);
    await deliver(candidateEvent('candidate_deleted', 'manual', 17, { offers: [] }, 9020));
    await partner.processor.runOnce();
    expect(await invitation(elsewhere!)).toMatchObject({ first_name: 'Ada', status: 'sent' });
    expect(await entry(9020)).toMatchObject({ status: 'handled', outcome: 'erased the personal data of 0 invitation(s); canceled 0 pending' });
  });

  it.each([
    ['new_candidate', 'career_site'],
    ['candidate_assigned', 'manual'],
    ['offer_published', 'manual'],
    ['offer_unpublished', 'manual'],
    ['offer_updated', 'tags_changed'],
    ['candidate_hired', 'manual'],
  ])('%s is recorded for the dashboard, without its payload', async (eventType, eventSubtype) => {
    partner = await partnerWebhooks();
    const [reportId] = await partner.invite(COMPANY, [17]);
    await deliver(envelope({ id: 9030, event_type: eventType, event_subtype: eventSubtype }));
    await partner.processor.runOnce();
    expect(await partner.processor.inbox.list({ companyId: COMPANY })).toEqual([
      expect.objectContaining({ eventId: 9030, eventType, eventSubtype, status: 'handled', outcome: `recorded (${eventSubtype})`, offerId: 101 }),
    ]);
    expect((await invitation(reportId!))!.status).toBe('sent');
  });

  it('retries a failing handler with growing delays and gives up after the last attempt', async () => {
    let calls = 0;
    partner = await partnerWebhooks({
      handlers: {
        offer_published: () => {
          calls += 1;
          throw new Error('product API down');
        },
      },
    });
    await deliver(envelope({ id: 9040 }));
    const nextAt = async () => Date.parse((await entry(9040))!.nextAttemptAt!) - partner.clock.now();
    await partner.processor.runOnce();
    const delays = [await nextAt()];
    for (let i = 2; i < MAX_HANDLER_ATTEMPTS; i++) {
      partner.clock.advance(delays.at(-1)!);
      await partner.processor.runOnce();
      delays.push(await nextAt());
    }
    // Each wait is at least as long as the one before (exponential with jitter, 30 s up to an hour).
    expect(delays[0]).toBeGreaterThanOrEqual(15_000);
    expect(delays.at(-1)!).toBeLessThanOrEqual(60 * 60_000);
    for (let i = 1; i < delays.length; i++) expect(delays[i]! * 2).toBeGreaterThan(delays[i - 1]!);
    partner.clock.advance(delays.at(-1)!);
    await partner.processor.runOnce();
    expect(calls).toBe(MAX_HANDLER_ATTEMPTS);
    expect(await entry(9040)).toMatchObject({ status: 'failed', attempts: MAX_HANDLER_ATTEMPTS, lastError: 'product API down', nextAttemptAt: null });
    partner.clock.advance(24 * 60 * 60_000);
    await partner.processor.runOnce();
    expect(calls).toBe(MAX_HANDLER_ATTEMPTS);
  });

  it('gives up at once on a payload the handler cannot read', async () => {
    partner = await partnerWebhooks();
    await deliver(envelope({ id: 9050, event_type: 'candidate_deleted', event_subtype: 'manual', payload: { company: { id: COMPANY, name: 'Acme' } } }));
    await partner.processor.runOnce();
    expect(await entry(9050)).toMatchObject({ status: 'failed', attempts: 1, lastError: 'payload: candidate must be an object with the candidate id' });
  });

  it('remembers event ids for the dedupe window, then forgets them', async () => {
    partner = await partnerWebhooks();
    const body = envelope({ id: 9060 });
    await deliver(body);
    await partner.processor.runOnce();
    partner.clock.advance(WEBHOOK_DEDUPE_WINDOW_MS - 1);
    await partner.processor.runOnce();
    await deliver(body);
    expect(await entry(9060)).toMatchObject({ status: 'handled', duplicates: 1 });
    partner.clock.advance(2);
    await partner.processor.runOnce();
    expect(await entry(9060)).toBeUndefined();
  });

  it('an event claimed by an instance that died in its handler is handled by another once JOB_LEASE_SECONDS has run out, not before', async () => {
    partner = await partnerWebhooks();
    const [reportId] = await partner.invite(COMPANY, [17]);
    await deliver(candidateEvent('candidate_moved', 'disqualified', 17, {}, 9080));
    // The instance that died had claimed it, and recorded nothing.
    const [event] = await partner.processor.inbox.due(10);
    expect(await partner.processor.inbox.claim(event!, partner.clock.now() + DEFAULT_JOB_LEASE_MS)).toBe(true);
    expect(await partner.processor.runOnce()).toBe(0);
    partner.clock.advance(DEFAULT_JOB_LEASE_MS - 1);
    expect(await partner.processor.runOnce()).toBe(0);
    partner.clock.advance(1);
    expect(await partner.processor.runOnce()).toBe(1);
    expect((await invitation(reportId!))!.status).toBe('canceled');
    expect(await entry(9080)).toMatchObject({ status: 'handled', attempts: 2 });
  });

  it('handles what a previous process stored but never handled', async () => {
    partner = await partnerWebhooks();
    const [reportId] = await partner.invite(COMPANY, [17]);
    await deliver(candidateEvent('candidate_moved', 'disqualified', 17, {}, 9070));
    // A new processor over the same database, as after a restart.
    const { webhookProcessor } = await import('../../src/partner/platforms/hiring-platform/webhooks/processor.js');
    const { invitationLifecycle } = await import('../../src/partner/invitations/lifecycle.js');
    const { mailOutbox } = await import('../../src/partner/mail/outbox.js');
    const lifecycle = invitationLifecycle({ sql: partner.sql, clock: partner.clock, updates: partner.updates, mail: mailOutbox(partner.sql, partner.clock) });
    const restarted = webhookProcessor({
      sql: partner.sql,
      clock: partner.clock,
      logger: createLogger('silent'),
      cancelInvitation: (id) => lifecycle.cancel(id, 'platform'),
      leaseMs: DEFAULT_JOB_LEASE_MS,
    });
    expect(await restarted.runOnce()).toBe(1);
    expect((await invitation(reportId!))!.status).toBe('canceled');
  });
});
