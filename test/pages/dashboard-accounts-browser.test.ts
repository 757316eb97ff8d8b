import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { definePlatform, type PlatformDefinition } from '../../src/partner/platforms/index.js';
import { leaveChromium, sharedChromium } from '../support/browser.js';
import { ADMIN, flowHarness, sendBody, type FlowHarness } from '../invitations/support.js';
import { clickAndLoad, mainText, openPage } from './browser.js';

/** A phone: 390 CSS pixels wide. */
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true };
/** Initech's key for Acme ATS: 36 characters, ending in "wxyz". */
const SECRET = 'acme_live_8f3b2c1d9e0a7f6b5c4d3wxyz';
const ACME_ATS = definePlatform({
  name: 'acme-ats',
  label: 'Acme ATS',
  credential: { label: 'Acme ATS API key', required: true },
  create: () => ({ name: 'acme-ats', label: 'Acme ATS', emailAfterAcceptance: false, home: { endpoints: {} }, mount: () => {}, deliveryRequest: () => undefined }),
}) as PlatformDefinition;

let browser: Browser;
beforeAll(async () => {
  browser = await sharedChromium();
});
afterAll(async () => {
  await leaveChromium(browser);
});
let h: FlowHarness;
afterEach(async () => {
  await h?.close();
});

/** How far the page scrolls sideways as a whole: what a phone's user notices first. */
const pageOverflow = (page: Page) => page.evaluate('document.documentElement.scrollWidth - window.innerWidth') as Promise<number>;

