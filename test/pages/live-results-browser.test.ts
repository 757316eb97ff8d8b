import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Sandbox } from '../../scripts/dev.js';
import { signVendorResult } from '../../src/contract/vendor-signature.js';
import { leaveChromium, openPage, sharedChromium } from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import { ACME, ADA, INITECH, KATHERINE, sendFromGreenhouse, startDev } from '../e2e/support.js';

/**
 * A recruiter keeps a candidate's page open while the candidate takes the test: the result appears
 * on it without a reload, on each platform the mock plays — the hiring platform's page (Acme, Ada),
 * Greenhouse's (Initech, Katherine) and Ashby's (Hooli, Grace). The page asks its live part's
 * address while a report is in flight, and stops once every report on it is final.
 */

const RESULTS_SECRET = 'live-results-secret-0123456789abcdef';
/** The sandbox's Ashby company (Hooli) and its first candidate (Grace Hopper). */
const HOOLI = 1;
const GRACE = 1;

const dir = mkdtempSync(path.join(tmpdir(), 'kit-live-results-'));
let browser: Browser;
let sandbox: Sandbox;
beforeAll(async () => {
  [browser, sandbox] = await Promise.all([sharedChromium(), startDev(path.join(dir, 'partner.db'), { VENDOR_RESULTS_SECRET: RESULTS_SECRET })]);
});
afterAll(async () => {
  await leaveChromium(browser);
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The product reports a result, as a product that hosts its own tests does. */
function postResult(reportId: string, result: object) {
  const body = JSON.stringify(result);
  return request(sandbox.partnerUrl)
    .post(`/vendor/reports/${reportId}/result`)
    .set('content-type', 'application/json')
    .set('x-vendor-signature', signVendorResult(RESULTS_SECRET, reportId, body))
    .send(body)
    .expect(200);
}

/** A page in a window of its own, counting its navigations and the answers of its live part's address. */
async function watch(url: string) {
  const { page, problems } = await openPage(browser, { viewport: { width: 1200, height: 900 } });
  await page.goto(url);
  let navigations = 0;
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations += 1;
  });
  const answers: { final: boolean }[] = [];
  page.on('response', (r) => {
    if (new URL(r.url()).pathname.endsWith('/live')) void r.json().then((body: { final: boolean }) => answers.push(body), () => undefined);
  });
  return { page, problems, navigations: () => navigations, answers };
}

const liveAttribute = (page: Page) => page.evaluate('document.querySelectorAll("[data-live]").length') as Promise<number>;

it('a result reported while the candidate’s page is open appears on it without a reload, on the hiring platform, Greenhouse and Ashby', async () => {
  const mock = request(sandbox.mockUrl);
  // Acme sends Ada a test; Initech sends Katherine one; Hooli starts one for Grace.
  const tests = await mock.get(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/tests`).expect(200);
  const test = tests.body.tests[0] as { id: number; name: string };
  const sent = await mock.post(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/send`).send({ candidate_id: ADA, test_id: test.id, test_name: test.name }).expect(201);
  const reportId: string = sent.body.report.id;
  const interviewId = await sendFromGreenhouse(sandbox.mockUrl);
  const listed = await mock.get('/_mock/platforms/ashby/tests').expect(200);
  const started = await mock.post('/_mock/platforms/ashby/sends').send({ test_id: listed.body.tests[0].id, candidate_id: String(GRACE) }).expect(201);
  const assessmentId: string = started.body.report.id;
  // The hiring platform's report must know its links before a result can follow them.
  await eventually(async () => expect((await mock.get(`/api/marketplace/c/${ACME.id}/reports/${reportId}`).expect(200)).body.report.urls.show).toBeDefined(), {
    what: "the hiring platform's report links",
    intervalMs: 100,
  });

  // The recruiters open the three pages: no result yet.
  const pages = {
    acme: await watch(`${sandbox.mockUrl}/companies/${ACME.id}/candidates/${ADA}`),
    initech: await watch(`${sandbox.mockUrl}/greenhouse/companies/${INITECH}/candidates/${KATHERINE}`),
    hooli: await watch(`${sandbox.mockUrl}/ashby/companies/${HOOLI}/candidates/${GRACE}`),
  };
  for (const { page } of Object.values(pages)) expect(await page.locator('.report .score').count()).toBe(0);

  await postResult(reportId, { status: 'completed', score: '92%' });
  await postResult(interviewId, { status: 'completed', score: '80%', subtitle: 'Strong on recursion' });
  await postResult(assessmentId, { status: 'completed', score: '87%', subtitle: 'Fast and careful' });

  // Each page shows its result, in place.
  const acme = pages.acme.page.locator('#reports .report', { hasText: reportId });
  await acme.locator('.score', { hasText: '92%' }).waitFor({ timeout: 30_000 });
  expect(await acme.locator('.badge').first().innerText()).toBe('completed');
  const initech = pages.initech.page.locator('#tests .report');
  await initech.locator('.score', { hasText: '80' }).waitFor({ timeout: 30_000 });
  expect(await initech.locator('.badge').innerText()).toBe('complete');
  expect(await initech.getByRole('link', { name: /View results at/ }).getAttribute('href')).toContain(`${sandbox.partnerUrl}/results?token=`);
  const hooli = pages.hooli.page.locator(`.report`, { hasText: assessmentId });
  await hooli.locator('.score', { hasText: '87' }).waitFor({ timeout: 30_000 });
  expect(await hooli.locator('.badge').innerText()).toBe('Completed');
  expect(await hooli.innerText()).toContain('Fast and careful');

  for (const [name, watched] of Object.entries(pages)) {
    expect(watched.navigations(), name).toBe(0);
    expect(watched.problems, name).toEqual([]);
    // The last answer said it was final, and the part the page shows no longer asks.
    await eventually(() => expect(watched.answers.at(-1), name).toEqual(expect.objectContaining({ final: true })), { what: `${name}'s last answer`, intervalMs: 50 });
    expect(await liveAttribute(watched.page), name).toBe(0);
  }
});

it('a page whose reports are all final does not ask: nothing is in flight', async () => {
  const { page, problems } = await openPage(browser);
  const asked: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.endsWith('/live')) asked.push(r.url());
  });
  // After the first test, every report on these pages is final: the script loads and has nothing to ask.
  for (const url of [`/companies/${ACME.id}/candidates/${ADA}`, `/greenhouse/companies/${INITECH}/candidates/${KATHERINE}`, `/ashby/companies/${HOOLI}/candidates/${GRACE}`]) {
    await page.goto(`${sandbox.mockUrl}${url}`);
    expect(await page.locator('script[src="/assets/live-reports.js"]').count()).toBe(1);
    expect(await liveAttribute(page)).toBe(0);
  }
  expect(asked).toEqual([]);
  expect(problems).toEqual([]);
});
