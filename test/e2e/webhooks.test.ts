import { DEFAULT_JOB_LEASE_MS } from '../../src/partner/jobs/lease.js';
import express from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { loadConfig } from '../../src/partner/config.js';
import { openPartnerDatabase } from '../../src/partner/db/open.js';
import { createLogger } from '../../src/lib/http/logger.js';
import { errorHandler } from '../../src/lib/http/error-handler.js';
import { backgroundLoop } from '../../src/partner/jobs/loop.js';
import { createMailer } from '../../src/partner/mail/transport.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { deliveryAgent } from '../../src/partner/updates/worker.js';
import { assemble } from '../../src/partner/assemble.js';
import { demoProvider } from '../../src/partner/provider/demo/index.js';
import { webhookProcessor } from '../../src/partner/platforms/hiring-platform/webhooks/processor.js';
import { registerWebhookReceiver } from '../../src/partner/platforms/hiring-platform/webhooks/receiver.js';
import { DEFAULT_MANIFEST, loadManifest, registerPartner } from '../../scripts/register-partner.js';
import { freshDatabase, rowOf } from '../support/database.js';
import { eventually } from '../support/eventually.js';

const ACME = { id: 1, token: 'mock_api_acme' };
const RILEY = 1;
const ADA = 17;
const BACKEND_OFFER = 101;
const CODENAME = 'demo-assessments';

/**
 * The partner wired as the server wires it: the kit's app and workers (`assemble`), with the webhook
 * receiver in front and the webhook processor and report delivery running as background loops.
 * Listens first, so the partner registers itself with the URL it really has.
 */