describe('the dashboard as a support person works in it, on a phone', () => {
  it('signs in on its page, creates an account, issues it a token, sets its platform credential and finds it by search; no page scrolls sideways at 390 px', async () => {
    h = await flowHarness({ listen: true, platforms: [ACME_ATS] });
    const acme = await h.customer('Acme Corp with a rather long customer name', ['JavaScript fundamentals'], 3);
    await h.send(acme.token, sendBody(acme.tests[0]!.id, { first_name: 'Grace', last_name: 'Hopper', email: 'grace.hopper@example.com' })).expect(201);
    h.clock.advance(86_400_000);
    await h.send(acme.token, sendBody(acme.tests[0]!.id)).expect(201);
    const { page, problems } = await openPage(browser, PHONE);
    const overflow: Record<string, number> = {};
    const measure = async (name: string) => {
      overflow[name] = await pageOverflow(page);
      if (process.env.SCREENSHOTS) await page.screenshot({ path: `${process.env.SCREENSHOTS}/dashboard-${name}.png`, fullPage: true });
    };

    // No browser prompt: the dashboard sends the browser to its own sign-in page.
    await page.goto(`${h.publicUrl}/admin/accounts`);
    expect(new URL(page.url()).pathname).toBe('/admin/sign-in');
    await measure('sign-in');
    await page.getByLabel('User name').fill(ADMIN.username);
    await page.getByLabel('Password').fill('not the password');
    await clickAndLoad(page, page.getByRole('button', { name: 'Sign in' }));
    expect(await page.getByRole('alert').innerText()).toBe('Wrong user name or password.');
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    await page.getByLabel('Password').fill(ADMIN.password);
    await clickAndLoad(page, page.getByRole('button', { name: 'Sign in' }));
    // Back to the page first asked for.
    expect(page.url()).toBe(`${h.publicUrl}/admin/accounts`);
    expect((await page.context().cookies()).map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite, path: c.path }))).toEqual([
      { name: 'dashboard_session', httpOnly: true, sameSite: 'Strict', path: '/admin' },
    ]);

    // The overview: charts drawn on the server, each as wide as the screen allows.
    await clickAndLoad(page, page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Overview' }));
    expect(await page.locator('svg.chart').count()).toBe(3);
    for (const width of await page.locator('svg.chart').evaluateAll((svgs) => svgs.map((s) => s.getBoundingClientRect().width))) {
      expect(width).toBeGreaterThan(300);
      expect(width).toBeLessThanOrEqual(390);
    }
    expect(await page.locator('figure.chart-card').first().innerText()).toContain('2 invitations: 2 open.');
    await measure('overview');
    await page.goto(`${h.publicUrl}/admin/invitations`);
    await measure('invitations');

    // A new account: its token shown once.
    await page.goto(`${h.publicUrl}/admin/accounts`);
    await measure('accounts');
    // The form is folded away under the list's heading until asked for.
    expect(await page.getByLabel("Customer's name").isVisible()).toBe(false);
    await page.locator('summary', { hasText: 'New account' }).click();
    await page.getByLabel("Customer's name").fill('Initech Hiring Solutions International');
    await clickAndLoad(page, page.getByRole('button', { name: 'Create the account' }));
    expect(await page.locator('h1').innerText()).toBe('Account Initech Hiring Solutions International created');
    const token = await page.locator('code.secret').innerText();
    expect(token).toMatch(/^ptk_\w{50}$/);
    const initech = (await h.accounts.authenticate(token))!;
    expect(initech.name).toBe('Initech Hiring Solutions International');
    await measure('token');

    // Another token, shown once too; the first keeps working.
    await clickAndLoad(page, page.getByRole('link', { name: 'On to the account' }));
    expect(await mainText(page)).not.toContain(token);
    await measure('account');
    await clickAndLoad(page, page.getByRole('button', { name: 'Issue a new token' }));
    const second = await page.locator('code.secret').innerText();
    expect(second).not.toBe(token);
    expect((await h.accounts.authenticate(second))?.id).toBe(initech.id);
    expect((await h.accounts.authenticate(token))?.id).toBe(initech.id);

    // The customer's Acme ATS key: set, then shown by its last four characters only.
    await page.goto(`${h.publicUrl}/admin/accounts/${initech.id}`);
    const credential = page.locator('#credential-acme-ats');
    await credential.getByLabel('Acme ATS API key', { exact: true }).fill(SECRET);
    await clickAndLoad(page, credential.getByRole('button', { name: 'Set', exact: true }));
    expect(await page.getByRole('status').first().innerText()).toContain('The credential was stored, sealed');
    expect(await credential.innerText()).toContain('Stored: ••••wxyz');
    expect(await page.getByLabel('Acme ATS API key', { exact: true }).inputValue()).toBe('');
    expect(await page.content()).not.toContain(SECRET);
    expect(await h.connections.credential(initech.id, 'acme-ats')).toBe(SECRET);
    const history = await page.locator('table.history').innerText();
    expect(history).toContain('Acme ATS credential set: ••••wxyz');
    expect(history).toContain(`dashboard, ${ADMIN.username}`);
    await measure('account-with-credential');

    // Revoking asks first, on a page of its own.
    await clickAndLoad(page, page.getByRole('link', { name: 'Revoke…' }).first());
    expect(await page.locator('h1').innerText()).toBe(`Revoke the token ${token.slice(0, 16)}…?`);
    await measure('revoke');
    await clickAndLoad(page, page.getByRole('link', { name: 'No, go back' }));

    // Search, from the header: a candidate's e-mail, then the new account by its name.
    const search = page.getByRole('search').first().getByRole('searchbox');
    await search.fill('GRACE.hop');
    await clickAndLoad(page, page.getByRole('search').first().getByRole('button', { name: 'Search' }));
    expect(await page.locator('table.invitations tbody tr').count()).toBe(1);
    expect(await page.locator('table.invitations').innerText()).toContain('Grace Hopper');
    await measure('search');
    await page.getByRole('search').first().getByRole('searchbox').fill('initech');
    await clickAndLoad(page, page.getByRole('search').first().getByRole('button', { name: 'Search' }));
    await clickAndLoad(page, page.getByRole('link', { name: 'Initech Hiring Solutions International' }));
    expect(new URL(page.url()).pathname).toBe(`/admin/accounts/${initech.id}`);

    expect(overflow).toEqual(Object.fromEntries(Object.keys(overflow).map((name) => [name, 0])));

    // Signing out: the session is gone; the dashboard asks to sign in again.
    await clickAndLoad(page, page.getByRole('button', { name: 'Sign out' }));
    expect(await page.getByRole('status').innerText()).toBe('You are signed out.');
    expect(await page.context().cookies()).toEqual([]);
    await page.goto(`${h.publicUrl}/admin`);
    expect(new URL(page.url()).pathname).toBe('/admin/sign-in');
    expect(problems).toEqual([]);
  });
});
