import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { loadConfig } from '../../src/partner/config.js';
import type { Report } from '../../src/contract/schemas.js';
import { openPartnerDatabase, type PartnerDatabase } from '../../src/partner/db/open.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { main } from '../../src/partner/server.js';
import { storedMails } from '../invitations/support.js';
import { freshDatabase, rowsOf } from '../support/database.js';
import { clickAndLoad, leaveChromium, openPage, sharedChromium } from '../support/browser.js';
import { eventually, present } from '../support/eventually.js';
import { ACME, ADA, registerManifest } from './support.js';

/**
 * The second half of the flow with both servers running as they do in production and a real
 * headless browser: send → invitation e-mail (as the JSON transport stored it) → the candidate takes the
 * test in Chromium → the platform's report completes; and cancels from either side.
 */
const CODENAME = 'kit-report-flow';
const ADMIN = { username: 'operator', password: 'e2e-dashboard-password' };
const GRACE = 19;
const ALAN = 18;

let mock: RunningMockPlatform;
let partner: Awaited<ReturnType<typeof main>>;
let browser: Browser;
let database: PartnerDatabase;
let dir: string;
let partnerUrl: string;
let testId: number;

beforeAll(async () => {
  mock = await startMockPlatform({ port: 0, logLevel: 'silent' });
  // The partner starts with its secret and only then learns its port: register with a placeholder
  // URL, start it on port 0, then register again with the URL it got (the secret stays the same).
  const secret = await registerManifest(mock.url, CODENAME, 'http://127.0.0.1:0');
  dir = mkdtempSync(path.join(tmpdir(), 'kit-report-flow-'));
  const config = loadConfig({
    PORT: '0',
    ...(await freshDatabase(dir)),
    LOG_LEVEL: 'silent',
    PLATFORM_URL: mock.url,
    PARTNER_CODENAME: CODENAME,
    PARTNER_SECRET: secret,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
  });
  partner = await main(config, { pollIntervalMs: 100 });
  partnerUrl = partner.publicUrl;
  await registerManifest(mock.url, CODENAME, partnerUrl);
  database = await openPartnerDatabase(config);
  const token = await database.sql.transaction(async (tx) => {
    const { account, token } = await accountStore(tx, systemClock).create('Acme Corp');
    testId = (await addDemoTests(tx, systemClock, account.id, ['JavaScript fundamentals']))[0]!.id;
    return token;
  });
  await request(mock.url).post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/integration`).send({ token }).expect(201);
  browser = await sharedChromium();
});

afterAll(async () => {
  await leaveChromium(browser);
  await partner?.close();
  await database?.close();
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function send(candidateId: number): Promise<string> {
  const res = await request(mock.url)
    .post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/send`)
    .send({ candidate_id: candidateId, test_id: testId, test_name: 'JavaScript fundamentals' })
    .expect(201);
  return res.body.report.id;
}

const report = async (id: string): Promise<Report> =>
  (await request(mock.url).get(`/api/marketplace/c/${ACME.id}/reports/${id}`).expect(200)).body.report;

/** The report on the platform, once `check` passes on it. */
const reportOnceIt = (what: string, id: string, check: (r: Report) => void) =>
  eventually(
    async () => {
      const r = await report(id);
      check(r);
      return r;
    },
    { what },
  );

/** The invitation e-mail the JSON transport rendered for a candidate, as the partner stored it in its database. */
const mailTo = (email: string) =>
  eventually(async () => present((await storedMails(database.sql)).find((m) => m.to[0]!.address === email), `e-mail to ${email}`), {
    what: `an e-mail to ${email}`,
  });

const linkIn = (text: string) => /(http:\/\/\S+\/take\?token=[\w.-]+)/.exec(text)![1]!;

