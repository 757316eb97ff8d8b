import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../scripts/dev.js';
import { DEFAULT_MANIFEST, loadManifest, registerPartner } from '../../scripts/register-partner.js';
import { KIT_OPERATIONS } from '../../src/partner/openapi.js';
import { leaveChromium, openPage, sharedChromium } from '../support/browser.js';
import { REFUSED_URL } from '../support/net.js';
import { ACME, startDev } from '../e2e/support.js';
import { clickAndLoad } from './browser.js';

/**
 * Where a newcomer and a recruiter look for help in the sandbox: the API reference, which leads
 * back to the sandbox and shows the partner's own API beside the platform's, and the marketplace's
 * "How to integrate", which says what the company does to connect the partner — on this platform
 * and the others the mock plays — with the addresses involved, every link of it leading somewhere.
 */

const dir = mkdtempSync(path.join(tmpdir(), 'kit-reference-'));
let browser: Browser;
let sandbox: Sandbox;
/** A second partner, registered with callbacks where nothing answers. */
const GONE = 'gone-assessments';
beforeAll(async () => {
  [browser, sandbox] = await Promise.all([sharedChromium(), startDev(path.join(dir, 'partner.db'))]);
  const registered = await registerPartner({
    platformUrl: sandbox.mockUrl,
    codename: GONE,
    companyId: ACME.id,
    apiToken: ACME.token,
    partner: { ...loadManifest(DEFAULT_MANIFEST, REFUSED_URL), name: 'Gone Assessments' },
  });
  expect(registered.ok).toBe(true);
});
afterAll(async () => {
  await leaveChromium(browser);
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the API reference', () => {
  it('leads back to the sandbox and to each registered partner’s API', async () => {
    const { page, problems } = await openPage(browser);
    await page.goto(`${sandbox.mockUrl}/api-reference`);
    const bar = page.locator('header.reference-bar');
    expect(await bar.getByRole('link', { name: '← Sandbox' }).getAttribute('href')).toBe('/');
    const references = bar.getByRole('navigation', { name: 'API references' });
    expect(await references.getByRole('link').allInnerTexts()).toEqual(['The mock platform’s API', 'Demo Assessments’s API (partner)', 'Gone Assessments’s API (partner)']);
    expect(await references.locator('[aria-current="page"]').innerText()).toBe('The mock platform’s API');
    await clickAndLoad(page, bar.getByRole('link', { name: '← Sandbox' }));
    expect(new URL(page.url()).pathname).toBe('/');
    expect(problems).toEqual([]);
  });

  it('renders the partner’s own document, read from the partner through the mock, with nothing refused and nothing fetched from outside', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    const outside: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => {
      if (!r.url().startsWith(sandbox.mockUrl) && !/^(blob|data):/.test(r.url())) outside.push(r.url());
    });
    await page.goto(`${sandbox.mockUrl}/api-reference`);
    await page.getByRole('link', { name: 'Demo Assessments’s API (partner)' }).click();
    await page.waitForURL(`${sandbox.mockUrl}/api-reference/partners/${sandbox.codename}`);
    // The hiring platform's callbacks and the kit's results endpoint, as the partner documents them.
    for (const summary of ['Validate a customer token and bind its account to a company (§4.1)', KIT_OPERATIONS[0]!.summary]) {
      await page.locator('h2', { hasText: summary }).first().waitFor({ timeout: 120_000 });
    }
    expect(await page.locator('header.reference-bar [aria-current="page"]').innerText()).toBe('Demo Assessments’s API (partner)');
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
    await context.close();
  });

  it('serves the partner’s document as the partner does; a partner that does not answer is a 502 saying where it looked, an unknown one a 404', async () => {
    const mine = await request(sandbox.mockUrl).get(`/api-reference/partners/${sandbox.codename}/openapi.json`).expect(200);
    const theirs = await request(sandbox.partnerUrl).get('/openapi.json').expect(200);
    expect(mine.body).toEqual(theirs.body);

    const gone = await request(sandbox.mockUrl).get(`/api-reference/partners/${GONE}/openapi.json`).expect(502);
    expect(gone.body.error).toMatch(new RegExp(`^Gone Assessments’s API document could not be read at ${REFUSED_URL}/openapi.json: the partner is not reachable`));
    await request(sandbox.mockUrl).get('/api-reference/partners/nobody/openapi.json').expect(404, { error: 'No partner of that codename is registered with the platform' });
    const page = await request(sandbox.mockUrl).get('/api-reference/partners/nobody').set('accept', 'text/html').expect(404);
    expect(page.text).toContain('There is no page at /api-reference/partners/nobody.');
  });
});

describe('How to integrate', () => {
  it('says what the company does to connect the partner, here and on the other platforms, and every link leads somewhere', async () => {
    const { page, problems } = await openPage(browser);
    await page.goto(`${sandbox.mockUrl}/companies/${ACME.id}`);
    const listing = page.locator('section.partner', { hasText: 'Demo Assessments' });
    await clickAndLoad(page, listing.getByRole('link', { name: 'How to integrate' }));
    expect(await page.locator('h1').innerText()).toBe('How to integrate Demo Assessments');
    const main = await page.locator('main').innerText();
    expect(main).not.toContain('nothing to do');
    expect(main).toContain('Integrated with token');
    // The steps, each with the partner's address the platform calls at that step.
    const steps = await page.locator('ol.steps > li').allInnerTexts();
    expect(steps.map((s) => s.split('.')[0])).toEqual(['Get a token from Demo Assessments', 'Integrate', 'Send a test', 'Disconnect, on the company page, ends the integration: the platform no longer calls the partner for Acme Corp']);
    expect(steps[1]).toContain(`${sandbox.partnerUrl}/callbacks/validate_token`);
    expect(steps[2]).toContain(`${sandbox.partnerUrl}/callbacks/tests`);
    expect(steps[2]).toContain(`${sandbox.partnerUrl}/callbacks/send_candidate`);
    // The other platforms' companies, each connected its own way.
    expect(await page.locator('ul.cards a').allInnerTexts()).toEqual(expect.arrayContaining(['Initech', 'Hooli']));

    // Every link of the page's main part answers a browser, on the mock and on the partner (whose
    // dashboard sends it to its sign-in page).
    const links = (await page.locator('main a[href]').evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href))) as string[];
    expect(links).toEqual(
      expect.arrayContaining([
        `${sandbox.partnerUrl}/admin/accounts`,
        `${sandbox.mockUrl}/api-reference/partners/${sandbox.codename}`,
        `${sandbox.partnerUrl}/`,
        `${sandbox.mockUrl}/calls?codename=${sandbox.codename}&company_id=${ACME.id}`,
      ]),
    );
    const statuses: Record<string, number> = {};
    for (const link of new Set(links)) statuses[link] = (await fetch(link, { redirect: 'manual', headers: { accept: 'text/html' } })).status;
    for (const [link, status] of Object.entries(statuses)) expect(status, link).toBeLessThan(400);
    expect(problems).toEqual([]);
  });
});
