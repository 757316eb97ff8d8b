import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../scripts/dev.js';
import { signVendorResult } from '../../src/contract/vendor-signature.js';
import { leaveChromium, sharedChromium } from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import { ACME, ADA, sendFromGreenhouse, startDev } from '../e2e/support.js';
import { ADMIN } from '../invitations/support.js';
import { asOperator, openPage } from './browser.js';

/**
 * Every page of the sandbox and of the partner's dashboard on a phone, 390 CSS pixels wide, with
 * every control opened — each <details> unfolded (Acme's "E-mail in" with its long mailbox options),
 * the tests listed where a page lists them (Initech's stage pickers) — as a newcomer clicks through
 * after sending a test from each platform and finishing one: no page scrolls sideways as a whole,
 * and no form control is cut off by the box it sits in. The pages are found by following every
 * link from the sandbox's home and the dashboard's overview, one page of each kind.
 */

/** A phone: 390 CSS pixels wide. */
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true };
const RESULTS_SECRET = 'phone-pages-results-secret-0123456789';

const dir = mkdtempSync(path.join(tmpdir(), 'kit-phone-'));
let browser: Browser;
let sandbox: Sandbox;
let reportId: string;
beforeAll(async () => {
  [browser, sandbox] = await Promise.all([sharedChromium(), startDev(path.join(dir, 'partner.db'), { VENDOR_RESULTS_SECRET: RESULTS_SECRET, ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password })]);
  const mock = request(sandbox.mockUrl);
  // A test from each platform; the hiring platform's is finished, so its page has a score and its e-mail a preview.
  const tests = await mock.get(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/tests`).expect(200);
  const test = tests.body.tests[0] as { id: number; name: string };
  const sent = await mock.post(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/send`).send({ candidate_id: ADA, test_id: test.id, test_name: test.name }).expect(201);
  reportId = sent.body.report.id;
  await sendFromGreenhouse(sandbox.mockUrl);
  const listed = await mock.get('/_mock/platforms/ashby/tests').expect(200);
  await mock.post('/_mock/platforms/ashby/sends').send({ test_id: listed.body.tests[0].id }).expect(201);
  await eventually(async () => expect((await mock.get(`/api/marketplace/c/${ACME.id}/reports/${reportId}`).expect(200)).body.report.urls.show).toBeDefined(), {
    what: "the hiring platform's report links",
    intervalMs: 100,
  });
  const body = JSON.stringify({ status: 'completed', score: '92%', subtitle: 'Strong on closures and on the event loop' });
  await request(sandbox.partnerUrl)
    .post(`/vendor/reports/${reportId}/result`)
    .set('content-type', 'application/json')
    .set('x-vendor-signature', signVendorResult(RESULTS_SECRET, reportId, body))
    .send(body)
    .expect(200);
});
afterAll(async () => {
  await leaveChromium(browser);
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What a phone's user notices: the page scrolls sideways as a whole, or a control is cut off by the box it is in. */
const MEASURE = `(() => {
  for (const details of document.querySelectorAll('details')) details.open = true;
  // Against the phone's width, not innerWidth: a phone's browser widens its layout to a page wider than the screen.
  const width = ${PHONE.viewport.width};
  const overflow = document.documentElement.scrollWidth - width;
  const clipped = [];
  for (const control of document.querySelectorAll('main input:not([type=hidden]), main select, main textarea, main button')) {
    const rect = control.getBoundingClientRect();
    if (rect.width === 0) continue;
    for (let box = control.parentElement; box && box !== document.body; box = box.parentElement) {
      const style = getComputedStyle(box);
      if (style.overflowX === 'visible') continue;
      const edge = box.getBoundingClientRect();
      if (rect.right > edge.right + 1 || rect.left < edge.left - 1) clipped.push((control.getAttribute('name') || control.textContent.trim() || control.tagName).slice(0, 40));
      break;
    }
    if (rect.right > width + 1) clipped.push((control.getAttribute('name') || control.textContent.trim() || control.tagName).slice(0, 40) + ' (past the screen)');
  }
  return { overflow, clipped };
})()`;

/** A page's kind: its path with ids and UUIDs as `{id}`, and its query's names. */
function kindOf(url: URL): string {
  const shape = url.pathname
    .replace(/\/offers\/[\w-]+/, '/offers/{slug}')
    .replace(/\/[0-9a-f]{8}-[0-9a-f-]{27}(?=\/|$)/g, '/{id}').replace(/\/\d+(?=\/|$)/g, '/{id}');
  return [shape, ...[...url.searchParams.keys()].sort()].join(' ');
}

/**
 * Follows every same-origin link from `start`, one page of each kind, and measures each at 390 px;
 * `skip` says which addresses are not pages to measure (assets, JSON, leaving the dashboard).
 */
async function crawl(page: Page, start: string[], skip: (url: URL) => boolean) {
  const origin = new URL(start[0]!).origin;
  const seen = new Set<string>();
  const queue = [...start];
  const measured: Record<string, { overflow: number; clipped: string[] }> = {};
  while (queue.length > 0) {
    const url = new URL(queue.shift()!);
    const kind = kindOf(url);
    if (seen.has(kind) || url.origin !== origin || skip(url)) continue;
    seen.add(kind);
    const res = await page.goto(url.href);
    if (!res || !(res.headers()['content-type'] ?? '').startsWith('text/html')) continue;
    measured[`${url.pathname}${url.search}`] = (await page.evaluate(MEASURE)) as { overflow: number; clipped: string[] };
    if (process.env.SCREENSHOTS) await page.screenshot({ path: `${process.env.SCREENSHOTS}/phone${kind.replace(/[^\w{}-]+/g, '_')}.png`, fullPage: true });
    const links = (await page.evaluate(`[...document.querySelectorAll('a[href]')].map((a) => a.href)`)) as string[];
    queue.push(...links.map((l) => l.split('#')[0]!));
  }
  return measured;
}

/** Every page fits: nothing scrolls sideways, no control is cut off. */
const fitting = (measured: Record<string, { overflow: number; clipped: string[] }>) =>
  Object.fromEntries(Object.keys(measured).map((page) => [page, { overflow: 0, clipped: [] }]));

describe('on a phone, with every control opened', () => {
  it('every page of the sandbox fits the screen: the companies, candidates and lists of each platform, the careers site, calls and admin', async () => {
    const { page, problems } = await openPage(browser, PHONE);
    const mock = sandbox.mockUrl;
    const measured = await crawl(
      page,
      [
        `${mock}/`,
        // The controls a click opens: the partner's tests listed on each platform's pages.
        `${mock}/companies/${ACME.id}/candidates/${ADA}?partner=${sandbox.codename}`,
        `${mock}/greenhouse/companies/1?list_tests=1`,
        `${mock}/ashby/companies/1?list_assessments=1`,
        `${mock}/no-such-page`,
      ],
      // Redoc's page has a test of its own (test/openapi/api-reference.test.ts); the rest is not a page.
      (url) => /^\/(assets|photos|_mock|api\/|api-reference|openapi\.json)/.test(url.pathname) || url.pathname.endsWith('/resume'),
    );
    expect(Object.keys(measured).length).toBeGreaterThan(15);
    expect(measured).toEqual(fitting(measured));
    expect(problems).toEqual([]);
  });

  it("every page of the partner's dashboard fits the screen: the overview, invitations, accounts, search, an invitation and its e-mail", async () => {
    const { page, problems } = await asOperator(browser, sandbox.partnerUrl, PHONE);
    const partner = sandbox.partnerUrl;
    const measured = await crawl(
      page,
      [`${partner}/admin`, `${partner}/admin/reports/${reportId}`, `${partner}/admin/search?q=ada`, `${partner}/admin/no-such-page`, `${partner}/no-such-page`],
      // Leaving the dashboard (the candidate's link, the results page) or signing out is not a dashboard page.
      (url) => !url.pathname.startsWith('/admin') || /\/(open|sign-out|assets)(\/|$)/.test(url.pathname),
    );
    expect(Object.keys(measured).length).toBeGreaterThan(6);
    expect(measured).toEqual(fitting(measured));
    expect(problems).toEqual([]);
  });

  it('the e-mail preview shows the whole e-mail, its last line included, and breaks no word in two', async () => {
    const { page, problems } = await asOperator(browser, sandbox.partnerUrl, PHONE);
    await page.goto(`${sandbox.partnerUrl}/admin/mail/1`);
    const frame = page.locator('iframe.mail-html');
    await frame.waitFor();
    // The frame is as tall as what it shows: nothing is cut at its bottom, nothing scrolls inside it.
    const inside = page.frameLocator('iframe.mail-html').locator('body');
    const last = inside.locator('p').last();
    expect(await last.innerText()).toBe('Demo Assessments');
    await eventually(async () => {
      const [box, lastBox] = await Promise.all([frame.boundingBox(), last.boundingBox()]);
      expect(lastBox!.y + lastBox!.height).toBeLessThanOrEqual(box!.y + box!.height);
    }, { what: 'the frame grown to its content', intervalMs: 50, timeoutMs: 15_000 });
    // The text part wraps between words: each line of the sentence ends where a word ends.
    const sentence = 'The link is personal: please do not forward it. If you were not expecting this e-mail, you can ignore it.';
    const lines = (await page.evaluate(`(() => {
      const pre = document.querySelector('pre.mail');
      const node = [...pre.childNodes].find((n) => n.nodeType === 3 && n.textContent.includes(${JSON.stringify('The link is personal')}));
      const start = node.textContent.indexOf(${JSON.stringify('The link is personal')});
      const range = document.createRange();
      const tops = new Map();
      for (let i = start; i < start + ${sentence.length}; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const top = Math.round(range.getBoundingClientRect().top);
        tops.set(top, (tops.get(top) || '') + node.textContent[i]);
      }
      return [...tops.values()];
    })()`)) as string[];
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines.slice(0, -1)) expect(line, JSON.stringify(lines)).toMatch(/\s$/);
    expect(problems).toEqual([]);
  });
});