describe('a candidate takes the test in a real browser', () => {
  it('send → e-mail → answer in Chromium → submit: the platform shows the report completed with its score', async () => {
    const reportId = await send(ADA);
    const mail = await mailTo('ada@example.com');
    expect(mail.subject).toBe('Acme Corp invites you to take the JavaScript fundamentals test');

    // The first update gives the platform its links.
    const sent = await reportOnceIt('urls on the report', reportId, (r) => expect(r.urls.cancel).toBeDefined());
    expect(sent.status).toBe('sent');

    const { page, problems } = await openPage(browser);
    await page.goto(linkIn(mail.text));
    expect(await page.locator('h1').textContent()).toBe('JavaScript fundamentals');
    const questions = (await rowsOf(database.sql, 'SELECT id, answer FROM demo_questions WHERE test_id = ? ORDER BY position', testId)) as { id: number; answer: number }[];
    // Four right, the last one wrong: 80%.
    for (const [i, q] of questions.entries()) {
      const choice = i < questions.length - 1 ? q.answer : (q.answer + 1) % 2;
      await page.locator(`input[name="q${q.id}"][value="${choice}"]`).check();
    }
    await clickAndLoad(page, page.getByRole('button', { name: 'Submit my answers' }));
    expect(page.url()).toMatch(/\/take\?token=/);
    expect(await page.locator('h1').textContent()).toBe('Thank you, Ada');

    const done = await reportOnceIt('the completed report', reportId, (r) => expect(r.status).toBe('completed'));
    expect(done.score).toBe('80%');
    expect(done.score!.length).toBeLessThanOrEqual(5);
    expect(Date.parse(done.completed_at!)).toBeGreaterThan(Date.parse(sent.created_at));
    expect(done.subtitle).toBe('JavaScript fundamentals: 4 of 5 correct');
    expect(done.properties).toEqual([
      { label: 'Correct answers', value: '4 of 5' },
      { label: 'Pass mark', value: '60%' },
      { label: 'Time taken', value: '1 min' },
    ]);

    // The recruiter follows urls.show from the platform to the results.
    await page.goto(done.urls.show!);
    expect(await page.locator('.score').textContent()).toBe('80%');
    expect(await page.locator('ol.details li.wrong').count()).toBe(1);
    // Stylesheets loaded, no script refused: the pages work under helmet's CSP.
    expect(problems).toEqual([]);
    // The stylesheet applied (a string: the test has no DOM types).
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(249, 250, 251)');
    await page.context().close();
  });

  it('the recruiter cancels on the platform: the report shows canceled and the candidate link stops working', async () => {
    const reportId = await send(ALAN);
    const mail = await mailTo('alan@example.com');
    await reportOnceIt('urls.cancel on the report', reportId, (r) => expect(r.urls.cancel).toBeDefined());

    // The platform's own page: the recruiter clicks "Cancel this test".
    const { page, problems } = await openPage(browser);
    await page.goto(`${mock.url}/companies/${ACME.id}/candidates/${ALAN}`);
    await Promise.all([page.waitForURL(/flash=/), page.getByRole('button', { name: 'Cancel this test' }).click()]);
    await reportOnceIt('the canceled report', reportId, (r) => expect(r.status).toBe('canceled'));

    await page.goto(linkIn(mail.text));
    expect(await page.locator('h1').textContent()).toBe('This invitation was canceled');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('an operator cancels from the dashboard in the browser (signed in, same-origin form): the platform shows canceled', async () => {
    const reportId = await send(GRACE);
    await mailTo('grace@example.com');
    // A browser signs in on the dashboard's sign-in page, and its session's cookie does the rest.
    const { page, problems } = await openPage(browser);
    await page.goto(`${partnerUrl}/admin`);
    await page.getByLabel('User name').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await clickAndLoad(page, page.getByRole('button', { name: 'Sign in' }));
    expect(new URL(page.url()).pathname).toBe('/admin');
    await clickAndLoad(page, page.locator(`a[href="/admin/reports/${reportId}"]`).first());
    expect(await page.locator('h1').textContent()).toContain('Grace Hopper');
    await Promise.all([page.waitForURL(/notice=canceled/), page.getByRole('button', { name: 'Cancel invitation' }).click()]);
    expect(await page.locator('.flash').textContent()).toContain('The invitation was canceled');
    await reportOnceIt('the canceled report', reportId, (r) => expect(r.status).toBe('canceled'));
    await page.reload();
    expect(await page.locator('.tag-delivered').count()).toBeGreaterThan(0);
    // The invitation e-mail, as the dashboard shows it from the database.
    await clickAndLoad(page, page.locator('a[href^="/admin/mail/"]').first());
    const headers = await page.locator('dl.properties').nth(1).textContent();
    expect(headers).toContain('Grace Hopper <grace@example.com>');
    expect(headers).toContain('Acme Corp invites you to take the JavaScript fundamentals test');
    expect(await page.locator('pre.mail').textContent()).toContain('/take?token=');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
