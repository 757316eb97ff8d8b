import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { clickAndLoad, leaveChromium, openPage, sharedChromium } from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import { API_KEY, fakeGreenhousePartner, patch, type FakeGreenhousePartner } from './greenhouse-support.js';

/**
 * The Greenhouse company in a browser, as a vendor tries its Greenhouse side: configure the
 * partner, list its tests and pick one for a stage, send it to a candidate, and see what
 * test_status said once the partner PATCHed — every page under helmet's CSP, without a problem.
 */

let browser: Browser;
let partner: FakeGreenhousePartner;
let mock: RunningMockPlatform;
beforeAll(async () => {
  browser = await sharedChromium();
  partner = await fakeGreenhousePartner();
  mock = await startMockPlatform({ port: 0, logLevel: 'silent', webhookWorker: false });
});
afterAll(async () => {
  await leaveChromium(browser);
  await mock?.close();
  await partner?.close();
});

it('configure, list tests, pick one, send it, and see the score, the profile link and the metadata after the PATCH', async () => {
  const { page, problems } = await openPage(browser);
  await page.goto(mock.url);
  await clickAndLoad(page, page.getByRole('link', { name: 'Initech' }));
  expect(await page.locator('h1').innerText()).toContain('Initech');

  await page.getByLabel('Partner name').fill('Skill Check');
  await page.getByLabel('API key').fill(API_KEY);
  await page.getByLabel('Base URL').fill(partner.url);
  await clickAndLoad(page, page.getByRole('button', { name: 'Save' }));
  expect(await page.getByRole('status').innerText()).toContain('Skill Check is configured');
  expect(await page.locator('#partner').innerText()).toContain(`${partner.url}/greenhouse/send_test`);

  await clickAndLoad(page, page.getByRole('button', { name: 'List tests' }));
  const takeHome = page.getByRole('row', { name: /Take-Home Test/ });
  await takeHome.getByLabel('Test').selectOption({ label: 'SQL basics' });
  await clickAndLoad(page, takeHome.getByRole('button', { name: 'Use for Take-Home Test' }));
  expect(await page.getByRole('status').innerText()).toContain('The stage sends SQL basics.');

  await clickAndLoad(page, page.getByRole('link', { name: 'Katherine Johnson' }));
  await clickAndLoad(page, page.getByRole('button', { name: 'Send Test' }));
  expect(await page.getByRole('status').innerText()).toMatch(/SQL basics was sent \(partner_interview_id [0-9a-f-]{36}\)/);
  expect(partner.calls('send_test')[0]!.body).toMatchObject({ partner_test_id: '12346' });

  // The partner PATCHes the url it was given; the mock reads test_status.
  const url = (partner.calls('send_test')[0]!.body as { url: string }).url;
  expect(await patch(url, API_KEY)).toBe(200);
  await eventually(() => expect(partner.calls('test_status')).toHaveLength(1));
  await eventually(async () => {
    await page.reload();
    expect(await page.locator('.report').innerText()).toContain('complete');
  });
  const report = page.locator('.report');
  expect(await report.locator('.score').innerText()).toBe('80');
  expect(await report.getByRole('link', { name: 'View results at Skill Check' }).getAttribute('href')).toBe('https://partner.example/results?token=abc');
  expect(await report.getByRole('row', { name: /Time spent/ }).innerText()).toMatch(/Time spent\s+42 min/);

  // Greenhouse also polls: the button reads test_status again.
  partner.state.status = { partner_status: 'complete' };
  await clickAndLoad(page, page.getByRole('button', { name: 'Check status now' }));
  expect(await page.getByRole('alert').first().innerText()).toContain("partner_profile_url is required when partner_status is 'complete'");
  expect(partner.calls('response_error')).toHaveLength(1);
  expect(problems).toEqual([]);
});
