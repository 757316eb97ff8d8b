import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { loadConfig } from '../../src/partner/config.js';
import { PARTNER_SECRET_HEADER } from '../../src/contract/decisions.js';
import { signWebhookBody } from '../../src/contract/signature.js';
import { openPartnerDatabase, type PartnerDatabase } from '../../src/partner/db/open.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { DEMO_MIGRATIONS } from '../../src/partner/provider/demo/index.js';
import { main } from '../../src/partner/server.js';
import { freshDatabase, rowOf } from '../support/database.js';
import { eventually } from '../support/eventually.js';

/**
 * The real process wiring (`main`): config → callbacks and webhook receiver → durable tables →
 * background loops → invitation lifecycle → report delivery. Other tests build these parts
 * themselves; this one proves `main` connects them.
 *
 * The loops' poll is an hour here, longer than any wait below: what happens, happens because
 * the part that queued the work woke the loop that does it (a new invitation wakes the starter,
 * a queued e-mail or report update the sender and the delivery, a stored webhook the processor).
 */
const POLL_MS = 3_600_000;
/** Long before the next poll; as long as a busy machine may need. */
const PROMPTLY = { timeoutMs: 120_000 };

describe('the server as main() wires it', () => {
  const secret = 'whsec-test-0123456789abcdef';
  const partnerSecret = 'partner-secret-for-the-wiring-test';
  let dir: string;
  /** A connection of the test's own to the partner's database, as another process would have. */
  let reader: PartnerDatabase;
  let running: Awaited<ReturnType<typeof main>>;
  let platform: Server;
  /** Report updates the platform received: report id and body. */
  const patches: { reportId: string; secret: string | undefined; body: Record<string, unknown> }[] = [];
  let token: string;
  let testId: number;

  beforeAll(async () => {
    // The platform's report endpoint: records each PATCH and accepts it.
    platform = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const m = /^\/api\/p\/demo-assessments\/reports\/([^/]+)$/.exec(req.url ?? '');
        if (req.method !== 'PATCH' || !m) return void res.writeHead(404).end();
        const header = req.headers[PARTNER_SECRET_HEADER.toLowerCase()];
        patches.push({ reportId: m[1]!, secret: typeof header === 'string' ? header : undefined, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));

    dir = mkdtempSync(path.join(tmpdir(), 'kit-wiring-'));
    const settings = await freshDatabase(dir);
    const config = loadConfig({
      PORT: '0',
      ...settings,
      LOG_LEVEL: 'silent',
      WEBHOOK_SECRETS: `1:${secret}`,
      PLATFORM_URL: `http://127.0.0.1:${(platform.address() as AddressInfo).port}`,
      PARTNER_SECRET: partnerSecret,
    });
    const setup = await openPartnerDatabase(config, { provider: DEMO_MIGRATIONS });
    await setup.sql.transaction(async (tx) => {
      const created = await accountStore(tx, systemClock).create('Acme');
      await accountStore(tx, systemClock).bindCompany(created.account, 1);
      token = created.token;
      testId = (await addDemoTests(tx, systemClock, created.account.id, ['JavaScript']))[0]!.id;
    });
    await setup.close();
    running = await main(config, { pollIntervalMs: POLL_MS });
    reader = await openPartnerDatabase(config);
  });
  afterAll(async () => {
    await running?.close();
    await reader?.close();
    platform.closeAllConnections();
    await new Promise((resolve) => platform.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Reads the partner's database through a connection of its own, as another process would. */
  const query = async <T>(sql: string, ...params: unknown[]): Promise<T | undefined> => (await rowOf(reader.sql, sql, ...params)) as T | undefined;
  const invitation = async (reportId: string) =>
    (await query<{ status: string; started_at: string | null }>('SELECT status, started_at FROM invitations WHERE report_id = ?', reportId))!;
  const updatesFor = (reportId: string) => patches.filter((p) => p.reportId === reportId);

  const sendCandidate = async (reportId: string, candidateId: number) => {
    const sent = await fetch(`${running.publicUrl}/callbacks/send_candidate`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com',
        candidate_id: candidateId, company_id: 1, report_id: reportId, test_id: String(testId), test_name: 'JavaScript',
      }),
    });
    expect(sent.status).toBe(201);
  };

  it('when the platform sends a candidate, then the invitation starts, its e-mail goes out and the platform gets its links, without waiting for a poll', async () => {
    const reportId = '5b2d3c4e-8b7d-4c1a-9e2f-5d6c7b8a9e01';
    await sendCandidate(reportId, 18);

    await eventually(async () => expect((await invitation(reportId)).started_at).not.toBeNull(), { what: 'the invitation to start', ...PROMPTLY });
    await eventually(
      async () => expect((await query<{ status: string }>('SELECT status FROM mail_outbox WHERE report_id = ?', reportId))?.status).toBe('sent'),
      { what: 'the invitation e-mail to be sent', ...PROMPTLY },
    );
    const [update] = await eventually(
      () => {
        const received = updatesFor(reportId);
        expect(received).toHaveLength(1);
        return received;
      },
      { what: 'the report update with the links', ...PROMPTLY },
    );
    expect(update!.secret).toBe(partnerSecret);
    expect(update!.body).toMatchObject({ urls: { cancel: `${running.publicUrl}/callbacks/reports/${reportId}/cancel` } });
  });

  it('when the platform disqualifies a candidate by a signed webhook, then the pending invitation is canceled and the platform is told', async () => {
    const reportId = '3f1c2a4e-8b7d-4c1a-9e2f-5d6c7b8a9e0f';
    await sendCandidate(reportId, 17);

    const body = JSON.stringify({
      id: 901,
      attempt_count: 1,
      created_at: '2026-11-22T10:00:00Z',
      event_type: 'candidate_moved',
      event_subtype: 'disqualified',
      payload: {
        candidate: { id: 17, name: 'Ada Lovelace', emails: ['ada@example.com'], phones: [], source: 'manual' },
        company: { id: 1, name: 'Acme Corp' },
        details: { to_stage: { id: 2, name: 'Phone screen', category: 'phone_screen' }, disqualify_reason: { id: 1, name: 'Not a fit' } },
      },
    });
    const unsigned = await fetch(`${running.publicUrl}/webhooks/platform/1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': signWebhookBody('wrong-secret-0123456789', body) },
      body,
    });
    expect(unsigned.status).toBe(401);
    expect((await invitation(reportId)).status).toBe('sent');

    const delivered = await fetch(`${running.publicUrl}/webhooks/platform/1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Service-Webhooks', 'x-service-signature': signWebhookBody(secret, body) },
      body,
    });
    expect(delivered.status).toBe(200);
    await eventually(async () => expect((await invitation(reportId)).status).toBe('canceled'), { what: 'the webhook to cancel the invitation', ...PROMPTLY });
    await eventually(() => expect(updatesFor(reportId).map((u) => u.body.status)).toContain('canceled'), {
      what: 'the canceled report update',
      ...PROMPTLY,
    });
  });
});
