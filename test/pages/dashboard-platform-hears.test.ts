import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signVendorResult, VENDOR_SIGNATURE_HEADER } from '../../src/contract/vendor-signature.js';
import { systemClock } from '../../src/lib/clock.js';
import { connectionStore } from '../../src/partner/connections/store.js';
import { dollars } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { HARRY_POTTER } from '../support/greenhouse-candidate.js';
import { startKitPartner, type KitPartner } from '../support/kit-partner.js';

/**
 * The dashboard's invitation page says what each platform hears of the invitation, and when, in the
 * platform's words: a Greenhouse invitation's start is settled without a request (Greenhouse hears
 * only of the result, by a PATCH with no body), so the page does not claim Greenhouse "accepted its
 * first update", and that PATCH reads "(no body)", not an empty box; Ashby's start is told in the
 * answer to assessment.start. The hiring platform's page keeps its own words.
 */
const RESULTS_SECRET = 'vendor-results-secret-0123456789abcdef';
const LINK_SECRET = 'platform-hears-candidate-link-secret-0123';
const ASHBY_KEY = 'acme-ashby-api-key-0123456789';

/** A platform's side of the requests: answers 200 ({"success": true} for Ashby) and records what it got. */
async function listener() {
  const received: { method: string; path: string; body: string }[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url?.endsWith('assessment.update') ? JSON.stringify({ success: true, results: {} }) : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const basic = (user: string) => `Basic ${Buffer.from(`${user}:`, 'utf8').toString('base64')}`;

let partner: KitPartner;
let greenhouse: Awaited<ReturnType<typeof listener>>;
let ashby: Awaited<ReturnType<typeof listener>>;
let acme: { token: string; tests: { id: number }[] };
beforeAll(async () => {
  [greenhouse, ashby] = await Promise.all([listener(), listener()]);
  partner = await startKitPartner({ VENDOR_RESULTS_SECRET: RESULTS_SECRET, CANDIDATE_LINK_SECRET: LINK_SECRET, ASHBY_API_URL: ashby.url });
  acme = await partner.customer('Acme Corp', ['JavaScript']);
  const id = Number((await partner.sql.get<{ id: number }>(dollars('SELECT id FROM accounts WHERE name = ?'), ['Acme Corp']))!.id);
  await connectionStore(partner.sql, systemClock, LINK_SECRET).setCredential(id, 'ashby', ASHBY_KEY);
});
afterAll(async () => {
  await partner?.close();
  await Promise.all([greenhouse?.close(), ashby?.close()]);
});

const row = (text: string, ...params: unknown[]) => partner.sql.get<Record<string, unknown>>(dollars(text), params);
const page = async (reportId: string) => (await request(partner.url).get(`/admin/reports/${reportId}`).auth('admin', 'admin').expect(200)).text;
/** The page's text as read: tags gone, entities decoded, spaces collapsed. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&#39;', "'")
    .replaceAll('&quot;', '"')
    .replaceAll('&amp;', '&')
    .replace(/\s+/g, ' ');
/** The text of the section under `heading` (an h2), up to the next one. */
const section = (html: string, heading: string) => text(html.split(`<h2>${heading}</h2>`)[1]!.split('<h2>')[0]!);

async function settledStart(reportId: string) {
  await eventually(async () => expect(await row('SELECT status FROM report_updates WHERE report_id = ?', reportId)).toEqual({ status: 'superseded' }), {
    what: "the start's update settled without a request",
  });
}

async function postResult(reportId: string, result: Record<string, unknown>) {
  const raw = JSON.stringify(result);
  await request(partner.url)
    .post(`/vendor/reports/${reportId}/result`)
    .set('Content-Type', 'application/json')
    .set(VENDOR_SIGNATURE_HEADER, signVendorResult(RESULTS_SECRET, reportId, raw, Math.floor(Date.now() / 1000)))
    .send(raw)
    .expect(200);
}

describe('a Greenhouse invitation', () => {
  it('says Greenhouse knows the report from send_test, hears only of the result by a PATCH with no body, and shows that PATCH as "(no body)"', async () => {
    const sent = await request(partner.url)
      .post('/greenhouse/send_test')
      .set('Authorization', basic(acme.token))
      .send({ partner_test_id: String(acme.tests[0]!.id), candidate: HARRY_POTTER, sent_by: 'recruiter@example.org', url: `${greenhouse.url}/interviews/7` })
      .expect(200);
    const id = sent.body.partner_interview_id as string;
    await settledStart(id);

    const before = await page(id);
    expect(text(before)).not.toContain('accepted its first update');
    expect(text(before)).toContain("Platform Greenhouse knows the report from send_test's answer (its partner_interview_id)");
    expect(section(before, 'Report updates')).toContain(
      'Greenhouse hears only of the result: once the test is completed or failed, a PATCH with no body to the url it sent',
    );
    expect(section(before, 'Report updates')).toContain('superseded');
    expect(section(before, 'Delivery log')).toContain('No request sent yet.');

    await postResult(id, { status: 'completed', score: '80%' });
    await eventually(() => expect(greenhouse.received.filter((r) => r.path === '/interviews/7')).toHaveLength(1), { what: 'the PATCH' });
    const after = await eventually(
      async () => {
        const html = await page(id);
        expect(section(html, 'Delivery log')).toContain('delivered');
        return html;
      },
      { what: 'the PATCH in the delivery log' },
    );
    const log = after.split('<h2>Delivery log</h2>')[1]!.split('<h2>')[0]!;
    expect(log).not.toMatch(/<pre>\s*<\/pre>/);
    expect(text(log)).toContain('PATCH to the url Greenhouse sent, with no body: (no body)');
  });
});

describe('an Ashby invitation', () => {
  it('says Ashby knows the report from assessment.start, and what it hears of it and when', async () => {
    const listed = await request(partner.url).post('/ashby/assessment.list').set('Authorization', basic(acme.token)).send({}).expect(200);
    const started = await request(partner.url)
      .post('/ashby/assessment.start')
      .set('Authorization', basic(acme.token))
      .send({
        assessment_type_id: listed.body.results[0].assessment_type_id,
        candidate: { ashby_id: 'cand-ada', first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', ashby_profile_url: 'https://app.ashbyhq.com/candidates/cand-ada' },
        application: { ashby_id: randomUUID(), status: 'Active' },
        job: { ashby_id: 'job-7', name: 'Backend Engineer', ashby_job_url: 'https://app.ashbyhq.com/jobs/job-7' },
      })
      .expect(200);
    const id = started.body.results.assessment_id as string;
    await settledStart(id);
    const html = await page(id);
    expect(text(html)).not.toContain('accepted its first update');
    expect(text(html)).toContain("Platform Ashby knows the report from assessment.start's answer, which told it Invited");
    expect(section(html, 'Report updates')).toContain("Ashby hears of the candidate's progress (Opened, Started, In review), the result and a cancel of ours");
    expect(section(html, 'Delivery log')).toContain('No request sent yet.');
  });
});
