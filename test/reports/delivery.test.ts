import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import request from 'supertest';
import { request as undiciRequest } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { DELIVERY_RETRY } from '../../src/partner/updates/policy.js';
import { ADMIN } from '../invitations/support.js';
import { eventually } from '../support/eventually.js';
import { ACME, attemptRanges, CANDIDATES, deliveryWorld, type DeliveryWorld } from './support.js';
import { settingsOf } from '../../src/partner/config.js';
import { hiringPlatform } from '../../src/partner/platforms/index.js';

const iso = (ms: number) => new Date(ms).toISOString();
const SECOND = 1000;

let world: DeliveryWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Sends a test to a candidate and starts the invitation: the first update (urls) is queued. */
async function sentAndStarted(w: DeliveryWorld, candidateId: number = CANDIDATES[0]) {
  const reportId = await w.send(candidateId);
  await w.partner.startAndMail();
  return reportId;
}

describe('report delivery to the platform', () => {
  it('delivers urls.show and urls.cancel after the start, then the completion: status, score, completed_at, subtitle, properties', async () => {
    world = await deliveryWorld();
    const reportId = await sentAndStarted(world);
    await world.partner.deliverUntilIdle();
    const started = await world.report(reportId);
    expect(started.status).toBe('sent');
    expect(started.urls.show).toMatch(new RegExp(`^${world.partner.publicUrl}/results\\?token=`));
    expect(started.urls.cancel).toBe(`${world.partner.publicUrl}/callbacks/reports/${reportId}/cancel`);

    await world.takeTest(reportId, { minutes: 5 });
    await world.partner.deliverUntilIdle();
    const done = await world.report(reportId);
    expect(done).toMatchObject({
      status: 'completed',
      score: '100%',
      completed_at: iso(world.partner.clock.now()),
      subtitle: 'JavaScript fundamentals: 5 of 5 correct',
      properties: [
        { label: 'Correct answers', value: '5 of 5' },
        { label: 'Pass mark', value: '60%' },
        { label: 'Time taken', value: '5 min' },
      ],
    });
    expect(done.score!.length).toBeLessThanOrEqual(5);
    // The results page the platform links to opens and shows the score.
    const show = await world.partner.http().get(new URL(done.urls.show!).pathname + new URL(done.urls.show!).search);
    expect(show.status).toBe(200);
    expect(show.text).toContain('100%');
    expect(await world.partner.rows('SELECT status, attempts FROM report_updates ORDER BY id')).toEqual([
      { status: 'delivered', attempts: 1 },
      { status: 'delivered', attempts: 1 },
    ]);
  });

  it('when the platform answers 500 twice, then the update is retried after 10 s and 20 s and delivered on the third attempt', async () => {
    world = await deliveryWorld();
    const reportId = await sentAndStarted(world);
    await world.fault({ status: 500, times: 2 });
    const t0 = world.partner.clock.now();
    const rounds = await world.partner.deliverUntilIdle();
    expect(rounds).toEqual([t0, t0 + 10 * SECOND, t0 + 30 * SECOND]);
    expect((await world.partner.updates.attemptsOf(reportId)).map((a) => [a.responseStatus, a.outcome, a.nextAttemptAt])).toEqual([
      [500, 'retry', iso(t0 + 10 * SECOND)],
      [500, 'retry', iso(t0 + 30 * SECOND)],
      [200, 'delivered', null],
    ]);
    expect((await world.report(reportId)).urls.cancel).toBeDefined();
    expect((await world.calls(reportId)).map((c) => c.response_status)).toEqual([500, 500, 200]);
  });

  it('when the platform answers 429 without Retry-After, then the backoff applies', async () => {
    world = await deliveryWorld();
    const reportId = await sentAndStarted(world);
    await world.fault({ status: 429 });
    const t0 = world.partner.clock.now();
    expect(await world.partner.deliverUntilIdle()).toEqual([t0, t0 + 10 * SECOND]);
    expect((await attemptRanges(world, reportId)).map((r) => r[2])).toEqual(['retry', 'delivered']);
  });

  it('when the platform answers 429 with Retry-After (seconds, then an HTTP date), then the next attempts wait exactly that long', async () => {
    const proxy = await retryAfterProxy(['90', 'Sun, 01 Nov 2026 09:10:00 GMT']);
    try {
      world = await deliveryWorld({ platformUrl: (mockUrl) => proxy.through(mockUrl) });
      const reportId = await sentAndStarted(world);
      await world.fault({ status: 429, times: 2 });
      const t0 = world.partner.clock.now(); // 2026-11-01T09:00:00Z
      expect(await world.partner.deliverUntilIdle()).toEqual([t0, t0 + 90 * SECOND, Date.parse('2026-11-01T09:10:00Z')]);
      expect((await world.report(reportId)).urls.show).toBeDefined();
    } finally {
      await proxy.close();
    }
  });

  it('when the platform is slower than the timeout, then the attempt times out, is retried, and the update is delivered', async () => {
    world = await deliveryWorld();
    const reportId = await sentAndStarted(world);
    await world.fault({ delayMs: 1500 });
    await world.partner.deliverUntilIdle();
    const attempts = await world.partner.updates.attemptsOf(reportId);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'delivered']);
    expect(attempts[0]!.error).toMatch(/UND_ERR_HEADERS_TIMEOUT|timed out/);
    expect(attempts[0]!.durationMs).toBeLessThan(1500);
    expect((await world.report(reportId)).urls.show).toBeDefined();
  });

  it('when the platform drops the connection, then the attempt is retried and the update delivered', async () => {
    world = await deliveryWorld();
    const reportId = await sentAndStarted(world);
    await world.fault({ drop: true });
    await world.partner.deliverUntilIdle();
    const attempts = await world.partner.updates.attemptsOf(reportId);
    expect(attempts.map((a) => [a.responseStatus, a.outcome])).toEqual([
      [null, 'retry'],
      [200, 'delivered'],
    ]);
    expect(attempts[0]!.error).toMatch(/UND_ERR_SOCKET|ECONNRESET|other side closed/);
  });

  it('when nothing listens at the platform URL, then it is a connection error to retry, not a dead letter', async () => {
    world = await deliveryWorld({ platformUrl: () => 'http://127.0.0.1:9' });
    const reportId = await sentAndStarted(world);
    expect(await world.partner.worker.runOnce()).toMatchObject({ retried: 1, dead: 0 });
    expect((await world.partner.updates.attemptsOf(reportId))[0]!.error).toMatch(/ECONNREFUSED/);
  });

  describe('dead letters at once', () => {
    it('when the secret is wrong (401), then one attempt and a dead letter; the dashboard shows it', async () => {
      world = await deliveryWorld({ partner: { env: { PARTNER_SECRET: 'not-the-secret' } } });
      const reportId = await sentAndStarted(world);
      const rounds = await world.partner.deliverUntilIdle();
      expect(rounds).toHaveLength(1);
      expect(await world.partner.row('SELECT status, attempts, last_status, last_error FROM report_updates')).toEqual({
        status: 'dead',
        attempts: 1,
        last_status: 401,
        last_error: 'HTTP 401: Invalid partner secret',
      });
      const page = await world.partner
        .http()
        .get('/admin?updates=dead')
        .set('Authorization', `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`);
      expect(page.text).toContain('HTTP 401: Invalid partner secret');
      expect(page.text).toContain(`/admin/reports/${reportId}`);
    });

    it('when the report is unknown to the platform (404), then a dead letter', async () => {
      world = await deliveryWorld();
      // An invitation the platform never created a report for (a test call, another platform).
      const res = await world.partner.send(world.customer.token, {
        first_name: 'No',
        last_name: 'Report',
        email: 'no@example.com',
        candidate_id: 99,
        company_id: ACME.id,
        report_id: '0b6e5c2a-0000-4000-8000-000000000404',
        test_id: String(world.customer.tests[0]!.id),
      });
      expect(res.status).toBe(201);
      await world.partner.startAndMail();
      await world.partner.deliverUntilIdle();
      expect(await world.partner.row('SELECT status, last_status FROM report_updates')).toEqual({ status: 'dead', last_status: 404 });
    });

    it('when the platform refuses the update (422), then a dead letter, and the report\'s next update still goes', async () => {
      world = await deliveryWorld();
      const reportId = await sentAndStarted(world);
      await world.fault({ status: 422 });
      await world.partner.deliverUntilIdle();
      expect(await world.partner.rows('SELECT status FROM report_updates')).toEqual([{ status: 'dead' }]);
      await world.takeTest(reportId);
      await world.partner.deliverUntilIdle();
      expect(await world.partner.rows('SELECT status FROM report_updates ORDER BY id')).toEqual([{ status: 'dead' }, { status: 'delivered' }]);
      expect((await world.report(reportId)).status).toBe('completed');
    });
  });

  it('when the platform fails for three days, then the update is given up; "retry now" later delivers it', async () => {
    world = await deliveryWorld();
    const reportId = await sentAndStarted(world);
    await world.fault({ status: 503, times: 1000 });
    const t0 = world.partner.clock.now();
    const rounds = await world.partner.deliverUntilIdle();
    const last = rounds[rounds.length - 1]!;
    expect(last).toBe(t0 + DELIVERY_RETRY.giveUpAfterMs);
    // Backoff capped at an hour: 10 s … 1 h, then hourly until the give-up time.
    const gaps = rounds.slice(1).map((t, i) => t - rounds[i]!);
    expect(Math.max(...gaps)).toBe(DELIVERY_RETRY.maxMs);
    const row = (await world.partner.row('SELECT status, attempts, last_error FROM report_updates'))!;
    expect(row).toMatchObject({ status: 'dead', attempts: rounds.length });
    expect(row.last_error).toMatch(/^gave up after retrying since .*: HTTP 503/);

    await request(world.mock.url).delete('/_mock/faults').expect(204);
    const id = (await world.partner.row('SELECT id FROM report_updates'))!.id as number;
    expect(await world.partner.updates.retryNow(id)).toBe(true);
    await world.partner.deliverUntilIdle();
    expect(await world.partner.row('SELECT status FROM report_updates')).toEqual({ status: 'delivered' });
    expect((await world.report(reportId)).urls.show).toBeDefined();
  });

  it('when PARTNER_SECRET is not set, then nothing is sent and the updates wait', async () => {
    world = await deliveryWorld({ partner: { env: { PARTNER_SECRET: '' } } });
    await sentAndStarted(world);
    expect(await world.partner.worker.runOnce()).toMatchObject({ delivered: 0, waiting: expect.stringContaining('PARTNER_SECRET') });
    expect(await world.calls()).toEqual([]);
    expect(await world.partner.row('SELECT status, attempts FROM report_updates')).toEqual({ status: 'pending', attempts: 0 });
  });

  it('when the worker is restarted between attempts, then the new process resumes the schedule from the database', async () => {
    world = await deliveryWorld();
    const reportId = await sentAndStarted(world);
    await world.fault({ status: 500 });
    const t0 = world.partner.clock.now();
    await world.partner.worker.runOnce();
    expect(await world.partner.row('SELECT next_attempt_at FROM report_updates')).toEqual({ next_attempt_at: iso(t0 + 10 * SECOND) });

    const { partner } = world;
    await partner.close({ keepFiles: true });
    const { flowHarness } = await import('../invitations/support.js');
    const restarted = await flowHarness({ database: partner.database, platform: { url: world.mock.url, codename: settingsOf(partner.config, hiringPlatform()).codename, secret: world.secret() } });
    try {
      restarted.clock.set(t0 + 9 * SECOND);
      expect(await restarted.worker.runOnce()).toMatchObject({ delivered: 0, retried: 0 });
      restarted.clock.set(t0 + 10 * SECOND);
      expect(await restarted.worker.runOnce()).toMatchObject({ delivered: 1 });
      expect((await world.report(reportId)).urls.show).toBeDefined();
      expect((await world.calls(reportId)).map((c) => c.response_status)).toEqual([500, 200]);
    } finally {
      world.partner = restarted; // afterEach closes it
    }
  });
});

