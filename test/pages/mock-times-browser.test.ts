import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { formatTime, timeHtml } from '../../src/lib/time.js';
import { leaveChromium, sharedChromium } from '../support/browser.js';
import { ADA, registerManifest } from '../e2e/support.js';
import { flowHarness, type FlowHarness } from '../invitations/support.js';
import { clickAndLoad, mainText, openPage } from './browser.js';

/** The mock platform's sandbox pages, on a platform clock stopped at a known moment. */
const NOW = '2026-11-23T10:42:01.000Z';
const READABLE = '23 Nov 2026, 10:42:01 UTC';
const ISO_IN_TEXT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

let browser: Browser;
let mock: RunningMockPlatform;
let h: FlowHarness;
beforeAll(async () => {
  browser = await sharedChromium();
  mock = await startMockPlatform({ port: 0, logLevel: 'silent', clock: { now: () => Date.parse(NOW) }, webhookWorker: false });
  h = await flowHarness({ listen: true });
  await registerManifest(mock.url, 'demo-assessments', h.publicUrl);
});
afterAll(async () => {
  await leaveChromium(browser);
  await h?.close();
  await mock?.close();
});

describe('times on the mock platform’s pages', () => {
  it('the shared helper: readable UTC, the ISO value in the tooltip, anything else unchanged and escaped', () => {
    expect(formatTime(NOW)).toBe(READABLE);
    expect(formatTime('2026-01-05T03:04:05Z')).toBe('5 Jan 2026, 03:04:05 UTC');
    expect(formatTime('soon')).toBe('soon');
    expect(timeHtml(NOW)).toBe(`<time datetime="${NOW}" title="${NOW}">${READABLE}</time>`);
    expect(timeHtml(null, 'not <yet>')).toBe('not &lt;yet&gt;');
    expect(timeHtml('"><script>')).toBe('<time datetime="&quot;&gt;&lt;script&gt;" title="&quot;&gt;&lt;script&gt;">&quot;&gt;&lt;script&gt;</time>');
  });

  it('integrating, sending, the call log, the admin and home pages show readable times with the ISO value as a tooltip', async () => {
    const { token } = await h.customer('Acme Corp', ['JavaScript fundamentals'], null);
    const { page, problems } = await openPage(browser);
    /** Every time on the page reads "23 Nov 2026, 10:42:01 UTC" with the exact value on hover, and no ISO value is left in the text. */
    const expectReadableTimes = async (least: number) => {
      const times = await page.locator('main time').all();
      expect(times.length).toBeGreaterThanOrEqual(least);
      for (const t of times) {
        expect(await t.innerText()).toBe(READABLE);
        expect(await t.getAttribute('title')).toBe(NOW);
      }
      expect(await mainText(page)).not.toMatch(ISO_IN_TEXT);
    };

    await page.goto(`${mock.url}/companies/1`);
    await page.getByLabel('Token from Demo Assessments').fill(token);
    await page.getByRole('button', { name: 'Integrate' }).click();
    await page.waitForURL(/\/companies\/1\?flash=/);
    expect(await mainText(page)).toContain(`integrated ${READABLE}.`);
    await expectReadableTimes(1);

    await page.goto(`${mock.url}/companies/1/candidates/${ADA}`);
    await page.getByRole('button', { name: 'List tests' }).click();
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForURL(/flash=/);
    expect(await mainText(page)).toContain(`sent ${READABLE}`);
    await expectReadableTimes(1);

    await page.goto(`${mock.url}/calls`);
    await expectReadableTimes(3);
    await clickAndLoad(page, page.locator('table.calls a').first());
    expect(await mainText(page)).toMatch(new RegExp(`When\\s+${READABLE}`));
    await expectReadableTimes(1);

    await page.goto(`${mock.url}/admin`);
    await expectReadableTimes(2);
    await page.goto(`${mock.url}/`);
    await expectReadableTimes(1);
    expect(problems).toEqual([]);
  });
});
