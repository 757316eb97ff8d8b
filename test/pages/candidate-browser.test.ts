import express from 'express';
import helmet from 'helmet';
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/http/logger.js';
import { candidatePages } from '../../src/partner/pages/candidate.js';
import { resultsPage } from '../../src/partner/pages/results.js';
import { PARTNER_ASSETS_DIR } from '../../src/partner/pages/views.js';
import { leaveChromium, sharedChromium } from '../support/browser.js';
import { flowHarness, linkIn, sendBody, type FlowHarness } from '../invitations/support.js';
import { ISO_TIME, READABLE_TIME, clickAndLoad, mainText, openPage } from './browser.js';

/** The candidate's pages and the recruiter's results page in headless Chromium. */
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

async function invited(options: Parameters<typeof flowHarness>[0] = {}, test = 'JavaScript fundamentals') {
  h = await flowHarness({ listen: true, ...options });
  const c = await h.customer('Acme', [test]);
  const body = sendBody(c.tests[0]!.id);
  await h.send(c.token, body).expect(201);
  await h.startAndMail();
  return { link: linkIn((await h.mails())[0]!.text), testId: c.tests[0]!.id, reportId: body.report_id };
}

const answersOf = async (testId: number) =>
  (await h.rows('SELECT id, answer FROM demo_questions WHERE test_id = ? ORDER BY position', testId)) as { id: number; answer: number }[];

describe('the candidate in a browser', () => {
  it('reads the questions’ code as code, is thanked once, and the recruiter’s results page shows readable times', async () => {
    const { link, testId } = await invited();
    const { page, problems } = await openPage(browser);
    await page.goto(link);

    // `typeof null` in the question bank: code, not backticks.
    const first = page.locator('legend').first();
    expect(await first.innerText()).toBe('1. What does typeof null evaluate to?');
    expect(await first.locator('code').innerText()).toBe('typeof null');
    expect(await page.locator('legend code').count()).toBe(3);
    expect(await mainText(page)).not.toContain('`');

    for (const q of await answersOf(testId)) await page.locator(`input[name="q${q.id}"][value="${q.answer}"]`).check();
    await clickAndLoad(page, page.getByRole('button', { name: 'Submit my answers' }));
    expect(page.url()).toMatch(/\/take\?token=/);
    expect(await page.locator('h1').innerText()).toBe('Thank you, Ada');
    const thanks = await mainText(page);
    expect(thanks.match(/thank you/gi)).toHaveLength(1);
    expect(thanks).toContain('Your answers were received. The recruiter will see your result.');
    expect(thanks).toContain('submitted 1 Nov 2026, 09:00:00 UTC');
    expect(await page.locator('main time').getAttribute('title')).toBe('2026-11-01T09:00:00.000Z');

    // The recruiter's results page, from the report's urls.show.
    const update = JSON.parse((await h.rows('SELECT body FROM report_updates ORDER BY id DESC LIMIT 1'))[0]!.body as string);
    await page.goto(update.urls.show);
    const results = await mainText(page);
    expect(results).toMatch(/Completed\s+1 Nov 2026, 09:00:00 UTC/);
    expect(results).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    expect(results).not.toContain('`');
    const completed = page.locator('main time').first();
    expect(await completed.innerText()).toMatch(READABLE_TIME);
    expect(await completed.getAttribute('title')).toMatch(ISO_TIME);
    expect(await page.locator('ol.details code', { hasText: 'typeof null' }).count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it('for a check: the e-mail and the page say "Give consent", and consent is thanked once', async () => {
    const { link } = await invited({ kind: 'reference_check' }, 'Two professional references');
    const mail = (await h.mails())[0]!;
    expect(mail.text).toContain('Give consent:');
    expect(mail.html).toContain('>Give consent</a>');
    expect(mail.text + mail.html).not.toContain('Review and give consent');

    const { page, problems } = await openPage(browser);
    await page.goto(link);
    expect(await page.getByRole('button').allInnerTexts()).toEqual(['Give consent']);
    for (const box of await page.getByRole('checkbox').all()) await box.check();
    await clickAndLoad(page, page.getByRole('button', { name: 'Give consent' }));
    expect(page.url()).toMatch(/\/take\?token=/);
    const thanks = await mainText(page);
    expect(thanks.match(/thank you/gi)).toHaveLength(1);
    expect(thanks).toContain('Your consent was received. We will now contact your referees');
    expect(problems).toEqual([]);
  });

  describe('with the vendor’s name given to the pages', () => {
    let server: Server | undefined;
    afterEach(async () => {
      if (server) await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    });

    /** The candidate and results pages as the partner mounts them, named after the vendor (PARTNER_NAME, else the manifest's name). */
    async function pagesNamed(): Promise<string> {
      const app = express();
      app.use(helmet());
      app.use('/assets', express.static(PARTNER_ASSETS_DIR, { index: false }));
      const logger = createLogger('silent');
      const vendorName = h.config.partnerName;
      app.use(candidatePages({ invitations: h.invitations, lifecycle: h.lifecycle, links: h.links, provider: h.provider, logger, vendorName }));
      app.use(resultsPage({ invitations: h.invitations, links: h.links, provider: h.provider, logger, vendorName }));
      server = createServer(app);
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    }

    it('shows it in the header of the test, the thank-you, the results and a broken link’s page', async () => {
      const { link, testId } = await invited();
      expect(h.config.partnerName).toBe('Demo Assessments');
      const base = await pagesNamed();
      const { page, problems } = await openPage(browser);
      const path = new URL(link);

      await page.goto(`${base}${path.pathname}${path.search}`);
      expect(await page.locator('header .brand').innerText()).toBe('Demo Assessments assessment');
      for (const q of await answersOf(testId)) await page.locator(`input[name="q${q.id}"][value="${q.answer}"]`).check();
      await clickAndLoad(page, page.getByRole('button', { name: 'Submit my answers' }));
      expect(page.url()).toMatch(/\/take\?token=/);
      expect(await page.locator('header .brand').innerText()).toBe('Demo Assessments assessment');

      const show = new URL(JSON.parse((await h.rows('SELECT body FROM report_updates ORDER BY id DESC LIMIT 1'))[0]!.body as string).urls.show);
      await page.goto(`${base}${show.pathname}${show.search}`);
      expect(await page.locator('header .brand').innerText()).toBe('Demo Assessments assessment');

      await page.goto(`${base}/take?token=broken`);
      expect(await page.locator('h1').innerText()).toBe('This link does not work');
      expect(await page.locator('header .brand').innerText()).toBe('Demo Assessments');
      expect(problems).toEqual([]);
    });
  });
});