describe('the delivery log', () => {
  it('forgets settled updates and their requests after 30 days, but keeps every report that has a dead letter', async () => {
    world = await deliveryWorld();
    const delivered = await sentAndStarted(world, CANDIDATES[0]);
    await world.partner.deliverUntilIdle();
    await world.fault({ status: 422 });
    const dead = await sentAndStarted(world, CANDIDATES[1]);
    await world.partner.deliverUntilIdle();

    world.partner.clock.advance(29 * 86_400_000);
    await world.partner.worker.runOnce();
    expect(await world.partner.updates.ofReport(delivered)).toHaveLength(1);

    world.partner.clock.advance(2 * 86_400_000);
    await world.partner.worker.runOnce();
    expect(await world.partner.updates.ofReport(delivered)).toEqual([]);
    expect(await world.partner.updates.attemptsOf(delivered)).toEqual([]);
    expect((await world.partner.updates.ofReport(dead)).map((u) => u.status)).toEqual(['dead']);
    expect(await world.partner.updates.attemptsOf(dead)).toHaveLength(1);
  });
});

describe('order of a report\'s updates', () => {
  it('when a newer update is queued while the older one is failing, then both go together and the older never arrives alone after it', async () => {
    world = await deliveryWorld();
    const reportId = await sentAndStarted(world);
    await world.fault({ status: 500 });
    await world.partner.worker.runOnce(); // urls: 500, retry in 10 s
    await world.takeTest(reportId); // completion queued behind it
    await world.partner.deliverUntilIdle();

    expect(await attemptRanges(world, reportId)).toEqual([
      [1, 1, 'retry'],
      [1, 2, 'delivered'],
    ]);
    // What the partner sent (the faulted call is answered before the platform reads its body).
    const bodies = (await world.partner.updates.attemptsOf(reportId)).map((a) => JSON.parse(a.requestBody));
    expect(Object.keys(bodies[0])).toEqual(['urls']);
    expect(bodies[1]).toMatchObject({ status: 'completed', score: '100%', urls: { show: expect.any(String), cancel: expect.any(String) } });
    expect((await world.calls(reportId)).map((c) => c.response_status)).toEqual([500, 200]);
    expect(await world.report(reportId)).toMatchObject({ status: 'completed' });
  });

  it('when an update is queued while a request for the report is in flight, then it waits and goes right after, in order', async () => {
    world = await deliveryWorld();
    const reportId = await sentAndStarted(world);
    await world.fault({ delayMs: 300 }); // below the timeout: the request is slow but answered
    const running = world.partner.worker.runOnce();
    // The mock has taken the fault once the request reached it: the request is in flight now.
    const mock = world.mock.url;
    await eventually(async () => expect((await request(mock).get('/_mock/faults').expect(200)).body.faults).toEqual([]));
    await world.takeTest(reportId);
    expect(await running).toMatchObject({ delivered: 1 });
    // The finish woke the worker's loop: its next run sends the newer update.
    expect(await world.partner.worker.runOnce()).toMatchObject({ delivered: 1 });
    expect(await attemptRanges(world, reportId)).toEqual([
      [1, 1, 'delivered'],
      [2, 2, 'delivered'],
    ]);
    const bodies = (await world.calls(reportId)).map((c) => JSON.parse(c.request_body!));
    expect(bodies.map((b) => b.status ?? null)).toEqual([null, 'completed']);
  });

  it('when an operator revives an old dead letter after a newer update was delivered, then only what the newer one did not set is sent', async () => {
    world = await deliveryWorld();
    const reportId = await sentAndStarted(world);
    await world.fault({ status: 422 });
    await world.partner.deliverUntilIdle(); // update 1 (urls.show + urls.cancel): dead
    await world.takeTest(reportId);
    await world.partner.deliverUntilIdle(); // update 2 (completed, urls.show): delivered
    const showAfterCompletion = (await world.report(reportId)).urls.show;

    expect(await world.partner.updates.retryNow(1)).toBe(true);
    await world.partner.deliverUntilIdle();
    const last = (await world.calls(reportId)).at(-1)!;
    expect(JSON.parse(last.request_body!)).toEqual({ urls: { cancel: `${world.partner.publicUrl}/callbacks/reports/${reportId}/cancel` } });
    const report = await world.report(reportId);
    expect(report.urls.show).toBe(showAfterCompletion);
    expect(report.status).toBe('completed');
  });
});

