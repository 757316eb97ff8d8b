import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { openPartnerDatabase, type PartnerDatabase } from '../../src/partner/db/open.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { DEMO_MIGRATIONS } from '../../src/partner/provider/demo/index.js';
import { DEFAULT_MANIFEST, loadManifest, registerPartner } from '../../scripts/register-partner.js';
import { freshDatabase, rowOf, rowsOf } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { startPartnerProcess, tcpForwarder, type PartnerProcess } from '../support/net.js';
import { ACME, CANDIDATES } from './support.js';

const CODENAME = 'kit-kill-test';
const REPORTS = 8;

/** Waits until the count `sql` returns passes `check`. */
const until = (what: string, count: () => Promise<number>, check: (n: number) => void) =>
  eventually(async () => check(await count()), { what });

describe('a partner process killed in the middle of deliveries', () => {
  let mock: RunningMockPlatform;
  let dir: string;
  let database: PartnerDatabase | undefined;
  let partner: PartnerProcess | undefined;
  let front: Awaited<ReturnType<typeof tcpForwarder>>;
  beforeAll(async () => {
    mock = await startMockPlatform({ port: 0, logLevel: 'silent' });
    front = await tcpForwarder();
    dir = mkdtempSync(path.join(tmpdir(), 'partner-kill-'));
  });
  afterAll(async () => {
    partner?.child.kill('SIGKILL');
    await partner?.exited;
    await database?.close();
    await mock.close();
    await front.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resumes after a restart on the same database: every report completed on the platform, nothing lost, nothing out of order', async () => {
    // Each partner process listens on a port the system picks; the platform and the candidates
    // reach it at one address in front of it, as behind a load balancer.
    const partnerUrl = front.url;
    const registered = await registerPartner({
      platformUrl: mock.url,
      codename: CODENAME,
      companyId: ACME.id,
      apiToken: ACME.apiToken,
      partner: loadManifest(DEFAULT_MANIFEST, partnerUrl),
    });
    if (!registered.ok) throw new Error(registered.message);
    const settings = await freshDatabase(dir);
    const env = {
      PUBLIC_URL: partnerUrl,
      ...settings,
      PLATFORM_URL: mock.url,
      PARTNER_CODENAME: CODENAME,
      PARTNER_SECRET: registered.partner.secret,
      CANDIDATE_LINK_SECRET: 'kill-test-link-secret-0123456789abcdef',
      // On PostgreSQL, what the killed process had claimed is taken over once its lease runs out
      // (jobs/lease.ts): the shortest lease allowed, so the restart need not wait two minutes.
      JOB_LEASE_SECONDS: '5',
    };

    // The customer account, created as the accounts CLI would, in the partner's database.
    database = await openPartnerDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL }, { provider: DEMO_MIGRATIONS });
    const { sql } = database;
    const { account, token } = await accountStore(sql, systemClock).create('Acme Corp');
    const [test] = await sql.transaction((tx) => addDemoTests(tx, systemClock, account.id, ['JavaScript fundamentals']));
    const count = async (text: string) => Number((await rowOf(sql, text))?.n ?? 0);
    const linkOf = async (reportId: string) => (await rowOf(sql, 'SELECT candidate_url FROM invitations WHERE report_id = ?', reportId))!.candidate_url as string;

    partner = startPartnerProcess(env);
    front.to(await partner.port);
    await request(mock.url).post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/integration`).send({ token }).expect(201);

    // A slow platform, so that deliveries are in flight when the process dies.
    await request(mock.url).post('/_mock/faults').send({ endpoint: 'reports.update', delayMs: 300, times: 1000 }).expect(201);
    const reportIds: string[] = [];
    for (let i = 0; i < REPORTS; i++) {
      const res = await request(mock.url)
        .post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/send`)
        .send({ candidate_id: CANDIDATES[i % CANDIDATES.length], test_id: test!.id, test_name: test!.name })
        .expect(201);
      reportIds.push(res.body.report.id);
    }
    await until('every invitation e-mail', () => count(`SELECT count(*) AS n FROM mail_outbox WHERE status = 'sent'`), (n) => expect(n).toBe(REPORTS));

    // Every candidate takes the test on the partner's pages.
    const questions = (await rowsOf(sql, 'SELECT id, answer FROM demo_questions WHERE test_id = ? ORDER BY position', test!.id)) as { id: number; answer: number }[];
    const answers = Object.fromEntries(questions.map((q) => [`q${q.id}`, String(q.answer)]));
    for (const reportId of reportIds) {
      const link = new URL(await linkOf(reportId));
      await request(partnerUrl).get(link.pathname + link.search).expect(200);
      await request(partnerUrl).post('/take').type('form').send({ token: link.searchParams.get('token'), ...answers }).expect(303);
    }

    // Kill it (no shutdown, no cleanup) once some updates went out and some have not.
    await until('deliveries under way', () => count(`SELECT count(*) AS n FROM report_updates WHERE status = 'delivered'`), (n) => expect(n).toBeGreaterThanOrEqual(2));
    const pendingAtKill = await count(`SELECT count(*) AS n FROM report_updates WHERE status = 'pending'`);
    partner.child.kill('SIGKILL');
    await partner.exited;
    expect(pendingAtKill).toBeGreaterThan(0);

    // Restart on the same database, the platform healthy again.
    await request(mock.url).delete('/_mock/faults').expect(204);
    partner = startPartnerProcess(env);
    front.to(await partner.port);
    await until('every update delivered', () => count(`SELECT count(*) AS n FROM report_updates WHERE status <> 'delivered'`), (n) => expect(n).toBe(0));

    // Nothing lost: every report is complete on the platform, with its links.
    for (const reportId of reportIds) {
      const { body } = await request(mock.url).get(`/api/marketplace/c/${ACME.id}/reports/${reportId}`).expect(200);
      expect(body.report).toMatchObject({
        status: 'completed',
        score: '100%',
        subtitle: 'JavaScript fundamentals: 5 of 5 correct',
        urls: { show: expect.stringContaining(`${partnerUrl}/results?token=`), cancel: `${partnerUrl}/callbacks/reports/${reportId}/cancel` },
      });
      expect(body.report.completed_at).not.toBeNull();
    }
    // Nothing duplicated: one invitation e-mail per candidate, even across the restart, each stored
    // with its row and carrying that candidate's link.
    expect(await count('SELECT count(*) AS n FROM mail_outbox')).toBe(REPORTS);
    const stored = (await rowsOf(sql, 'SELECT report_id, message FROM mail_outbox WHERE message IS NOT NULL ORDER BY id')) as { report_id: string; message: string }[];
    expect(stored.map((m) => m.report_id).sort()).toEqual([...reportIds].sort());
    for (const m of stored) {
      const link = await linkOf(m.report_id);
      expect((JSON.parse(m.message) as { text: string }).text).toContain(link);
    }

    // Nothing out of order: per report, the requests the platform answered never moved the
    // status back (a resend after the kill repeats the newest state, never an older one).
    const { body } = await request(mock.url).get('/_mock/calls?direction=inbound&endpoint=reports.update&order=asc&limit=1000').expect(200);
    for (const reportId of reportIds) {
      const statuses = (body.calls as { report_id: string; response_status: number | null; request_body: string | null }[])
        .filter((c) => c.report_id === reportId && c.response_status === 200 && c.request_body)
        .map((c) => (JSON.parse(c.request_body!) as { status?: string }).status ?? 'sent');
      expect(statuses.at(-1)).toBe('completed');
      expect(statuses.slice(statuses.indexOf('completed')).every((s) => s === 'completed')).toBe(true);
    }
    expect(partner.output()).not.toContain(registered.partner.secret);
  });
});
