import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { loadConfig } from '../../src/partner/config.js';
import { signWebhookBody } from '../../src/contract/signature.js';
import { openDb } from '../../src/partner/db/open.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { main } from '../../src/partner/server.js';

/**
 * The real process wiring (`main`): config → webhook receiver → durable inbox → processor loop →
 * invitation lifecycle. Other tests build these parts themselves; this one proves `main` connects them.
 */
describe('the server as main() wires it', () => {
  const secret = 'whsec-test-0123456789abcdef';
  let dir: string;
  let running: Awaited<ReturnType<typeof main>>;
  let token: string;
  let testId: number;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kit-wiring-'));
    const dbFile = path.join(dir, 'partner.db');
    const setup = openDb(dbFile);
    const created = accountStore(setup, systemClock).create('Acme');
    accountStore(setup, systemClock).bindCompany(created.account, 1);
    token = created.token;
    testId = addDemoTests(setup, systemClock, created.account.id, ['JavaScript'])[0]!.id;
    setup.close();
    // PARTNER_SECRET stays empty: report updates wait in the outbox, so no platform is needed.
    running = await main(
      loadConfig({ PORT: '0', DATABASE_PATH: dbFile, LOG_LEVEL: 'silent', WEBHOOK_SECRETS: `1:${secret}` }),
      { pollIntervalMs: 50 },
    );
  });
  afterAll(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const status = (reportId: string) => {
    const db = openDb(path.join(dir, 'partner.db'));
    try {
      return (db.prepare('SELECT status FROM invitations WHERE report_id = ?').get(reportId) as { status: string }).status;
    } finally {
      db.close();
    }
  };

  it('when the platform disqualifies a candidate by a signed webhook, then the pending invitation is canceled', async () => {
    const reportId = '3f1c2a4e-8b7d-4c1a-9e2f-5d6c7b8a9e0f';
    const sent = await fetch(`${running.publicUrl}/callbacks/send_candidate`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com',
        candidate_id: 17, company_id: 1, report_id: reportId, test_id: String(testId), test_name: 'JavaScript',
      }),
    });
    expect(sent.status).toBe(201);

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
    expect(status(reportId)).toBe('sent');

    const delivered = await fetch(`${running.publicUrl}/webhooks/platform/1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Service-Webhooks', 'x-service-signature': signWebhookBody(secret, body) },
      body,
    });
    expect(delivered.status).toBe(200);
    await expect.poll(() => status(reportId), { timeout: 5000 }).toBe('canceled');
  });
});