describe('cancel, both ways', () => {
  it('when the recruiter cancels on the platform, then the partner cancels, PATCHes canceled, and the candidate link stops working', async () => {
    world = await deliveryWorld();
    const reportId = await sentAndStarted(world);
    await world.partner.deliverUntilIdle(); // the platform now has urls.cancel
    const res = await request(world.mock.url).post(`/api/marketplace/c/${ACME.id}/reports/${reportId}/cancel`).expect(202);
    expect(res.body.report.cancel_requested_at).not.toBeNull();
    expect(await world.partner.row('SELECT status, canceled_by FROM invitations')).toEqual({ status: 'canceled', canceled_by: 'platform' });

    await world.partner.deliverUntilIdle();
    expect((await world.report(reportId)).status).toBe('canceled');
    const link = (await world.partner.row('SELECT candidate_url FROM invitations'))!.candidate_url as string;
    expect((await world.partner.http().get(new URL(link).pathname + new URL(link).search)).status).toBe(410);
  });

  it('when the vendor cancels from the dashboard, then the platform\'s report shows canceled', async () => {
    world = await deliveryWorld();
    const reportId = await sentAndStarted(world);
    await world.partner
      .http()
      .post(`/admin/reports/${reportId}/cancel`)
      .set('Authorization', `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`)
      .set('Origin', world.partner.publicUrl)
      .type('form')
      .send({})
      .expect(303);
    await world.partner.deliverUntilIdle();
    expect((await world.report(reportId)).status).toBe('canceled');
    // The urls update and the cancel went out together: one request.
    expect((await world.calls(reportId)).map((c) => JSON.parse(c.request_body!).status)).toEqual(['canceled']);
  });
});

