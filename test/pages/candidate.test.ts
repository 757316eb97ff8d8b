import { afterEach, describe, expect, it } from 'vitest';
import { flowHarness, linkIn, pathOf, sendBody, type FlowHarness } from '../invitations/support.js';

interface Q {
  id: number;
  answer: number;
  choices: string;
}

/** A harness with one started invitation; returns its link (path + query) and token. */
async function invited(options: Parameters<typeof flowHarness>[0] = {}, test = 'JavaScript fundamentals') {
  const h = await flowHarness(options);
  const c = await h.customer('Acme', [test]);
  const body = sendBody(c.tests[0]!.id);
  await h.send(c.token, body);
  await h.startAndMail();
  const link = pathOf(linkIn((await h.mails())[0]!.text));
  const token = new URL(link, 'http://x').searchParams.get('token')!;
  const questions = (await h.rows('SELECT id, answer, choices FROM demo_questions WHERE test_id = ? ORDER BY position', c.tests[0]!.id)) as unknown as Q[];
  return { h, reportId: body.report_id, link, token, questions, testId: c.tests[0]!.id };
}

const lastUpdate = async (h: FlowHarness) =>
  JSON.parse((await h.rows('SELECT body FROM report_updates ORDER BY id DESC LIMIT 1'))[0]!.body as string) as Record<string, unknown>;

describe('the candidate takes a demo test', () => {
  let h: FlowHarness;
  afterEach(() => h.close());

  it('when every answer is right, then the test is completed with 100% and the completion is queued for the platform', async () => {
    const t = await invited();
    h = t.h;
    const page = await h.http().get(t.link);
    expect(page.status).toBe(200);
    for (const q of t.questions) expect(page.text).toContain(`name="q${q.id}"`);
    // The vendor's name in the header: the manifest's name.
    expect(page.text).toMatch(/class="brand">Demo Assessments/);

    h.clock.advance(7 * 60_000);
    const answers = Object.fromEntries(t.questions.map((q) => [`q${q.id}`, String(q.answer)]));
    const submitted = await h.http().post('/take').type('form').send({ token: t.token, ...answers });
    expect(submitted.status).toBe(303);
    expect(submitted.headers.location).toBe(`/take?token=${t.token}`);

    const after = await h.http().get(submitted.headers.location!);
    expect(after.status).toBe(200);
    expect(after.text).toContain('Thank you, Ada');
    expect(await h.row('SELECT status, score, completed_at, subtitle FROM invitations')).toEqual({
      status: 'completed',
      score: '100%',
      completed_at: new Date(h.clock.now()).toISOString(),
      subtitle: `JavaScript fundamentals: ${t.questions.length} of ${t.questions.length} correct`,
    });
    const update = await lastUpdate(h);
    expect(update).toMatchObject({
      status: 'completed',
      score: '100%',
      completed_at: new Date(h.clock.now()).toISOString(),
      subtitle: `JavaScript fundamentals: ${t.questions.length} of ${t.questions.length} correct`,
      properties: [
        { label: 'Correct answers', value: `${t.questions.length} of ${t.questions.length}` },
        { label: 'Pass mark', value: '60%' },
        { label: 'Time taken', value: '7 min' },
      ],
    });
    expect((update.urls as { show: string }).show).toMatch(/\/results\?token=/);
  });

  it('when too few answers are right for the pass mark, then the test is failed with its score', async () => {
    const t = await invited();
    h = t.h;
    await h.http().get(t.link);
    const [first, ...rest] = t.questions;
    const wrong = (q: Q) => String((q.answer + 1) % (JSON.parse(q.choices) as string[]).length);
    const answers = { [`q${first!.id}`]: String(first!.answer), ...Object.fromEntries(rest.map((q) => [`q${q.id}`, wrong(q)])) };
    await h.http().post('/take').type('form').send({ token: t.token, ...answers }).expect(303);
    expect(await h.row('SELECT status, score FROM invitations')).toEqual({ status: 'failed', score: '20%' });
    expect(await lastUpdate(h)).toMatchObject({ status: 'failed', score: '20%' });
  });

  it('when answers are missing, then the page comes back 422 with the questions marked and the chosen answers kept; nothing is stored', async () => {
    const t = await invited();
    h = t.h;
    const [first, second] = t.questions;
    const res = await h.http().post('/take').type('form').send({ token: t.token, [`q${first!.id}`]: '1' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('Some answers are missing');
    expect(res.text).toContain(`id="q${second!.id}-error"`);
    expect(res.text).toMatch(new RegExp(`name="q${first!.id}" value="1"\\s+checked`));
    expect(await h.row('SELECT status FROM invitations')).toEqual({ status: 'sent' });
    expect(await h.row('SELECT count(*) AS n FROM demo_answers')).toEqual({ n: 0 });
    expect(await h.row('SELECT count(*) AS n FROM report_updates')).toEqual({ n: 1 });
  });

  it('when an answer is not one of the choices, then it counts as missing', async () => {
    const t = await invited();
    h = t.h;
    const answers = Object.fromEntries(t.questions.map((q) => [`q${q.id}`, String(q.answer)]));
    answers[`q${t.questions[0]!.id}`] = '99';
    expect((await h.http().post('/take').type('form').send({ token: t.token, ...answers })).status).toBe(422);
    expect(await h.row('SELECT status FROM invitations')).toEqual({ status: 'sent' });
  });

  it('when the form is submitted twice, then the first result stands and one completion is queued', async () => {
    const t = await invited();
    h = t.h;
    const right = Object.fromEntries(t.questions.map((q) => [`q${q.id}`, String(q.answer)]));
    const wrong = Object.fromEntries(t.questions.map((q) => [`q${q.id}`, String((q.answer + 1) % 2)]));
    expect((await h.http().post('/take').type('form').send({ token: t.token, ...right })).status).toBe(303);
    // The second submit (a double click, the back button) lands on the thank-you page.
    const again = await h.http().post('/take').type('form').send({ token: t.token, ...wrong });
    expect(again.status).toBe(200);
    expect(again.text).toContain('Thank you, Ada');
    expect(await h.row('SELECT status, score FROM invitations')).toEqual({ status: 'completed', score: '100%' });
    expect(await h.row("SELECT count(*) AS n FROM report_updates WHERE body LIKE '%\"status\"%'")).toEqual({ n: 1 });
    const reopened = await h.http().get(t.link);
    expect(reopened.text).toContain('Thank you, Ada');
  });

  it('when the invitation was canceled, then the link stops working with a friendly page, also for a submit', async () => {
    const t = await invited();
    h = t.h;
    await h.lifecycle.cancel(t.reportId, 'platform');
    const page = await h.http().get(t.link);
    expect(page.status).toBe(410);
    expect(page.text).toContain('This invitation was canceled');
    const answers = Object.fromEntries(t.questions.map((q) => [`q${q.id}`, String(q.answer)]));
    expect((await h.http().post('/take').type('form').send({ token: t.token, ...answers })).status).toBe(410);
    expect(await h.row('SELECT status FROM invitations')).toEqual({ status: 'canceled' });
  });

  it('when a page is served, then the CSP allows no inline script and the page contains none, and it is not cached', async () => {
    const t = await invited();
    h = t.h;
    const res = await h.http().get(t.link);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline\'; script');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).not.toMatch(/<script|\son\w+=/i);
  });
});

