import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import request from 'supertest';
import { afterAll, expect, it } from 'vitest';
import { signVendorResult } from '../../src/contract/vendor-signature.js';
import { eventually } from '../support/eventually.js';
import { ACME, ADA, INITECH, KATHERINE, sendFromGreenhouse, startDev } from './support.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kit-three-platforms-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RESULTS_SECRET = 'three-platforms-results-secret-0123456789';
/** The sandbox's Ashby company (Hooli) and its first candidate (Grace Hopper). */
const HOOLI = 1;
const GRACE = 1;

/**
 * A third platform added as a plugin changes nothing for the vendor: one provider (the demo), one
 * customer account (the demo account, whose token each of the mock's companies was given, and
 * which holds the Ashby API key Hooli issued), one candidate sent from each platform — the hiring
 * platform, Greenhouse and Ashby; the product reports each result the same way, and each platform's
 * candidate page shows its own candidate's status and score.
 */
it('one provider and one account serve candidates sent from the hiring platform, Greenhouse and Ashby: each platform shows its own result', async () => {
  const databasePath = path.join(dir, 'partner.db');
  const sandbox = await startDev(databasePath, { VENDOR_RESULTS_SECRET: RESULTS_SECRET });
  try {
    expect(sandbox.platforms).toEqual({ greenhouse: { ok: true }, ashby: { ok: true } });
    const mock = request(sandbox.mockUrl);
    const partner = request(sandbox.partnerUrl);

    // The hiring platform: Acme sends Ada a test through the marketplace.
    const tests = await mock.get(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/tests`).expect(200);
    const test = tests.body.tests[0] as { id: number; name: string };
    const sent = await mock.post(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/send`).send({ candidate_id: ADA, test_id: test.id, test_name: test.name }).expect(201);
    const reportId: string = sent.body.report.id;

    // Greenhouse: Initech picks a listed test for a stage and sends it to Katherine.
    const interviewId = await sendFromGreenhouse(sandbox.mockUrl);

    // Ashby: Hooli's recruiter lists the same account's assessments and starts the first for Grace.
    const listed = await mock.get('/_mock/platforms/ashby/tests').expect(200);
    expect(listed.body.tests.map((t: { name: string }) => t.name)).toEqual(tests.body.tests.map((t: { name: string }) => t.name));
    const started = await mock.post('/_mock/platforms/ashby/sends').send({ test_id: listed.body.tests[0].id, candidate_id: String(GRACE) }).expect(201);
    const assessmentId: string = started.body.report.id;
    expect(started.body.report).toMatchObject({ status: 'Invited', complete: false, candidate: { name: 'Grace Hopper' } });

    // One account, three platforms.
    const db = new Database(databasePath, { readonly: true });
    const invitations = db.prepare('SELECT report_id, account_id, platform FROM invitations ORDER BY id').all() as { report_id: string; account_id: number; platform: string }[];
    db.close();
    expect(invitations.map((i) => [i.report_id, i.platform])).toEqual([
      [reportId, 'hiring-platform'],
      [interviewId, 'greenhouse'],
      [assessmentId, 'ashby'],
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

    // The product reports each result the same way, knowing nothing of the platforms.
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
    await post(assessmentId, { status: 'completed', score: '87%', subtitle: 'Fast and careful' });

    // Each platform's candidate page shows its own candidate's status and score.
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
    const hooliPage = await eventually(
      async () => {
        const res = await mock.get(`/ashby/companies/${HOOLI}/candidates/${GRACE}`).expect(200);
        expect(res.text).toMatch(/<span class="badge badge-completed">Completed<\/span>/);
        return res.text;
      },
      { what: "Grace's result on Hooli's candidate page", intervalMs: 100 },
    );
    // Ashby's typed score: the number, from "87%".
    expect(hooliPage).toMatch(/<span class="score" title="Score \(numeric_score\)">87<\/span>/);
    expect(hooliPage).toContain('Fast and careful');
    expect(hooliPage).toContain(`<a href="${sandbox.partnerUrl}/results?token=`);
    // Hooli's page heard Invited in the start's answer, then the result, each with its millisecond timestamp.
    expect(hooliPage).toContain('2 updates received');
    expect(hooliPage).not.toContain('role="alert"');

    // No result crossed over.
    expect(acmePage).not.toMatch(/Strong on recursion|Fast and careful/);
    expect(initechPage).not.toMatch(/<span class="score"[^>]*>(92|87)/);
    expect(initechPage).not.toContain('Fast and careful');
    expect(hooliPage).not.toMatch(/<span class="score"[^>]*>(92|80)/);
    expect(hooliPage).not.toContain('Strong on recursion');

    // Ashby took every update the partner sent it, with the key Hooli issued.
    const calls = await mock.get(`/_mock/calls?endpoint=ashby.assessment.update&report_id=${assessmentId}`).expect(200);
    expect(calls.body.calls.length).toBeGreaterThan(0);
    for (const call of calls.body.calls) expect(JSON.parse(call.response_body)).toEqual({ success: true });
  } finally {
    await sandbox.close();
  }
});
