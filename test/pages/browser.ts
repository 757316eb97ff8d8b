import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { ADMIN } from '../invitations/support.js';

/**
 * A Chromium page that collects what would break it under helmet's CSP: refused scripts, styles
 * or frames, script errors, and sub-resources that failed to load. (A page answered 4xx on purpose
 * is not a problem: only documents are allowed to be.)
 */
export async function openPage(browser: Browser, options: BrowserContextOptions = {}): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('response', (r) => {
    if (r.status() >= 400 && r.request().resourceType() !== 'document') problems.push(`${r.status()} ${r.url()}`);
  });
  page.on('requestfailed', (r) => {
    if (r.resourceType() !== 'document') problems.push(`failed ${r.url()}`);
  });
  return { page, problems };
}

/** The dashboard as its operator opens it: the browser answers the Basic challenge. */
export const asOperator = (browser: Browser) => openPage(browser, { httpCredentials: { username: ADMIN.username, password: ADMIN.password } });

/** What a person reads in the page's main part: the rendered text only (a closed `<details>` hides its content). */
export const mainText = (page: Page) => page.locator('main').innerText();

/** How the pages write a moment: "1 Nov 2026, 09:00:00 UTC". */
export const READABLE_TIME = /^\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}, \d{2}:\d{2}:\d{2} UTC$/;
export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** A signed link's token in full: a JWT's three parts. */
export const FULL_JWT = /eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}/;
