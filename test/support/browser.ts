import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import { chromiumCandidates } from './binaries.js';

/** How the page tests run Chromium: headless, no first-run chores, nothing fetched in the background. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const HOW_TO_INSTALL = [
  'The page tests drive a real Chromium and found none that starts. Either:',
  '  - run npm install, which installs one (@sparticuz/chromium, Linux only), or',
  '  - set CHROMIUM_PATH to a Chromium or Chrome executable (CHROMIUM_PATH=/path/to/chrome npm test), or',
  '  - install one with the system: apt-get install chromium (Debian/Ubuntu), brew install --cask chromium (macOS),',
  '    or Google Chrome from https://www.google.com/chrome/.',
].join('\n');

/**
 * Launches the Chromium the page tests use: CHROMIUM_PATH when set, else the first of
 * test/support/binaries.ts's candidates that starts. Throws, saying how to get one, when none
 * starts: a page test without a browser fails, it is never skipped silently.
 */
export async function launchChromium(): Promise<Browser> {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH is ${fromEnv}, and there is no file there.\n${HOW_TO_INSTALL}`);
    return chromium.launch({ executablePath: fromEnv, args: CHROMIUM_ARGS });
  }
  const tried: string[] = [];
  for (const candidate of chromiumCandidates()) {
    try {
      return await chromium.launch({ ...(await candidate.options()), args: CHROMIUM_ARGS });
    } catch (err) {
      tried.push(`  ${candidate.describe}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  throw new Error(`${HOW_TO_INSTALL}\nTried:\n${tried.join('\n')}`);
}

/** The Chromium this worker's page tests share (`sharedChromium`). */
let shared: Promise<Browser> | undefined;

/**
 * The Chromium the page test files of this worker share, launched by the first one that asks: a
 * worker runs its files one after another in one process (vitest.config.ts, `isolate: false`), and
 * a launch cost some 1.6 s of CPU, once per file. A file gives it back with `leaveChromium`.
 * Playwright ends the browser when the worker exits, as it does every browser it launched.
 */
export async function sharedChromium(): Promise<Browser> {
  const browser = await (shared ??= launchChromium().catch((err: unknown) => {
    shared = undefined;
    throw err;
  }));
  if (browser.isConnected()) return browser;
  // It crashed or was closed: the next file gets a new one.
  shared = undefined;
  return sharedChromium();
}

/**
 * Closes what a file opened in the shared Chromium: its files run one after another, so every
 * context still open is the file's own.
 */
export async function leaveChromium(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((context) => context.close()));
}

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

/**
 * Clicks `target` and waits until the page the click leads to has loaded. `page.waitForURL` returns
 * at once when the URL already matches, and a form that answers with the page it was sent from
 * (POST /take, then 303 to the same /take?token=…) leaves the URL as it was: the test would go on
 * reading the old page, and its next navigation would cut the new one's loading short. The main
 * frame's next navigation is what tells.
 */
export async function clickAndLoad(page: Page, target: Locator): Promise<void> {
  const navigated = page.waitForEvent('framenavigated', (frame) => frame === page.mainFrame());
  await target.click();
  await navigated;
  await page.waitForLoadState('load');
}
