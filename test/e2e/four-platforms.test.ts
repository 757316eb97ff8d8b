import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import request from 'supertest';
import { afterAll, expect, it } from 'vitest';
import { signVendorResult } from '../../src/contract/vendor-signature.js';
import { systemClock } from '../../src/lib/clock.js';
import { loadConfig } from '../../src/partner/config.js';
import { connectionStore } from '../../src/partner/connections/store.js';
import { main } from '../../src/partner/server.js';
import { openTestDatabase } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { ACME, ADA, INITECH, KATHERINE, sendFromGreenhouse, startDev } from './support.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kit-four-platforms-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RESULTS_SECRET = 'four-platforms-results-secret-0123456789';
/** The sandbox's Ashby company (Hooli) and its first candidate (Grace Hopper). */
const HOOLI = 1;
const GRACE = 1;
/** The sandbox's Bob company (Vandelay Industries, by Bob's id) and its first candidate (Barbara Liskov). */
const VANDELAY = '640213';
const BARBARA = 1;
/** The demo customer's account: the first the partner creates. */
const DEMO_ACCOUNT = 1;

/**
 * A platform of the other shape joins the three without changing anything for the vendor: one
 * provider (the demo), one customer account — whose token each company that calls the partner was
 * given, which holds Hooli's Ashby API key, and to which the vendor's operator linked Vandelay's Bob
 * company before Vandelay installed the app (docs/hibob.md §2) — and one candidate sent from each
 * platform: the hiring platform, Greenhouse and Ashby call the partner; Bob pushes its order as a
 * signed webhook, after the partner registered the account's tests as Vandelay's catalog. The
 * product reports each result the same way, and each platform's candidate page shows its own
 * candidate's status and score.
 */
