import type { Browser } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PLATFORM_OPERATIONS } from '../../src/mock-platform/openapi/document.js';
import { REDOC_SCRIPT_PATH } from '../../src/mock-platform/openapi/routes.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { leaveChromium, sharedChromium } from '../support/browser.js';

/**
 * The sandbox's API reference: Redoc, served by the mock itself, renders /openapi.json in a real
 * headless Chromium under the mock's Content Security Policy.
 */

/** Redoc's footer shows Redocly's logo from their CDN: the mock serves the bundle without it. */
const REDOCLY_LOGO = 'https://cdn.redoc.ly/';

let mock: RunningMockPlatform;
let browser: Browser;
beforeAll(async () => {
  [mock, browser] = await Promise.all([startMockPlatform({ port: 0, logLevel: 'silent' }), sharedChromium()]);
});
afterAll(async () => {
  await leaveChromium(browser);
  await mock?.close();
});

it('serves Redoc from the mock, not from a CDN, with a CSP that lets its worker run and no inline script', async () => {
  const page = await request(`${mock.url}/api-reference`);
  const html = await page.body.text();
  expect(page.statusCode).toBe(200);
  expect(html).toContain(`<script src="${REDOC_SCRIPT_PATH}"></script>`);
  expect(html).not.toMatch(/<script>/);
  const csp = String(page.headers['content-security-policy']);
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("worker-src 'self' blob:");

  const script = await request(mock.url + REDOC_SCRIPT_PATH);
  expect(script.statusCode).toBe(200);
  expect(script.headers['content-type']).toMatch(/^text\/javascript/);
  const bundle = await script.body.text();
  expect(bundle.length).toBeGreaterThan(100_000);
  expect(bundle).not.toContain(REDOCLY_LOGO);
});

it('renders every operation of the document in Chromium, with nothing refused and nothing fetched from outside; the title reads once', async () => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  const outside: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(mock.url) && !url.startsWith('blob:') && !url.startsWith('data:')) {
      outside.push(url);
    }
  });

  await page.goto(`${mock.url}/api-reference`);
  for (const op of PLATFORM_OPERATIONS) {
    await page.locator('h2', { hasText: op.summary }).first().waitFor({ timeout: 120_000 });
  }
  // The examples are there too: the registration example's codename, in a request sample.
  await expect(page.getByText('"Demo Assessments"').first().isVisible()).resolves.toBe(true);
  expect(await page.locator('h1').first().innerText()).toBe('Mock platform: API for partners (1.0)');
  expect(problems).toEqual([]);
  expect(outside).toEqual([]);
  await context.close();
});