describe('the recruiter results page (report urls.show)', () => {
  let h: FlowHarness;
  afterEach(() => h.close());

  it('shows "not finished" before, and the score, subtitle, properties and answers after', async () => {
    const t = await invited();
    h = t.h;
    const show = JSON.parse((await h.rows('SELECT body FROM report_updates ORDER BY id LIMIT 1'))[0]!.body as string).urls.show as string;
    const before = await h.http().get(pathOf(show));
    expect(before.status).toBe(200);
    expect(before.text).toContain('Not finished yet');

    const answers = Object.fromEntries(t.questions.map((q) => [`q${q.id}`, String(q.answer)]));
    await h.http().post('/take').type('form').send({ token: t.token, ...answers }).expect(303);
    const after = await h.http().get(pathOf(show));
    expect(after.text).toContain('100%');
    expect(after.text).toContain(`${t.questions.length} of ${t.questions.length} correct`);
    expect(after.text).toContain('What does <code>typeof null</code> evaluate to?');
    expect(after.text).toContain('&quot;object&quot; ✓');
  });
});

describe('a check (background or reference)', () => {
  let h: FlowHarness;
  afterEach(() => h.close());

  it('asks the candidate for consent, without which nothing is submitted', async () => {
    const t = await invited({ kind: 'background_check' }, 'Criminal record check');
    h = t.h;
    const page = await h.http().get(t.link);
    expect(page.text).toContain('I consent to this background check');
    expect(page.text).not.toContain('Submit my answers');
    expect(page.text).not.toContain('role="alert"');
    // Without the tick: the box says what to do; nothing speaks of answers or questions, which a consent form has none of.
    const refused = await h.http().post('/take').type('form').send({ token: t.token });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('Tick the box to give your consent.');
    expect(refused.text).not.toMatch(/answers|questions/i);
    expect(await h.row('SELECT submitted_at FROM invitations')).toEqual({ submitted_at: null });

    await h.http().post('/take').type('form').send({ token: t.token, consent: 'yes' }).expect(303);
    expect(await h.row('SELECT status, submitted_at FROM invitations')).toEqual({
      status: 'sent',
      submitted_at: new Date(h.clock.now()).toISOString(),
    });
    // Consent is not a result: the platform hears nothing until the check is decided.
    expect(await h.row('SELECT count(*) AS n FROM report_updates')).toEqual({ n: 1 });
    expect((await h.http().get(t.link)).text).toContain('Your consent was received');
  });

  it.each([
    ['background_check', 'scripts/partner-manifest.background-check.json', 'Demo Background Checks', 'Criminal record check'],
    ['reference_check', 'scripts/partner-manifest.reference-check.json', 'Demo Reference Checks', 'Two professional references'],
  ] as const)('%s: its pages carry the manifest\'s name, and the confirmation says when consent was given, not "submitted"', async (kind, manifest, vendor, test) => {
    const t = await invited({ kind, env: { PARTNER_MANIFEST: manifest } }, test);
    h = t.h;
    const page = await h.http().get(t.link);
    expect(page.text).toContain(`<span class="brand">${vendor} <span>${kind === 'background_check' ? 'background check' : 'reference check'}</span></span>`);
    expect(page.text).not.toContain('Demo Assessments');
    await h.http().post('/take').type('form').send({ token: t.token, consent: 'yes' }).expect(303);
    const done = await h.http().get(t.link);
    expect(done.text).toContain(`class="brand">${vendor} `);
    expect(done.text).toMatch(new RegExp(`${test} · consent given <time`));
    expect(done.text).not.toMatch(/submitted/i);
  });
});
