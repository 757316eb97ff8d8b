import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, flowHarness, type FlowHarness } from '../invitations/support.js';

const AUTH = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

/**
 * The dashboard's lists: the invitations a page at a time (a keyset: each page starts after the
 * last row of the one before), an account's invitations likewise, search, and the overview's
 * last 30 days.
 */
describe('the dashboard’s lists, search and overview', () => {
  let h: FlowHarness;
  let acme: number;
  let globex: number;
  beforeEach(async () => {
    h = await flowHarness();
    acme = (await h.customer('Acme Corp', [], 3)).accountId;
    globex = (await h.customer('Globex', [], 4)).accountId;
  });
  afterEach(() => h.close());

  const get = (path: string) => h.http().get(path).set('Authorization', AUTH);
  /** An invitation as a platform's route stores it, received now (the fake clock's time). */
  const invite = async (accountId: number, email = `candidate-${randomUUID().slice(0, 8)}@example.com`, firstName = 'Ada') => {
    const reportId = randomUUID();
    const outcome = await h.invitations.create({
      reportId,
      accountId,
      testId: 'js',
      testName: 'JavaScript',
      firstName,
      lastName: 'Lovelace',
      email,
      phone: null,
      extraInputs: {},
      platform: 'hiring-platform',
      platformData: {},
    });
    expect(outcome).toBe('created');
    return reportId;
  };
  /** The report ids a page lists, in its order, and its Older / Newer links. */
  const pageAt = async (path: string) => {
    const res = await get(path);
    expect(res.status, path).toBe(200);
    const table = res.text.split('<table class="invitations">')[1]?.split('</table>')[0] ?? '';
    const link = (rel: string) => new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(res.text)?.[1]?.replace(/&amp;/g, '&');
    return { ids: [...table.matchAll(/<a href="\/admin\/reports\/([\w.:-]+)">/g)].map((m) => m[1]!), older: link('next'), newer: link('prev'), html: res.text };
  };
  /** Every page from `path` on, following "Older", with `between` run after each page is read. */
  const walk = async (path: string, between: (page: number) => Promise<void> = async () => {}) => {
    const pages: string[][] = [];
    for (let at: string | undefined = path; at; ) {
      const page = await pageAt(at);
      pages.push(page.ids);
      if (pages.length > 20) throw new Error(`still more pages after 20: ${at}`);
      await between(pages.length);
      at = page.older;
    }
    return pages;
  };

  it('when invitations arrive while an operator pages through them, many received in the same millisecond, then every one shows once, none twice, and the newer pages are the same going back', async () => {
    const stored: string[] = [];
    // 80 in the same millisecond (a burst), then 40 one a second: ties are broken by the id.
    for (let i = 0; i < 80; i++) stored.push(await invite(i % 2 === 0 ? acme : globex));
    for (let i = 0; i < 40; i++) {
      h.clock.advance(1000);
      stored.push(await invite(acme));
    }
    const first = await pageAt('/admin/invitations');
    expect(first.ids).toEqual([...stored].reverse().slice(0, 50));
    expect(first.newer).toBeUndefined();
    expect(decodeURIComponent(first.older!)).toMatch(/^\/admin\/invitations\?after=2026-11-01T09:00:00\.000Z_\d+$/);

    const arrived: string[] = [];
    const pages = await walk('/admin/invitations', async () => {
      // Five more come in after each page is read, some in the same millisecond as the newest.
      for (let i = 0; i < 5; i++) arrived.push(await invite(globex));
    });
    const seen = pages.flat();
    expect(pages.map((p) => p.length)).toEqual([50, 50, 20]);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...stored].reverse());
    expect(seen.filter((id) => arrived.includes(id))).toEqual([]);

    // Going back up from the second page: the first page's rows as they were, the new ones above them.
    const second = await pageAt(first.older!);
    const back = await pageAt(second.newer!);
    expect(back.ids).toEqual(first.ids);
    expect(back.newer).toMatch(/before=/);
    const top = await pageAt(back.newer!);
    expect(top.ids).toEqual([...arrived].reverse());
    expect(top.newer).toBeUndefined();
    // Newer than the newest: there is none, the first page is shown.
    const newest = (await h.row('SELECT created_at, id FROM invitations ORDER BY created_at DESC, id DESC LIMIT 1'))!;
    const none = await get(`/admin/invitations?before=${newest.created_at as string}_${newest.id as number}`);
    expect(none.status).toBe(303);
    expect(none.headers.location).toBe('/admin/invitations');
  });

  it('when filtered by status, or on one account’s page, then the pages hold exactly those invitations, in order, each once', async () => {
    const ofAcme: string[] = [];
    for (let i = 0; i < 130; i++) {
      if (i % 3 === 0) h.clock.advance(1000);
      const id = await invite(i % 4 === 0 ? globex : acme);
      if (i % 4 !== 0) ofAcme.push(id);
    }
    await h.sql.run("UPDATE invitations SET status = 'completed' WHERE id % 2 = 0");
    const completed = (await h.rows("SELECT report_id FROM invitations WHERE status = 'completed' ORDER BY created_at DESC, id DESC")).map((r) => r.report_id);
    const byStatus = await walk('/admin/invitations?status=completed');
    expect(byStatus.flat()).toEqual(completed);
    expect(byStatus.length).toBe(2);
    expect((await pageAt('/admin/invitations?status=failed')).html).toContain('No invitations with status failed.');

    const pages = await walk(`/admin/accounts/${acme}`);
    expect(pages.map((p) => p.length)).toEqual([50, 47]);
    expect(pages.flat()).toEqual([...ofAcme].reverse());
    // A cursor that is not one is the first page.
    expect((await pageAt(`/admin/invitations?after=nonsense`)).ids).toHaveLength(50);
    // The overview's older link for one status leads here.
    expect((await get('/admin?invitations=completed')).headers.location).toBe('/admin/invitations?status=completed');
  });

  it('searches by a candidate’s e-mail (its beginning, in any case), a whole report id, and an account’s name or number', async () => {
    const grace = await invite(acme, 'Grace@Example.com', 'Grace');
    const hopper = await invite(globex, 'grace.hopper@navy.mil', 'Grace');
    const ada = await invite(acme, 'ada@example.com');
    const ids = (html: string) => [...html.matchAll(/<a href="\/admin\/reports\/([\w.:-]+)">/g)].map((m) => m[1]);

    const byPrefix = await get('/admin/search?q=grace');
    expect(byPrefix.status).toBe(200);
    expect(ids(byPrefix.text).sort()).toEqual([grace, hopper].sort());
    expect(ids((await get('/admin/search?q=GRACE%40EX')).text)).toEqual([grace]);
    expect(ids((await get(`/admin/search?q=${ada}`)).text)).toEqual([ada]);
    // A report id's beginning finds nothing: report ids are found whole.
    expect(ids((await get(`/admin/search?q=${ada.slice(0, 8)}`)).text)).toEqual([]);

    const accounts = (html: string) => [...html.matchAll(/<li><a href="\/admin\/accounts\/(\d+)">([^<]+)<\/a>/g)].map((m) => m[2]);
    expect(accounts((await get('/admin/search?q=acm')).text)).toEqual(['Acme Corp']);
    expect(accounts((await get('/admin/search?q=%232')).text)).toEqual(['Globex']);
    expect(accounts((await get('/admin/search?q=Grace')).text)).toEqual([]);

    const none = await get('/admin/search?q=%3Cscript%3Enobody');
    expect(none.text).toContain('No invitation has the report id “&lt;script&gt;nobody” or a candidate e-mail that starts with it.');
    expect(none.text).not.toContain('<script>');
    const empty = await get('/admin/search?q=');
    expect(empty.text).toContain('Find an invitation by its candidate');
    expect((await get(`/admin/search?q=${'x'.repeat(201)}`)).text).toContain('A search is at most 200 characters.');
  });

  it('the overview draws the last 30 days on the server: invitations per day by status, deliveries and how long they waited, dead letters', async () => {
    const day = 86_400_000;
    h.clock.advance(-2 * day);
    const older = await invite(acme);
    h.clock.advance(2 * day);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await invite(globex));
    await h.sql.run("UPDATE invitations SET status = 'completed' WHERE report_id = $1", [ids[0]]);
    // 40 days ago: outside the overview's days.
    h.clock.advance(-40 * day);
    await invite(acme);
    h.clock.advance(40 * day);
    const now = new Date(h.clock.now()).toISOString();
    const at = (ms: number) => new Date(h.clock.now() + ms).toISOString();
    const invitationId = (await h.row('SELECT id FROM invitations WHERE report_id = $1', older))!.id;
    for (const [outcome, n] of [['delivered', 3], ['retry', 1]] as const) {
      for (let i = 0; i < n; i++) {
        await h.sql.run(
          `INSERT INTO report_update_attempts (invitation_id, report_id, first_update_id, last_update_id, request_body, outcome, started_at, duration_ms)
           VALUES ($1, $2, 1, 1, '{}', $3, $4, 5)`,
          [invitationId, older, outcome, now],
        );
      }
    }
    for (const [status, waitedMs] of [['delivered', 400], ['delivered', 30_000], ['dead', 0]] as const) {
      await h.sql.run(
        `INSERT INTO report_updates (invitation_id, report_id, body, status, next_attempt_at, give_up_at, delivered_at, created_at, updated_at, last_error)
         VALUES ($1, $2, '{}', $3, $4, $4, $5, $4, $4, $6)`,
        [invitationId, older, status, at(-waitedMs), status === 'delivered' ? now : null, status === 'dead' ? 'HTTP 404: no such report' : null],
      );
    }

    const res = await get('/admin');
    expect(res.status).toBe(200);
    expect(res.text).toContain('The last 30 days <span class="muted">(3 Oct – 1 Nov, UTC)</span>');
    expect(res.text).toContain('4 invitations: 3 open, 1 completed.');
    expect(res.text).toContain('75% of 4 attempts delivered (3 delivered, 1 to retry).');
    expect(res.text).toContain('2 updates delivered: half within 1 s, 95% within 1 min of being queued.');
    expect(res.text).toContain('1 report update given up on: the platform never got it.');
    expect(res.text).toContain('HTTP 404: no such report');
    // Drawn on the server: SVG, no script, a tooltip per day.
    const svgs = res.text.match(/<svg class="chart"[^>]*>/g) ?? [];
    expect(svgs).toHaveLength(3);
    for (const svg of svgs) expect(svg).toMatch(/role="img" aria-label="[^"]+"/);
    expect(res.text).toContain('<title>1 Nov: 2 open, 1 completed</title>');
    expect(res.text).toContain('<title>30 Oct: 1 open</title>');
    expect(res.text).toContain('<title>31 Oct: none</title>');
    expect(res.text).not.toMatch(/<script/i);
  });

  it('the overview reads today’s invitations on every view, the days before at most every five minutes', async () => {
    const day = 86_400_000;
    await invite(acme);
    h.clock.advance(-day);
    await invite(acme);
    h.clock.advance(day);
    const days = async () => {
      const html = (await get('/admin')).text;
      return { yesterday: /<title>31 Oct: ([^<]+)<\/title>/.exec(html)![1], today: /<title>1 Nov: ([^<]+)<\/title>/.exec(html)![1] };
    };
    expect(await days()).toEqual({ yesterday: '1 open', today: '1 open' });
    await invite(globex);
    h.clock.advance(-day);
    const late = await invite(globex);
    h.clock.advance(day);
    await h.sql.run("UPDATE invitations SET status = 'completed' WHERE report_id = $1", [late]);
    expect(await days()).toEqual({ yesterday: '1 open', today: '2 open' });
    h.clock.advance(5 * 60_000);
    expect(await days()).toEqual({ yesterday: '1 open, 1 completed', today: '2 open' });
  });
});
