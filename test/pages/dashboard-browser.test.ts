import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { leaveChromium, sharedChromium } from '../support/browser.js';
import { flowHarness, linkIn, sendBody, type FlowHarness } from '../invitations/support.js';
import { FULL_JWT, ISO_TIME, READABLE_TIME, asOperator, clickAndLoad, mainText, openPage } from './browser.js';

/** The dashboard in headless Chromium, read as its operator reads it. */
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

/** A listening partner whose platform refuses connections: each delivery is logged, then retried. */
async function partner(options: Parameters<typeof flowHarness>[0] = {}) {
  h = await flowHarness({ listen: true, platform: { url: 'http://127.0.0.1:9', codename: 'demo-assessments', secret: 's3cret' }, ...options });
  return h;
}

/** Ada, invited by Acme (company 3), her e-mail stored; returns the report id and the candidate link. */
async function invite(test = 'JavaScript fundamentals') {
  const c = await h.customer('Acme', [test], 3);
  const body = sendBody(c.tests[0]!.id);
  await h.send(c.token, body).expect(201);
  await h.starter.runOnce();
  // This platform refuses connections, so that the delivery log has retries to show; its
  // acceptance of the report, which lets the e-mail go, is stood in for.
  await h.platformAccepts();
  await h.sender.runOnce();
  return { reportId: body.report_id, link: linkIn((await h.mails())[0]!.text), testId: c.tests[0]!.id, accountId: c.accountId };
}

