import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import request from 'supertest';
import { afterAll, expect, it } from 'vitest';
import { signVendorResult } from '../../src/contract/vendor-signature.js';
import { eventually } from '../support/eventually.js';
import { ACME, ADA, INITECH, KATHERINE, sendFromGreenhouse, startDev } from './support.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kit-two-platforms-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RESULTS_SECRET = 'two-platforms-results-secret-0123456789ab';

/**
 * The kit's promise: the vendor writes its product once, and the kit speaks each platform. One
 * provider (the demo), one customer account (the demo account, whose token both of the mock's
 * companies were given), one candidate sent from each platform; each platform's candidate page
 * shows its own candidate's result, which the product reported the same way for both.
 */
it('one provider and one account serve a candidate sent from the hiring platform and one sent from Greenhouse: each platform shows its result', async () => {
  const databasePath = path.join(dir, 'partner.db');
  const sandbox = await startDev(databasePath, { VENDOR_RESULTS_SECRET: RESULTS_SECRET });
  try {
    const mock = request(sandbox.mockUrl);
    const partner = request(sandbox.partnerUrl);

    // The hiring platform: Acme sends Ada a test through the marketplace.
    const tests = await mock.get(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/tests`).expect(200);
    const test = tests.body.tests[0] as { id: number; name: string };
    const sent = await mock
      .post(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/send`)
      .send({ candidate_id: ADA, test_id: test.id, test_name: test.name })
      .expect(201);
    const reportId: string = sent.body.report.id;

    // Greenhouse: Initech lists the same tests, picks one for a stage and sends it to Katherine.
    const interviewId = await sendFromGreenhouse(sandbox.mockUrl);

    // One account, two platforms: both invitations are the demo account's.
    const db = new Database(databasePath, { readonly: true });
    const invitations = db.prepare('SELECT report_id, account_id, platform FROM invitations ORDER BY id').all() as {
      report_id: string;
      account_id: number;
      platform: string;
    }[];
    db.close();
    expect(invitations.map((i) => [i.report_id, i.platform])).toEqual([
      [reportId, 'hiring-platform'],
      [interviewId, 'greenhouse'],
    ]);
    expect(new Set(invitations.map((i) => i.account_id)).size).toBe(1);

    // The hiring platform's report must know its links before its result can follow them.
    await eventually(
      async () => {
        const res = await mock.get(`/api/marketplace/c/${ACME.id}/reports/${reportId}`).expect(200);
        expect(res.body.report.urls.show).toBeDefined();
      },
      { what: "the hiring platform's report links", intervalMs: 100 },
    );

    // The product reports both results the same way, knowing nothing of the platforms.
    const post = (id: string, result: object) => {
      const body = JSON.stringify(result);
      return partner
        .post(`/vendor/reports/${id}/result`)
        .set('content-type', 'application/json')
        .set('x-vendor-signature', signVendorResult(RESULTS_SECRET, id, body))
        .send(body)
        .expect(200);
    };
    await post(reportId, { status: 'completed', score: '92%' });
    await post(interviewId, { status: 'completed', score: '80%', subtitle: 'Strong on recursion' });

    // Each platform's candidate page shows its own candidate's result.
    const acmePage = await eventually(
      async () => {
        const res = await mock.get(`/companies/${ACME.id}/candidates/${ADA}`).expect(200);
        expect(res.text).toContain('badge-completed');
        return res.text;
      },
      { what: "Ada's result on Acme's candidate page", intervalMs: 100 },
    );
    expect(acmePage).toMatch(/<span class="score"[^>]*>92%<\/span>/);
    const initechPage = await eventually(
      async () => {
        const res = await mock.get(`/greenhouse/companies/${INITECH}/candidates/${KATHERINE}`).expect(200);
        expect(res.text).toContain('>complete</span>');
        return res.text;
      },
      { what: "Katherine's result on Initech's candidate page", intervalMs: 100 },
    );
    expect(initechPage).toMatch(/<span class="score"[^>]*>80<\/span>/);
    expect(initechPage).toContain('Strong on recursion');
    expect(initechPage).toContain(`<a href="${sandbox.partnerUrl}/results?token=`);
    // Neither result crossed over.
    expect(acmePage).not.toContain('Strong on recursion');
    expect(acmePage).not.toMatch(/<span class="score"[^>]*>80/);
    expect(initechPage).not.toMatch(/<span class="score"[^>]*>92/);
  } finally {
    await sandbox.close();
  }
});