it('one provider and one account serve candidates sent from the hiring platform, Greenhouse, Ashby and HiBob: each platform shows its own result', async () => {
  const databasePath = path.join(dir, 'partner.db');

  // The partner's database with its demo account, as `npm run dev` makes it; then the operator links
  // Vandelay's Bob company to that account, before anything is installed.
  const first = await main(loadConfig({ DATABASE_PATH: databasePath, DEMO_SEED: 'true', PORT: '0', LOG_LEVEL: 'silent' }));
  await first.close();
  const database = await openTestDatabase({ databasePath });
  expect(await connectionStore(database.sql, systemClock, 'any: linking seals nothing').connect(DEMO_ACCOUNT, 'hibob', VANDELAY)).toBe(true);
  await database.close();

  const sandbox = await startDev(databasePath, { VENDOR_RESULTS_SECRET: RESULTS_SECRET });
  try {
    expect(sandbox.platforms).toEqual({ greenhouse: { ok: true }, ashby: { ok: true }, hibob: { ok: true } });
    const mock = request(sandbox.mockUrl);
    const partner = request(sandbox.partnerUrl);

    // The hiring platform: Acme sends Ada a test through the marketplace.
    const tests = await mock.get(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/tests`).expect(200);
    const test = tests.body.tests[0] as { id: number; name: string };
    const sent = await mock.post(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/send`).send({ candidate_id: ADA, test_id: test.id, test_name: test.name }).expect(201);
    const reportId: string = sent.body.report.id;

    // Greenhouse: Initech picks a listed test for a stage and sends it to Katherine.
    const interviewId = await sendFromGreenhouse(sandbox.mockUrl);

    // Ashby: Hooli's recruiter starts the first listed assessment for Grace.
    const listed = await mock.get('/_mock/platforms/ashby/tests').expect(200);
    const started = await mock.post('/_mock/platforms/ashby/sends').send({ test_id: listed.body.tests[0].id, candidate_id: String(GRACE) }).expect(201);
    const assessmentId: string = started.body.report.id;

    // HiBob: the partner registered the account's tests as Vandelay's catalog, with Vandelay's token;
    // its recruiter orders the second for Barbara, and Bob pushes the order.
    const catalog = await mock.get('/_mock/platforms/hibob/tests').expect(200);
    const names = (list: { name: string }[]) => list.map((t) => t.name);
    expect(names(catalog.body.tests)).toEqual(names(tests.body.tests));
    expect(names(listed.body.tests)).toEqual(names(tests.body.tests));
    const ordered = await mock.post('/_mock/platforms/hibob/sends').send({ test_id: catalog.body.tests[1].id, candidate_id: String(BARBARA) }).expect(201);
    const requestId: string = ordered.body.report.id;
    expect(ordered.body.report).toMatchObject({ status: 'ordered', complete: false, candidate: { name: 'Barbara Liskov' }, test: { name: tests.body.tests[1].name } });

    // The partner took the webhook, read the order's details with Vandelay's token and invited Barbara.
    const db = new Database(databasePath, { readonly: true });
    const invitations = await eventually(
      () => {
        const rows = db.prepare('SELECT report_id, account_id, platform, email FROM invitations ORDER BY id').all() as { report_id: string; account_id: number; platform: string; email: string }[];
        expect(rows).toHaveLength(4);
        return rows;
      },
      { what: "the invitation of Bob's order", intervalMs: 100 },
    );
    db.close();
    expect(invitations.map((i) => [i.report_id, i.platform])).toEqual([
      [reportId, 'hiring-platform'],
      [interviewId, 'greenhouse'],
      [assessmentId, 'ashby'],
      [requestId, 'hibob'],
    ]);
    expect(invitations[3]!.email).toBe('barbara@example.com');
    // One account, four platforms.
    expect(new Set(invitations.map((i) => i.account_id))).toEqual(new Set([DEMO_ACCOUNT]));

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
    await post(requestId, { status: 'completed', score: '95%', subtitle: 'Clear abstractions' });

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
    expect(hooliPage).toMatch(/<span class="score" title="Score \(numeric_score\)">87<\/span>/);
    const vandelayPage = await eventually(
      async () => {
        const res = await mock.get(`/hibob/companies/${VANDELAY}/candidates/${BARBARA}`).expect(200);
        expect(res.text).toContain('<span class="badge badge-completed">completed</span>');
        return res.text;
      },
      { what: "Barbara's result on Vandelay's candidate page", intervalMs: 100 },
    );
    // Bob's score as a number, from "95%"; the results page as the result link; the subtitle as the verdict.
    expect(vandelayPage).toContain('<span class="score" title="score">95</span>');
    expect(vandelayPage).toContain(`<a href="${sandbox.partnerUrl}/results?token=`);
    expect(vandelayPage).toContain('<dd class="verdict">Clear abstractions</dd>');
    expect(vandelayPage).toContain('the vendor read its details');
    expect(vandelayPage).not.toContain('role="alert"');

    // No result crossed over.
    for (const [page, others] of [
      [acmePage, ['Strong on recursion', 'Fast and careful', 'Clear abstractions']],
      [initechPage, ['Fast and careful', 'Clear abstractions']],
      [hooliPage, ['Strong on recursion', 'Clear abstractions']],
      [vandelayPage, ['Strong on recursion', 'Fast and careful']],
    ] as const) {
      for (const other of others) expect(page).not.toContain(other);
    }
    expect(vandelayPage).not.toMatch(/<span class="score"[^>]*>(92|80|87)/);

    // Bob took the PATCH (204) with the token Vandelay's install gave, after the details were read with it.
    const calls = await mock.get(`/_mock/calls?report_id=${requestId}&direction=inbound&order=asc`).expect(200);
    const seen = calls.body.calls.map((c: { endpoint: string; response_status: number }) => [c.endpoint, c.response_status]);
    expect(seen[0]).toEqual(['hibob.assessments.get', 200]);
    expect(seen.at(-1)).toEqual(['hibob.assessments.update', 204]);
  } finally {
    await sandbox.close();
  }
});
