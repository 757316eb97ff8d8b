import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { leaveChromium, sharedChromium } from '../support/browser.js';
import { ACME, ADA, CODENAME, registerManifest } from '../e2e/support.js';
import { flowHarness, type FlowHarness } from '../invitations/support.js';
import { asOperator, openPage } from './browser.js';

/**
 * The sandbox as a newcomer walks through it in a browser: the mock platform and the partner wired
 * together, Ada sent a test, the partner's first report update delivered and her e-mail sent.
 */

/** A phone: 390 CSS pixels wide. */
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true };

let browser: Browser;
let mock: RunningMockPlatform;
let h: FlowHarness;
let reportId: string;
beforeAll(async () => {
  browser = await sharedChromium();
  mock = await startMockPlatform({ port: 0, logLevel: 'silent', webhookWorker: false });
  h = await flowHarness({
    listen: true,
    platform: async (url) => ({ url: mock.url, codename: CODENAME, secret: await registerManifest(mock.url, CODENAME, url) }),
  });
  // Acme integrates, lists the tests and sends one to Ada; the partner mails her and tells the platform.
  const { token, tests } = await h.customer('Acme Corp with a rather long customer name', ['JavaScript fundamentals'], null);
  await request(mock.url).post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/integration`).send({ token }).expect(201);
  await request(mock.url).get(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/tests`).expect(200);
  const sent = await request(mock.url)
    .post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/send`)
    .send({ candidate_id: ADA, test_id: tests[0]!.id, test_name: tests[0]!.name })
    .expect(201);
  reportId = sent.body.report.id;
  await h.starter.runOnce();
  expect(await h.worker.runOnce()).toMatchObject({ delivered: 1 });
  // The platform has accepted the report's first update: only now is the candidate e-mailed.
  expect(await h.sender.runOnce()).toMatchObject({ sent: 1 });
});
afterAll(async () => {
  await leaveChromium(browser);
  await h?.close();
  await mock?.close();
});

/** The page scrolls sideways as a whole: what a phone's user notices first. */
const pageOverflow = (page: Page) => page.evaluate('document.documentElement.scrollWidth - window.innerWidth') as Promise<number>;

describe('on a phone', () => {
  it('the dashboard, an invitation, the mock’s calls and a call fit the screen: wide tables scroll inside their own box', async () => {
    const { page, problems } = await asOperator(browser, h.publicUrl, PHONE);
    const pages = [
      `${h.publicUrl}/admin`,
      `${h.publicUrl}/admin/reports/${reportId}`,
      `${h.publicUrl}/admin/mail/1`,
      `${mock.url}/calls`,
      `${mock.url}/calls/1`,
      `${mock.url}/companies/${ACME.id}/candidates/${ADA}`,
    ];
    const overflow: Record<string, number> = {};
    for (const url of pages) {
      await page.goto(url);
      overflow[new URL(url).pathname] = await pageOverflow(page);
      if (process.env.SCREENSHOTS) await page.screenshot({ path: `${process.env.SCREENSHOTS}/${new URL(url).pathname.replaceAll('/', '_')}.png`, fullPage: true });
    }
    expect(overflow).toEqual(Object.fromEntries(pages.map((url) => [new URL(url).pathname, 0])));

    // A wide table is still all there: its box scrolls.
    await page.goto(`${mock.url}/calls`);
    expect(await page.evaluate(`(() => { const box = document.querySelector('.table-scroll:has(table.calls)'); return box.scrollWidth > box.clientWidth; })()`)).toBe(true);
    expect(problems).toEqual([]);
  });

  it('the test page: a question whose title wraps stays inside its box', async () => {
    const { page, problems } = await openPage(browser, PHONE);
    const link = (await h.row('SELECT candidate_url FROM invitations'))!.candidate_url as string;
    await page.goto(link);
    expect(await pageOverflow(page)).toBe(0);
    if (process.env.SCREENSHOTS) await page.screenshot({ path: `${process.env.SCREENSHOTS}/take.png`, fullPage: true });
    // Each legend lies within its fieldset, below the fieldset's top border, not across it.
    const straddling = await page.evaluate(`[...document.querySelectorAll('fieldset.question')].filter((f) => {
      const legend = f.querySelector('legend').getBoundingClientRect();
      const box = f.getBoundingClientRect();
      return legend.height > 30 && legend.top < box.top + 1;
    }).length`);
    const wrapping = await page.evaluate(`[...document.querySelectorAll('fieldset.question legend')].filter((l) => l.getBoundingClientRect().height > 30).length`);
    expect(wrapping).toBeGreaterThan(0);
    expect(straddling).toBe(0);
    expect(problems).toEqual([]);
  });
});

describe('the dashboard, navigated', () => {
  it('the candidate’s name opens the invitation, the e-mail’s subject opens the e-mail; urls.cancel is not a link; a delivered update has no next attempt', async () => {
    const { page, problems } = await asOperator(browser, h.publicUrl);
    await page.goto(`${h.publicUrl}/admin`);

    const invitations = page.locator('table', { has: page.locator('th', { hasText: 'Candidate' }) });
    expect(await invitations.locator('th').allInnerTexts()).toEqual(['Candidate', 'Assessment', 'Account', 'Status', 'Progress', 'Report']);
    const updates = page.locator('table.updates');
    expect(await updates.locator('th').allInnerTexts()).toContain('Next attempt');
    const delivered = updates.locator('tbody tr').first();
    expect(await delivered.locator('.tag').innerText()).toBe('delivered');
    expect(await delivered.locator('td').nth(6).innerText()).toBe('—');
    // urls.show is a page to open. The queued update says the invitation started, in the kit's words.
    expect(await updates.getByRole('link', { name: /\/results\?token=/ }).count()).toBe(1);
    expect(await updates.locator('dt', { hasText: 'started' }).count()).toBe(1);

    await page.getByRole('link', { name: 'Ada Lovelace' }).click();
    await page.waitForURL(`${h.publicUrl}/admin/reports/${reportId}`);
    expect(await page.locator('h1').innerText()).toContain('Ada Lovelace');
    // The request the platform got names urls.cancel, the platform's to POST: shown, not a link.
    const log = page.locator('main');
    expect(await log.getByRole('link', { name: /\/cancel/ }).count()).toBe(0);
    expect(await log.locator('dd', { hasText: '/callbacks/reports/' }).first().innerText()).toContain('the platform POSTs here to cancel');
    await page.getByRole('link', { name: 'Acme Corp with a rather long customer name invites you to take the JavaScript fundamentals test' }).click();
    await page.waitForURL(`${h.publicUrl}/admin/mail/1`);
    expect(await page.locator('h1').innerText()).toBe('E-mail #1');

    await page.goto(`${h.publicUrl}/admin`);
    await page.locator('main table', { has: page.locator('th', { hasText: 'To' }) }).getByRole('link').click();
    await page.waitForURL(`${h.publicUrl}/admin/mail/1`);
    expect(problems).toEqual([]);
  });
});

describe('the platform’s candidate page', () => {
  it('right after Send, shows "Cancel this test" and "Open results" once the partner’s first update arrives, without a reload', async () => {
    const { page, problems } = await openPage(browser);
    await page.goto(`${mock.url}/companies/${ACME.id}/candidates/${ADA}`);
    await page.getByRole('button', { name: 'List tests' }).click();
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForURL(/flash=/);
    const reports = page.locator('section.report', { has: page.locator('a', { hasText: 'calls' }) });
    expect(await reports.count()).toBe(2);
    const fresh = reports.filter({ hasNot: page.locator('code', { hasText: reportId }) });
    expect(await fresh.count()).toBe(1);
    expect(await fresh.getByRole('button', { name: 'Cancel this test' }).count()).toBe(0);
    expect(await fresh.getByRole('link', { name: /Open results/ }).count()).toBe(0);

    // The partner starts the invitation and tells the platform: the page shows it, on its own.
    let navigations = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations += 1;
    });
    await h.startAndMail();
    expect(await h.worker.runOnce()).toMatchObject({ delivered: 1 });
    await fresh.getByRole('button', { name: 'Cancel this test' }).waitFor({ timeout: 30_000 });
    expect(await fresh.getByRole('link', { name: 'Open results at Demo Assessments' }).isVisible()).toBe(true);
    expect(navigations).toBe(0);
    expect(problems).toEqual([]);
  });
});
