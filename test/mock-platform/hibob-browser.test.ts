import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { clickAndLoad, leaveChromium, openPage, sharedChromium } from '../support/browser.js';
import { VANDELAY, api, exchange, fakeVendor, register, type FakeVendor } from './hibob-support.js';

/**
 * The Bob company in a browser, as a vendor tries its Bob side: set up the app, install it from
 * the marketplace — the browser really goes to the vendor's callback, which a form post could not
 * do under the sandbox's CSP — order an assessment from the registered catalog, and see its result
 * after the PATCH; every page without a problem.
 */

let browser: Browser;
let vendor: FakeVendor;
let mock: RunningMockPlatform;
beforeAll(async () => {
  browser = await sharedChromium();
  vendor = await fakeVendor();
  mock = await startMockPlatform({ port: 0, logLevel: 'silent', webhookWorker: false });
});
afterAll(async () => {
  await leaveChromium(browser);
  await mock?.close();
  await vendor?.close();
});

it('set up the app, install it from the marketplace, order from the catalog, and see the status, score and results link', async () => {
  const { page, problems } = await openPage(browser);
  await page.goto(mock.url);
  await clickAndLoad(page, page.getByRole('link', { name: 'Vandelay Industries' }));
  expect(await page.locator('h1').innerText()).toContain('Vandelay Industries');

  await page.getByLabel("Vendor's name").fill('Skill Check');
  await page.getByLabel('Redirect URI').fill(`${vendor.url}/hibob/oauth/callback`);
  await page.getByLabel('Webhook listener').fill(`${vendor.url}/hibob/webhooks`);
  await clickAndLoad(page, page.getByRole('button', { name: 'Save' }));
  expect(await page.getByRole('status').innerText()).toContain("Skill Check's app is saved");

  await clickAndLoad(page, page.getByRole('link', { name: "Open the app in Bob's marketplace" }));
  await clickAndLoad(page, page.getByRole('link', { name: 'Install Skill Check' }));
  // The browser is on the vendor's callback, with the code and the company.
  expect(await page.title()).toBe('Installed');
  expect(new URL(page.url()).pathname).toBe('/hibob/oauth/callback');
  expect(vendor.installs).toEqual([{ code: expect.any(String), companyId: VANDELAY }]);

  // The vendor exchanges the code and registers its catalog.
  const { access } = await exchange(mock, vendor.installs[0]!.code!);
  await register(mock, access, [
    { id: 'js', name: 'JavaScript' },
    { id: 'sql', name: 'SQL' },
  ]).expect(201);

  await page.goto(`${mock.url}/hibob/companies/${VANDELAY}`);
  expect(await page.locator('#app').innerText()).toContain('the vendor holds its tokens');
  await clickAndLoad(page, page.getByRole('link', { name: 'Barbara Liskov' }));
  await page.getByLabel('Package').selectOption({ label: 'SQL' });
  await clickAndLoad(page, page.getByRole('button', { name: 'Order assessment' }));
  const flash = await page.getByRole('status').innerText();
  expect(flash).toMatch(/SQL was ordered for Barbara \(assessmentRequestId \d{10}\)\. The vendor took the webhook \(HTTP 200\)\./);
  const requestId = /assessmentRequestId (\d{10})/.exec(flash)![1]!;

  await api(mock, 'patch', `/hiring/assessments/${requestId}`, access, { status: 'completed', score: 91, resultUrl: 'https://vendor.example/results/9' }).expect(204);
  await page.reload();
  const report = page.locator('.report');
  expect(await report.locator('.badge').first().innerText()).toBe('completed');
  expect(await report.locator('.score').innerText()).toBe('91');
  expect(await report.getByRole('link', { name: 'View results in Skill Check' }).getAttribute('href')).toBe('https://vendor.example/results/9');
  expect(problems).toEqual([]);
});