describe('check kinds on the platform', () => {
  it('a background check is completed by the operator after consent; the platform accepts it (no subtitle, no properties)', async () => {
    world = await deliveryWorld({ kind: 'background_check' });
    const reportId = await sentAndStarted(world);
    const token = new URL((await world.partner.row('SELECT candidate_url FROM invitations'))!.candidate_url as string).searchParams.get('token')!;
    await world.partner.http().post('/take').type('form').send({ token, consent: 'yes' }).expect(303);
    await world.partner
      .http()
      .post(`/admin/reports/${reportId}/decide`)
      .set('Authorization', `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`)
      .set('Origin', world.partner.publicUrl)
      .type('form')
      // As the dashboard's confirmation page posts it.
      .send({ decision: 'clear', confirm: 'yes' })
      .expect(303);
    await world.partner.deliverUntilIdle();
    // The links and the result went out together, and the platform took them.
    expect(await world.partner.rows('SELECT status FROM report_updates')).toEqual([{ status: 'delivered' }, { status: 'delivered' }]);
    expect(await attemptRanges(world, reportId)).toEqual([[1, 2, 'delivered']]);
    const sent = JSON.parse((await world.partner.updates.attemptsOf(reportId))[0]!.requestBody);
    expect(sent).not.toHaveProperty('subtitle');
    expect(sent).not.toHaveProperty('properties');
    expect(await world.report(reportId)).toMatchObject({ status: 'completed', score: 'Clear', subtitle: null, properties: [] });
  });
});

/**
 * A pass-through proxy in front of the mock that adds Retry-After to 429 answers, as a real
 * platform would (the mock's fault injection sets no headers).
 */
async function retryAfterProxy(values: string[]) {
  let target = '';
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'rt-partner-secret', 'user-agent', 'accept']) {
      const v = req.headers[name];
      if (typeof v === 'string') headers[name] = v;
    }
    const upstream = await undiciRequest(target + req.url, { method: req.method as 'PATCH', headers, body: Buffer.concat(chunks) });
    const text = await upstream.body.text();
    const out: Record<string, string> = { 'content-type': String(upstream.headers['content-type'] ?? 'application/json') };
    if (upstream.statusCode === 429 && values.length > 0) out['retry-after'] = values.shift()!;
    res.writeHead(upstream.statusCode, out).end(text);
  };
  // A failed forward drops the connection: the partner sees a connection error, as from a real proxy.
  const server: Server = createServer((req, res) => {
    forward(req, res).catch((err: unknown) => res.destroy(err as Error));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    through(mockUrl: string) {
      target = mockUrl;
      return url;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
