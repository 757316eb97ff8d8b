import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type LaunchOptions, type Locator, type Page } from 'playwright-core';

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

/** Where Chromium or Chrome usually is when installed by the system's package manager or by hand. */
const COMMON_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

const HOW_TO_INSTALL = [
  'The page tests drive a real Chromium and found none. Either:',
  '  - set CHROMIUM_PATH to a Chromium or Chrome executable (CHROMIUM_PATH=/path/to/chrome npm test), or',
  '  - install Playwright’s build: npx playwright-core install chromium, or',
  '  - install one with the system: apt-get install chromium (Debian/Ubuntu), brew install --cask chromium (macOS),',
  '    or Google Chrome from https://www.google.com/chrome/.',
].join('\n');

type Candidate = { describe: string; options: LaunchOptions };

function candidates(): Candidate[] {
  const found: Candidate[] = [];
  let bundled: string | undefined;
  try {
    bundled = chromium.executablePath();
  } catch {
    // No build for this platform: the other places may still have one.
  }
  if (bundled && existsSync(bundled)) found.push({ describe: `Playwright's Chromium at ${bundled}`, options: { executablePath: bundled } });
  found.push({ describe: "the 'chrome' channel (Google Chrome where Playwright expects it)", options: { channel: 'chrome' } });
  for (const file of COMMON_PATHS) {
    if (existsSync(file)) found.push({ describe: file, options: { executablePath: file } });
  }
  return found;
}

/**
 * Launches the Chromium the page tests use: CHROMIUM_PATH when set, else Playwright's own build,
 * else Google Chrome's channel, else the usual install paths. Throws, saying how to get one, when
 * none starts: a page test without a browser fails, it is never skipped silently.
 */
export async function launchChromium(): Promise<Browser> {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH is ${fromEnv}, and there is no file there.\n${HOW_TO_INSTALL}`);
    return chromium.launch({ executablePath: fromEnv, args: CHROMIUM_ARGS });
  }
  const tried: string[] = [];
  for (const candidate of candidates()) {
    try {
      return await chromium.launch({ ...candidate.options, args: CHROMIUM_ARGS });
    } catch (err) {
      tried.push(`  ${candidate.describe}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  throw new Error(`${HOW_TO_INSTALL}\nTried:\n${tried.join('\n')}`);
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