describe('the dashboard in a browser', () => {
  it('shows report updates and the delivery log as fields, links shortened, the raw JSON behind a disclosure, times readable', async () => {
    await partner();
    const { reportId, link, testId } = await invite();
    // Ada answers every question right: the update carries a score, subtitle, properties and links.
    const questions = await h.rows('SELECT id, answer FROM demo_questions WHERE test_id = ? ORDER BY position', testId);
    const token = new URL(link).searchParams.get('token')!;
    h.clock.advance(7 * 60_000);
    await h.http().post('/take').type('form').send({ token, ...Object.fromEntries(questions.map((q) => [`q${q.id}`, String(q.answer)])) }).expect(303);
    // Both updates (the links, then the result) go in one request, refused: retried later.
    expect(await h.worker.runOnce()).toMatchObject({ delivered: 0, retried: 2 });

    const { page, problems } = await asOperator(browser, h.publicUrl);
    await page.goto(`${h.publicUrl}/admin`);
    const updates = page.locator('table.updates');
    const text = await updates.innerText();
    for (const field of ['started', 'status', 'score', 'completed_at', 'subtitle', 'properties', 'urls.show']) expect(text).toContain(field);
    expect(text).toContain('100%');
    expect(text).toContain('JavaScript fundamentals: 5 of 5 correct');
    expect(text).toContain('Correct answers: 5 of 5');
    expect(text).toContain('Pass mark: 60%');
    expect(text).toContain('1 Nov 2026, 09:07:00 UTC');

    // The results link reads short; the link itself is whole.
    const show = updates.getByRole('link', { name: '…/results?token=eyJhbGci…' }).first();
    expect(await show.isVisible()).toBe(true);
    const href = await show.getAttribute('href');
    expect(href).toMatch(new RegExp(`^${h.publicUrl}/results\\?token=${FULL_JWT.source}$`));

    // No JSON and no whole token in what the page shows, until the operator asks for it.
    const main = await mainText(page);
    expect(main).not.toContain('{"');
    expect(main).not.toContain('"status"');
    expect(main).not.toMatch(FULL_JWT);
    const raw = updates.locator('details.raw').first();
    expect(await raw.locator('pre').isVisible()).toBe(false);
    await raw.locator('summary').click();
    expect(await raw.locator('pre').isVisible()).toBe(true);
    expect(JSON.parse(await raw.locator('pre').innerText())).toMatchObject({ status: 'completed', score: '100%' });

    // Times: readable, the exact ISO value as the tooltip.
    const times = page.locator('main time');
    expect(await times.count()).toBeGreaterThan(3);
    for (const t of await times.all()) {
      expect(await t.innerText()).toMatch(READABLE_TIME);
      expect(await t.getAttribute('title')).toMatch(ISO_TIME);
    }
    expect(main).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);

    // The report page: the same fields, and the delivery log's request and answer behind a disclosure.
    await page.goto(`${h.publicUrl}/admin/reports/${reportId}`);
    const log = page.locator('table.attempts');
    const logText = await log.innerText();
    expect(logText).toContain('ECONNREFUSED');
    expect(logText).toContain('urls.show');
    expect(logText).toContain('…/results?token=eyJhbGci…');
    expect(logText).toContain('Request and answer');
    expect(logText).toMatch(/next \d{1,2} Nov 2026, 09:07:10 UTC/);
    const reportMain = await mainText(page);
    expect(reportMain).not.toContain('{"');
    expect(reportMain).not.toMatch(FULL_JWT);
    expect(reportMain).toMatch(/Received\s+1 Nov 2026, 09:00:00 UTC/);
    expect(await page.locator('time', { hasText: '1 Nov 2026, 09:00:00 UTC' }).first().getAttribute('title')).toBe('2026-11-01T09:00:00.000Z');
    const request = log.locator('details.raw').first();
    await request.locator('summary').click();
    expect(await request.locator('pre').first().innerText()).toContain('"show": "' + h.publicUrl + '/results?token=');
    // The questions' code reads as code on the report page too.
    expect(await page.locator('ol.details code', { hasText: 'typeof null' }).count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it('the e-mail: "stored", not "sent", under the JSON transport; its candidate link is a link; its HTML part shows as the candidate sees it', async () => {
    await partner();
    const { reportId } = await invite();
    const candidateUrl = (await h.row('SELECT candidate_url FROM invitations'))!.candidate_url as string;
    const { page, problems } = await asOperator(browser, h.publicUrl);

    await page.goto(`${h.publicUrl}/admin`);
    const mails = page.locator('main table').last();
    expect(await mails.locator('.tag').innerText()).toBe('stored');
    expect(await mails.innerText()).not.toMatch(/\bsent\b/);
    await page.goto(`${h.publicUrl}/admin/reports/${reportId}`);
    expect(await page.locator('main ul .tag').last().innerText()).toBe('stored');

    await page.getByRole('link', { name: 'Acme invites you to take the JavaScript fundamentals test' }).click();
    await page.waitForURL(`${h.publicUrl}/admin/mail/1`);
    const main = await mainText(page);
    expect(main).toMatch(/Status\s+stored/);
    expect(main).toContain('not sent to anyone');
    expect(main).toMatch(/Stored\s+1 Nov 2026, 09:00:00 UTC/);
    expect(main).not.toMatch(/\bSent\b/);

    // The HTML part, in a sandboxed frame (no scripts, no forms), rendered as a mail client would;
    // same-origin, so that the page can size the frame to the e-mail.
    const iframe = page.locator('iframe.mail-html');
    expect((await iframe.getAttribute('sandbox'))!.split(' ').sort()).toEqual(['allow-popups', 'allow-popups-to-escape-sandbox', 'allow-same-origin']);
    const body = page.frameLocator('iframe.mail-html').locator('body');
    expect(await body.innerText()).toContain('Acme invites you to take the JavaScript fundamentals test as part of your application.');

    // "Start the test" opens the test in a tab of its own, outside the frame, styled; the candidate has not opened it.
    const tab = page.context().waitForEvent('page');
    await page.frameLocator('iframe.mail-html').getByRole('link', { name: 'Start the test' }).click();
    const test = await tab;
    await test.waitForURL(/\/take\?token=/);
    await test.waitForLoadState('load');
    expect(test.url().startsWith(`${candidateUrl}&preview=`)).toBe(true);
    expect(await test.locator('h1').innerText()).toBe('JavaScript fundamentals');
    // Styled: the stylesheet loaded (the card has its background, not the browser's transparent default).
    expect(await test.evaluate('getComputedStyle(document.querySelector("section.card")).backgroundColor')).not.toBe('rgba(0, 0, 0, 0)');
    expect(await test.getByRole('button', { name: 'Submit my answers' }).isVisible()).toBe(true);
    expect(await h.row('SELECT opened_at FROM invitations')).toEqual({ opened_at: null });
    await test.close();

    // The candidate link: shown short, in the text part too; following it from here opens the test, still not as the candidate.
    expect(await page.locator('pre.mail a').innerText()).toBe(candidateUrl);
    const link = page.getByRole('link', { name: /^…\/take\?token=eyJhbGci…$/ });
    expect(await link.getAttribute('title')).toBe(candidateUrl);
    await link.click();
    await page.waitForURL(/\/take\?token=/);
    expect(await page.locator('h1').innerText()).toBe('JavaScript fundamentals');
    expect(await h.row('SELECT opened_at FROM invitations')).toEqual({ opened_at: null });

    // The candidate's own click counts.
    await page.goto(candidateUrl);
    expect(await h.row('SELECT opened_at FROM invitations')).toEqual({ opened_at: '2026-11-01T09:00:00.000Z' });
    expect(problems).toEqual([]);
  });

  it('"Record result" asks first, on a page of its own, and only the confirmation records it', async () => {
    await partner({ kind: 'background_check' });
    const { reportId, link } = await invite('Criminal record check');
    // Ada gives her consent in the browser: one clearly worded button, one thank-you.
    const candidate = await openPage(browser);
    await candidate.page.goto(link);
    expect(await candidate.page.getByRole('button').allInnerTexts()).toEqual(['Give consent']);
    await candidate.page.getByRole('checkbox').first().check();
    await clickAndLoad(candidate.page, candidate.page.getByRole('button', { name: 'Give consent' }));
    expect(candidate.page.url()).toMatch(/\/take\?token=/);
    expect((await mainText(candidate.page)).match(/thank you/gi)).toHaveLength(1);

    const { page, problems } = await asOperator(browser, h.publicUrl);
    await page.goto(`${h.publicUrl}/admin/reports/${reportId}`);
    await page.getByRole('button', { name: 'Record result: clear…' }).click();
    await page.waitForURL(/\/decide\?decision=clear/);
    expect(await page.locator('h1').innerText()).toBe('Record result: clear for Ada Lovelace?');
    expect(await mainText(page)).toContain('This cannot be undone.');
    expect(await h.row('SELECT status FROM invitations')).toEqual({ status: 'sent' });

    // Going back records nothing.
    await page.getByRole('link', { name: 'No, go back' }).click();
    await page.waitForURL(`${h.publicUrl}/admin/reports/${reportId}`);
    expect(await h.row('SELECT status FROM invitations')).toEqual({ status: 'sent' });

    await clickAndLoad(page, page.getByRole('button', { name: 'Record result: adverse…' }));
    expect(await page.locator('h1').innerText()).toBe('Record result: adverse for Ada Lovelace?');
    await page.getByRole('button', { name: 'Yes, record “adverse”' }).click();
    await page.waitForURL(`${h.publicUrl}/admin/reports/${reportId}?notice=decided`);
    expect(await page.getByRole('status').innerText()).toContain('The result was recorded');
    expect(await h.row('SELECT status FROM invitations')).toEqual({ status: 'failed' });
    expect(await page.getByRole('button', { name: /Record result/ }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('states which account each invitation came through, and which one a company uses after its token was replaced with another account’s', async () => {
    await partner();
    const acme = await h.customer('Acme', ['JavaScript fundamentals'], 3);
    h.clock.advance(60_000);
    await h.accounts.issueToken(acme.accountId);
    await h.send(acme.token, sendBody(acme.tests[0]!.id)).expect(201);
    // Company 3's recruiter replaces the token with Globex's: Globex is connected to company 3 too.
    h.clock.advance(3600_000);
    const globex = await h.customer('Globex', ['SQL basics'], 3);
    const latest = sendBody(globex.tests[0]!.id, { first_name: 'Grace', last_name: 'Hopper' });
    await h.send(globex.token, latest).expect(201);
    await h.customer('Initech', [], null);
    const keyIds = (await h.rows('SELECT account_id, lookup FROM account_tokens ORDER BY id')).map((r) => ({ account: r.account_id, keyId: `ptk_${r.lookup}` }));

    const { page, problems } = await asOperator(browser, h.publicUrl);
    await page.goto(`${h.publicUrl}/admin/accounts`);
    // Newest first: Initech, Globex, Acme.
    const rows = page.locator('table.accounts tbody tr');
    const acmeRow = await rows.nth(2).innerText();
    expect(acmeRow).toContain('Acme');
    expect(acmeRow).toContain('company 3');
    expect(acmeRow).toContain('since 1 Nov 2026, 09:00:00 UTC');
    expect(acmeRow).toContain(`${keyIds[0]!.keyId}…`);
    expect(acmeRow).toContain(`${keyIds[1]!.keyId}… created 1 Nov 2026, 09:01:00 UTC · newest`);
    const globexRow = await rows.nth(1).innerText();
    expect(globexRow).toContain('company 3');
    expect(globexRow).toContain(`${keyIds[2]!.keyId}… created 1 Nov 2026, 10:01:00 UTC`);
    expect(await rows.nth(0).innerText()).toContain('not connected');
    // The whole token is never shown: only its key id.
    expect(await mainText(page)).not.toMatch(/ptk_\w{40,}/);

    const note = await page.getByRole('status').filter({ hasText: 'Platform company 3' }).innerText();
    expect(note).toContain('is connected to 2 accounts (Acme #1, Globex #2)');
    expect(note).toContain("It now calls with Globex #2's token");

    await page.goto(`${h.publicUrl}/admin`);
    const invitations = page.locator('table.invitations');
    expect(await invitations.locator('tbody tr').nth(0).innerText()).toMatch(/Grace Hopper[\s\S]*Globex #2/);
    expect(await invitations.locator('tbody tr').nth(1).innerText()).toMatch(/Ada Lovelace[\s\S]*Acme #1/);

    await page.goto(`${h.publicUrl}/admin/reports/${latest.report_id}`);
    const account = await mainText(page);
    expect(account).toMatch(/Account\s+Globex #2 · sent by platform company 3/);
    expect(account).toContain(`active token: ${keyIds[2]!.keyId}… created 1 Nov 2026, 10:01:00 UTC`);
    expect(problems).toEqual([]);
  });
});
