import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN } from '../invitations/support.js';
import { ACME, deliveryWorld, type DeliveryWorld } from './support.js';

/**
 * The platform first (updates/policy.ts): a candidate is e-mailed only once the platform has
 * accepted the report's first update, and an invitation whose first update the platform answers
 * 404 is canceled without a word to anyone.
 */
let world: DeliveryWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const mailRows = (w: DeliveryWorld) => w.partner.rows('SELECT report_id, status, sent_at FROM mail_outbox ORDER BY id');
const invitation = (w: DeliveryWorld, reportId: string) =>
  w.partner.row('SELECT status, canceled_by, cancel_reason, platform_accepted_at FROM invitations WHERE report_id = ?', reportId);
const dashboardPage = (w: DeliveryWorld, reportId: string) =>
  w.partner.http().get(`/admin/reports/${reportId}`).auth(ADMIN.username, ADMIN.password).expect(200);

/** A send the platform never acknowledged: the partner stored it, but the platform has no report (it hides a failed send). */
async function sendThePlatformNeverSaw(w: DeliveryWorld): Promise<string> {
  const reportId = '0b6e5c2a-0000-4000-8000-0000000a0404';
  const res = await w.partner.send(w.customer.token, {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    candidate_id: 17,
    company_id: ACME.id,
    report_id: reportId,
    test_id: String(w.customer.tests[0]!.id),
  });
  expect(res.status).toBe(201);
  return reportId;
}

describe('the invitation e-mail waits for the platform to accept the report', () => {
  it('when the platform answers the first update 404 (it does not know the report), then no e-mail is ever sent and the invitation is canceled, the dashboard saying why', async () => {
    world = await deliveryWorld();
    const reportId = await sendThePlatformNeverSaw(world);
    await world.partner.startAndMail();
    await world.partner.deliverUntilIdle();
    expect(await world.partner.sender.runOnce()).toMatchObject({ sent: 0 });

    expect(await world.partner.mails()).toEqual([]);
    expect(await mailRows(world)).toEqual([]);
    expect(await invitation(world, reportId)).toMatchObject({ status: 'canceled', canceled_by: 'platform', platform_accepted_at: null });
    expect((await invitation(world, reportId))!.cancel_reason).toContain('HTTP 404');
    // The platform was told nothing more: it has no report to cancel.
    const calls = await world.calls(reportId);
    expect(calls.map((c) => c.response_status)).toEqual([404]);
    // The candidate's link no longer opens the test.
    const { candidate_url } = (await world.partner.row('SELECT candidate_url FROM invitations WHERE report_id = ?', reportId))!;
    const link = new URL(candidate_url as string);
    expect((await world.partner.http().get(link.pathname + link.search)).text).not.toContain('Start the test');

    const page = await dashboardPage(world, reportId);
    expect(page.text).toContain('The platform does not know this report: it answered HTTP 404');
    expect(page.text).not.toContain('Resend invitation e-mail');
  });

  it('when the platform injects a 404 to the first update of a report it created, then the same: canceled, nothing e-mailed', async () => {
    world = await deliveryWorld();
    const reportId = await world.send();
    await world.fault({ status: 404, times: 1 });
    await world.partner.startAndMail();
    await world.partner.deliverUntilIdle();
    await world.partner.sender.runOnce();
    expect(await world.partner.mails()).toEqual([]);
    expect(await invitation(world, reportId)).toMatchObject({ status: 'canceled', canceled_by: 'platform' });
  });

  it('when the first update fails with 503 and then goes through, then exactly one e-mail, sent after the platform accepted it', async () => {
    world = await deliveryWorld();
    const reportId = await world.send();
    await world.fault({ status: 503, times: 1 });
    await world.partner.startAndMail();
    await world.partner.worker.runOnce();
    expect(await world.partner.rows('SELECT status, last_status FROM report_updates')).toEqual([{ status: 'pending', last_status: 503 }]);
    // The update is retried; the e-mail waits for it.
    expect(await world.partner.sender.runOnce()).toMatchObject({ sent: 0 });
    expect(await world.partner.mails()).toEqual([]);
    expect((await world.partner.row('SELECT count(*) AS n FROM mail_outbox'))!.n).toBe(0);
    const page = await dashboardPage(world, reportId);
    expect(page.text).toContain('the invitation e-mail goes out once the platform has accepted');
    expect(page.text).not.toContain('Resend invitation e-mail');
    // Nor can the operator send it ahead of the platform.
    const resend = await world.partner
      .http()
      .post(`/admin/reports/${reportId}/resend`)
      .auth(ADMIN.username, ADMIN.password)
      .set('Origin', world.partner.publicUrl)
      .type('form')
      .send({});
    expect(resend.headers.location).toBe('/admin?notice=not-resent');
    expect(await world.partner.sender.runOnce()).toMatchObject({ sent: 0 });

    await world.partner.deliverUntilIdle();
    expect(await world.partner.sender.runOnce()).toMatchObject({ sent: 1 });
    expect(await world.partner.sender.runOnce()).toMatchObject({ sent: 0 });
    const mails = await world.partner.mails();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual([{ name: 'Ada Lovelace', address: 'ada@example.com' }]);
    const accepted = (await world.partner.row('SELECT delivered_at FROM report_updates WHERE status = ?', 'delivered'))!.delivered_at as string;
    const [mail] = await mailRows(world);
    expect(mail).toMatchObject({ report_id: reportId, status: 'sent' });
    expect(Date.parse(mail!.sent_at as string)).toBeGreaterThanOrEqual(Date.parse(accepted));
    expect(await invitation(world, reportId)).toMatchObject({ status: 'sent', platform_accepted_at: accepted });
  });

  it('when the platform accepts the first update at once, then one e-mail; a 404 after that (the report deleted since) cancels nothing', async () => {
    world = await deliveryWorld();
    const reportId = await world.send();
    await world.partner.startAndMail();
    expect(await world.partner.mails()).toEqual([]);
    await world.partner.deliverUntilIdle();
    expect(await world.partner.sender.runOnce()).toMatchObject({ sent: 1 });

    await world.takeTest(reportId);
    await world.fault({ status: 404, times: 1 });
    await world.partner.deliverUntilIdle();
    await world.partner.sender.runOnce();
    expect(await world.partner.mails()).toHaveLength(1);
    expect(await invitation(world, reportId)).toMatchObject({ status: 'completed', canceled_by: null, cancel_reason: null });
    expect(await world.partner.rows('SELECT status, last_status FROM report_updates ORDER BY id')).toEqual([
      { status: 'delivered', last_status: 200 },
      { status: 'dead', last_status: 404 },
    ]);
  });
});
