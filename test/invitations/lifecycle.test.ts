import { reportUpdateRequest } from '../../src/partner/platforms/hiring-platform/delivery.js';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flowHarness, linkIn, sendBody, type FlowHarness } from './support.js';

describe('invitation lifecycle', () => {
  let h: FlowHarness;
  let c: Awaited<ReturnType<FlowHarness['customer']>>;
  beforeEach(async () => {
    h = await flowHarness();
    c = await h.customer('Acme Corp', ['JavaScript fundamentals']);
  });
  afterEach(() => h.close());

  /**
   * Makes every insert into mail_outbox fail with "disk full", on either database (a trigger:
   * SQLite's on this connection, PostgreSQL's for every connection of the pool); returns the undo.
   */
  const fillDisk = async (): Promise<() => Promise<void>> => {
    if (h.sql.dialect === 'sqlite') {
      await h.sql.exec(`CREATE TEMP TRIGGER full_disk BEFORE INSERT ON report_updates BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
      return () => h.sql.exec('DROP TRIGGER full_disk');
    }
    await h.sql.exec(`
      CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
      CREATE TRIGGER full_disk BEFORE INSERT ON report_updates FOR EACH ROW EXECUTE FUNCTION full_disk();`);
    return () => h.sql.exec('DROP TRIGGER full_disk ON report_updates; DROP FUNCTION full_disk()');
  };

  const updates = async (reportId: string) =>
    (await h.rows('SELECT body, status FROM report_updates WHERE report_id = ? ORDER BY id', reportId)).map((r) => ({
      status: r.status as string,
      body: JSON.parse(r.body as string),
    }));

  it('when send_candidate answers, then nothing is sent yet: the first update comes after the start, the e-mail once the platform accepted it', async () => {
    const body = sendBody(c.tests[0]!.id);
    expect((await h.send(c.token, body)).status).toBe(201);
    expect(await h.row('SELECT count(*) AS n FROM mail_outbox')).toEqual({ n: 0 });
    expect(await h.row('SELECT count(*) AS n FROM report_updates')).toEqual({ n: 0 });

    expect(await h.starter.runOnce()).toBe(1);
    expect(await h.row('SELECT count(*) AS n FROM mail_outbox')).toEqual({ n: 0 });
    await h.platformAccepts();
    expect(await h.rows('SELECT kind, status FROM mail_outbox WHERE report_id = ?', body.report_id)).toEqual([
      { kind: 'invitation', status: 'pending' },
    ]);
    const [first] = await updates(body.report_id);
    expect(first!.status).toBe('pending');
    // The kit's words: the invitation started, with the results page; the platform's request adds
    // its cancel URL (test/reports/delivery.test.ts).
    expect(Object.keys(first!.body)).toEqual(['started', 'urls', 'at']);
    expect(first!.body.started).toBe(true);
    expect(Object.keys(first!.body.urls!)).toEqual(['show']);
    expect(first!.body.urls!.show).toMatch(new RegExp(`^${h.publicUrl}/results\\?token=`));
    expect(h.wakes()).toBeGreaterThan(0);
  });

  it('when the process stops after the answer and again after the start, then each restart picks up where it was and one e-mail goes out', async () => {
    const body = sendBody(c.tests[0]!.id);
    await h.send(c.token, body);
    await h.close({ keepFiles: true });

    // Restart 1: the invitation row is the queue; it starts and queues its first update.
    let restarted = await flowHarness({ database: h.database });
    expect(await restarted.starter.runOnce()).toBe(1);
    expect(await restarted.mails()).toHaveLength(0);
    await restarted.close({ keepFiles: true });

    // Restart 2: the platform accepts the first update, and the e-mail that queues is sent, once.
    restarted = await flowHarness({ database: h.database });
    await restarted.platformAccepts();
    expect(await restarted.sender.runOnce()).toMatchObject({ sent: 1 });
    expect(await restarted.sender.runOnce()).toMatchObject({ sent: 0 });
    expect(await restarted.starter.runOnce()).toBe(0);
    const mails = await restarted.mails();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to[0]!.address).toBe('ada@example.com');
    expect(mails[0]!.subject).toBe('Acme Corp invites you to take the JavaScript fundamentals test');
    expect(linkIn(mails[0]!.text)).toMatch(/\/take\?token=/);
    await restarted.close();
    rmSync(path.dirname(h.dbFile), { recursive: true, force: true });
    h = await flowHarness(); // for afterEach
  });

  it('when queuing the first update fails inside the start, then the start is rolled back and retried later: nothing half-done', async () => {
    const body = sendBody(c.tests[0]!.id);
    await h.send(c.token, body);
    const emptyDisk = await fillDisk();
    await h.starter.runOnce();
    expect(await h.row('SELECT started_at, start_attempts, start_error FROM invitations')).toEqual({
      started_at: null,
      start_attempts: 1,
      start_error: 'disk full',
    });
    expect(await h.row('SELECT count(*) AS n FROM report_updates')).toEqual({ n: 0 });

    await emptyDisk();
    h.clock.advance(10_000);
    await h.startAndMail();
    expect(await h.row('SELECT CASE WHEN started_at IS NOT NULL THEN 1 ELSE 0 END AS started FROM invitations')).toEqual({ started: 1 });
    expect(await h.mails()).toHaveLength(1);
    expect(await updates(body.report_id)).toHaveLength(1);
  });

  it('when the platform cancels before the e-mail went out, then the e-mail is skipped and one canceled update is queued, also when repeated', async () => {
    const body = sendBody(c.tests[0]!.id);
    await h.send(c.token, body);
    await h.starter.runOnce();
    await h.platformAccepts();
    const cancel = () => h.http().post(`/callbacks/reports/${body.report_id}/cancel`).set('Authorization', `Bearer ${c.token}`);
    expect((await cancel()).status).toBe(200);
    expect((await cancel()).status).toBe(200);

    expect(await h.row('SELECT status, canceled_by FROM invitations')).toEqual({ status: 'canceled', canceled_by: 'platform' });
    expect(await h.sender.runOnce()).toMatchObject({ sent: 0 });
    expect(await h.rows('SELECT status FROM mail_outbox')).toEqual([{ status: 'skipped' }]);
    expect(await h.mails()).toHaveLength(0);
    expect((await updates(body.report_id)).map((u) => u.body)).toEqual([
      { started: true, urls: expect.any(Object), at: new Date(h.clock.now()).toISOString() },
      { status: 'canceled', canceled_by: 'platform', cancel_reason: null, at: new Date(h.clock.now()).toISOString() },
    ]);
  });

  it('when a test is finished twice, then the second finish changes nothing and queues nothing', async () => {
    const body = sendBody(c.tests[0]!.id);
    await h.send(c.token, body);
    await h.starter.runOnce();
    expect(await h.lifecycle.finish(body.report_id, { status: 'completed', score: '80%', subtitle: 's', properties: [] })).toBe(true);
    expect(await h.lifecycle.finish(body.report_id, { status: 'failed', score: '10%' })).toBe(false);
    expect(await h.lifecycle.cancel(body.report_id, 'vendor')).toBe('completed');
    expect(await h.row('SELECT status, score FROM invitations')).toEqual({ status: 'completed', score: '80%' });
    expect(await updates(body.report_id)).toHaveLength(2);
  });

  it('when a provider returns a score longer than the badge shows, then the finish fails whole and the invitation stays open', async () => {
    const body = sendBody(c.tests[0]!.id);
    await h.send(c.token, body);
    await h.starter.runOnce();
    await expect(h.lifecycle.finish(body.report_id, { status: 'completed', score: '100 points' })).rejects.toThrow();
    expect(await h.row('SELECT status, score FROM invitations')).toEqual({ status: 'sent', score: null });
    expect(await updates(body.report_id)).toHaveLength(1);
  });
});

describe('invitation lifecycle for check kinds', () => {
  for (const kind of ['background_check', 'reference_check'] as const) {
    it(`${kind}: a result keeps what the provider returned, and the hiring platform's report update carries no subtitle or properties (§3.2)`, async () => {
      const h = await flowHarness({ kind });
      try {
        const c = await h.customer('Acme', ['Criminal record check']);
        const body = sendBody(c.tests[0]!.id);
        await h.send(c.token, body);
        await h.startAndMail();
        expect((await h.mails())[0]!.subject).toMatch(kind === 'background_check' ? /^Acme requested a background check: / : /^Acme requested a reference check: /);
        await h.lifecycle.finish(body.report_id, {
          status: 'completed',
          score: 'Clear',
          subtitle: 'not for checks',
          properties: [{ label: 'x', value: 'y' }],
        });
        const last = (await h.rows('SELECT body FROM report_updates ORDER BY id DESC LIMIT 1'))[0]!;
        const update = JSON.parse(last.body as string);
        // The kit's update is the whole result: a platform that shows a check's details may.
        expect(update).toMatchObject({ status: 'completed', score: 'Clear', subtitle: 'not for checks', properties: [{ label: 'x', value: 'y' }] });
        expect(await h.row('SELECT subtitle, properties FROM invitations')).toEqual({ subtitle: 'not for checks', properties: '[{"label":"x","value":"y"}]' });
        // The hiring platform's contract refuses them from a check: its PATCH leaves them out.
        const request = reportUpdateRequest(
          { url: 'http://platform.test', codename: 'acme-checks', secret: 's', publicUrl: 'http://partner.test', kind },
          { reportId: body.report_id, accountId: 1, data: {}, credential: async () => undefined },
          update,
        );
        expect(JSON.parse(request!.body!)).toEqual({ status: 'completed', score: 'Clear', completed_at: update.completed_at, urls: update.urls });
      } finally {
        await h.close();
      }
    });
  }
});
