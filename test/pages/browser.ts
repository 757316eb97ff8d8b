import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { clickAndLoad, openPage } from '../support/browser.js';

export { clickAndLoad, openPage };
import { ADMIN } from '../invitations/support.js';

/**
 * The dashboard as its operator opens it: signed in on its sign-in page, the session's cookie kept
 * by the browser for the pages that follow.
 */
export async function asOperator(browser: Browser, publicUrl: string, options: BrowserContextOptions = {}): Promise<{ page: Page; problems: string[] }> {
  const opened = await openPage(browser, options);
  const { page } = opened;
  await page.goto(`${publicUrl}/admin/sign-in`);
  await page.getByLabel('User name').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await clickAndLoad(page, page.getByRole('button', { name: 'Sign in' }));
  if (new URL(page.url()).pathname !== '/admin') throw new Error(`signing in led to ${page.url()}, not the dashboard`);
  return opened;
}

/** What a person reads in the page's main part: the rendered text only (a closed `<details>` hides its content). */
export const mainText = (page: Page) => page.locator('main').innerText();

/** How the pages write a moment: "1 Nov 2026, 09:00:00 UTC". */
export const READABLE_TIME = /^\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}, \d{2}:\d{2}:\d{2} UTC$/;
export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** A signed link's token in full: a JWT's three parts. */
export const FULL_JWT = /eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}/;