async function startPartnerWithWebhooks(mock: RunningMockPlatform) {
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-e2e-webhooks-'));
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const registered = await registerPartner({
    platformUrl: mock.url,
    codename: CODENAME,
    companyId: ACME.id,
    apiToken: ACME.token,
    partner: loadManifest(DEFAULT_MANIFEST, url),
  });
  if (!registered.ok) throw new Error(`registration failed: ${registered.message}`);

  const config = loadConfig({
    ...(await freshDatabase(dir)),
    PORT: '0',
    LOG_LEVEL: 'silent',
    PUBLIC_URL: url,
    PLATFORM_URL: mock.url,
    PARTNER_CODENAME: CODENAME,
    PARTNER_SECRET: registered.partner.secret,
  });
  const database = await openPartnerDatabase(config);
  const { sql } = database;
  const logger = createLogger('silent');
  const mailer = createMailer(config.mail);
  const dispatcher = deliveryAgent();
  const webhookSecrets = new Map<number, string[]>();

  const parts = await assemble(config, {
    sql,
    logger,
    clock: systemClock,
    publicUrl: url,
    mailer,
    dispatcher,
    provider: demoProvider(),
    wake: () => deliveries.kick(),
  });
  const processor = webhookProcessor({
    sql,
    clock: systemClock,
    logger,
    cancelInvitation: (reportId) => parts.lifecycle.cancel(reportId, 'platform'),
    leaseMs: DEFAULT_JOB_LEASE_MS,
  });
  const webhooks = backgroundLoop('webhook processor', () => processor.runOnce(), { logger, intervalMs: 200 });
  const deliveries = backgroundLoop('report delivery', () => parts.worker.runOnce(), { logger, intervalMs: 200 });

  const app = express();
  registerWebhookReceiver(app, {
    sql,
    clock: systemClock,
    logger,
    secrets: (companyId) => webhookSecrets.get(companyId) ?? [],
    bodyLimitBytes: 256 * 1024,
    onStored: () => webhooks.kick(),
  });
  app.use(parts.app);
  app.use(errorHandler(logger));
  server.on('request', app);

  const accounts = accountStore(sql, systemClock);
  return {
    url,
    sql,
    processor,
    webhookSecrets,
    async customer(name: string, tests: string[]) {
      return sql.transaction(async (tx) => {
        const { account, token } = await accounts.create(name, tx);
        return { accountId: account.id, token, tests: await addDemoTests(tx, systemClock, account.id, tests) };
      });
    },
    async close() {
      parts.worker.stop();
      await Promise.all([webhooks.stop(), deliveries.stop()]);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      mailer.close();
      await dispatcher.close();
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let mock: RunningMockPlatform | undefined;
let partner: Awaited<ReturnType<typeof startPartnerWithWebhooks>> | undefined;
afterEach(async () => {
  await partner?.close();
  await mock?.close();
  partner = undefined;
  mock = undefined;
});

describe('webhooks end to end, two real servers', () => {
  it('disqualifying a candidate on the platform cancels the partner’s pending invitation, and the report shows canceled on the platform', async () => {
    mock = await startMockPlatform({ port: 0, logLevel: 'silent' });
    partner = await startPartnerWithWebhooks(mock);
    const platform = request(mock.url);

    // The recruiter integrates Acme with the customer's token and sends Ada a test.
    const customer = await partner.customer('Acme Corp', ['JavaScript']);
    await platform.post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/integration`).send({ token: customer.token }).expect(201);
    const sent = await platform
      .post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/send`)
      .send({ candidate_id: ADA, test_id: customer.tests[0]!.id, test_name: 'JavaScript' })
      .expect(201);
    const reportId = sent.body.report.id as string;
    const invitationStatus = () => rowOf(partner!.sql, 'SELECT status, canceled_by FROM invitations WHERE report_id = ?', reportId);
    expect(await invitationStatus()).toEqual({ status: 'sent', canceled_by: null });

    // Acme's webhook manager points a webhook at the partner; the partner answers the test request
    // before it knows the secret, then is given it.
    const created = await platform
      .post(`/api/webhooks/c/${ACME.id}/configurations`)
      .set('x-mock-user', String(RILEY))
      .send({ name: 'Demo Assessments', url: `${partner.url}/webhooks/platform/${ACME.id}`, events: ['candidate_moved', 'candidate_deleted'] })
      .expect(201);
    partner.webhookSecrets.set(ACME.id, [created.body.webhook.secret as string]);

    // The recruiter disqualifies Ada.
    await platform.post(`/api/pipeline/c/${ACME.id}/candidates/${ADA}/placements/${BACKEND_OFFER}/disqualify`).send({ reason_id: 1 }).expect(200);

    const report = await eventually(
      async () => {
        const res = await platform.get(`/api/marketplace/c/${ACME.id}/reports/${reportId}`).expect(200);
        expect(res.body.report.status).toBe('canceled');
        return res.body.report;
      },
      { what: 'the report to be canceled on the platform' },
    );
    expect(report).toMatchObject({ id: reportId, status: 'canceled', candidate_id: ADA });
    expect(await invitationStatus()).toEqual({ status: 'canceled', canceled_by: 'platform' });

    // What each side recorded: one delivery, answered 200 on the first attempt; one handled event.
    const deliveries = await platform.get(`/api/webhooks/c/${ACME.id}/deliveries`).set('x-mock-user', String(RILEY)).expect(200);
    expect(deliveries.body.deliveries).toMatchObject([
      { event_type: 'candidate_moved', event_subtype: 'disqualified', status: 'delivered', attempt_count: 1 },
    ]);
    const [entry] = await partner.processor.inbox.list({ companyId: ACME.id });
    expect(entry).toMatchObject({
      eventId: deliveries.body.deliveries[0].event_id,
      eventType: 'candidate_moved',
      eventSubtype: 'disqualified',
      candidateId: ADA,
      status: 'handled',
      outcome: 'disqualified: canceled 1 pending invitation(s)',
    });
    const patches = await platform.get(`/_mock/calls?direction=inbound&endpoint=reports.update&report_id=${reportId}`).expect(200);
    expect(patches.body.calls.map((c: { response_status: number; request_body: string }) => [c.response_status, JSON.parse(c.request_body)])).toContainEqual([
      200,
      { status: 'canceled' },
    ]);
  });

  it('a webhook the partner cannot verify yet is retried by the platform until the partner has the secret', async () => {
    mock = await startMockPlatform({ port: 0, logLevel: 'silent', webhookWorker: false });
    partner = await startPartnerWithWebhooks(mock);
    const platform = request(mock.url);
    await platform
      .post(`/api/webhooks/c/${ACME.id}/configurations`)
      .set('x-mock-user', String(RILEY))
      .send({ name: 'Demo Assessments', url: `${partner.url}/webhooks/platform/${ACME.id}`, events: ['candidate_deleted'] })
      .expect(201);
    await platform.delete(`/api/pipeline/c/${ACME.id}/candidates/19`).expect(204);

    await mock.webhooks.deliverer.runOnce();
    const log = async () =>
      (await platform.get(`/api/webhooks/c/${ACME.id}/requests?kind=event`).set('x-mock-user', String(RILEY)).expect(200)).body.requests;
    expect(await log()).toMatchObject([{ attempt_count: 1, response_status: 401, response_body: '{"error":"Invalid signature"}' }]);

    const [configuration] = (await platform.get(`/api/webhooks/c/${ACME.id}/configurations`).set('x-mock-user', String(RILEY)).expect(200)).body.webhooks;
    partner.webhookSecrets.set(ACME.id, [configuration.secret]);
    const [delivery] = (await platform.get(`/api/webhooks/c/${ACME.id}/deliveries`).set('x-mock-user', String(RILEY)).expect(200)).body.deliveries;
    await platform.post(`/api/webhooks/c/${ACME.id}/deliveries/${delivery.id}/retry`).set('x-mock-user', String(RILEY)).expect(202);
    await mock.webhooks.deliverer.runOnce();
    expect((await log())[0]).toMatchObject({ attempt_count: 2, response_status: 200 });
    await eventually(async () => expect((await partner!.processor.inbox.find(ACME.id, delivery.event_id))?.status).toBe('handled'), { what: 'the event to be handled' });
  });
});
