import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, flowHarness, linkIn, pathOf, sendBody, type FlowHarness } from '../invitations/support.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const AUTH = basic(ADMIN.username, ADMIN.password);

describe('the dashboard', () => {
  let h: FlowHarness;
  let reportId: string;
  beforeEach(async () => {
    h = await flowHarness();
    const c = await h.customer('Acme Corp', ['JavaScript fundamentals'], 3);
    await h.customer('Globex', [], null);
    const body = sendBody(c.tests[0]!.id, { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' });
    reportId = body.report_id;
    await h.send(c.token, body);
    await h.startAndMail();
  });
  afterEach(() => h.close());

  const get = (path: string, auth = AUTH) => h.http().get(path).set('Authorization', auth);
  /** A form post as the dashboard's own page makes it: same origin. */
  const post = (path: string, form: Record<string, string> = {}, headers: Record<string, string> = { Origin: h.publicUrl }) =>
    h.http().post(path).set('Authorization', AUTH).set(headers).type('form').send(form);
  const update = (id: number) => h.row('SELECT status, next_attempt_at, give_up_at FROM report_updates WHERE id = ?', id);

  describe('sign-in', () => {
    it('without credentials, then 401 with a Basic challenge and a page, not the data', async () => {
      const res = await h.http().get('/admin');
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="Partner dashboard", charset="UTF-8"');
      expect(res.text).toContain('Sign-in required');
      expect(res.text).not.toContain('Grace');
    });

    it('with a wrong password or user name, then 401', async () => {
      expect((await get('/admin', basic(ADMIN.username, 'wrong'))).status).toBe(401);
      expect((await get('/admin', basic('root', ADMIN.password))).status).toBe(401);
      expect((await get('/admin', 'Basic !!!')).status).toBe(401);
      expect((await get('/admin', 'Bearer anything')).status).toBe(401);
    });

    it('with the right credentials, then invitations, report updates and the last 30 days show, and the accounts and their connection on their own page', async () => {
      const res = await get('/admin');
      expect(res.status).toBe(200);
      expect(res.text).toContain('Grace Hopper');
      expect(res.text).toContain(`/admin/reports/${reportId}`);
      expect(res.text).toContain('1 pending');
      expect(res.text).toContain('1 invitation: 1 open.');
      expect(res.text).toContain('<a href="/admin/accounts">2 accounts</a>');
      expect(res.text).not.toMatch(/<script/i);
      const accounts = await get('/admin/accounts');
      expect(accounts.status).toBe(200);
      expect(accounts.text).toMatch(/Acme Corp<\/a> <span class="muted">#1<\/span><\/td>\s*<td><span class="tag tag-delivered">company 3<\/span>/);
      expect(accounts.text).toMatch(/Globex<\/a> <span class="muted">#2<\/span><\/td>\s*<td><span class="tag tag-pending">not connected<\/span>/);
    });

    it('with more accounts than a page shows, then the newest 50 show, newest first, the next page after them, with how many there are in all, and a company shared by two older accounts is still named', async () => {
      await h.customer('Initech', [], 7);
      await h.customer('Initrode', [], 7);
      for (let n = 1; n <= 150; n++) await h.customer(`Customer ${n}`, [], null);
      const ids = (html: string) => [...html.matchAll(/<td><a href="\/admin\/accounts\/\d+">([^<]+)<\/a> <span class="muted">#(\d+)<\/span><\/td>/g)].map((r) => Number(r[2]));
      const first = await get('/admin/accounts');
      expect(first.status).toBe(200);
      expect(ids(first.text)).toEqual(Array.from({ length: 50 }, (_, i) => 154 - i));
      expect(first.text).toContain('All accounts <span class="muted">(154)</span>');
      expect(first.text).toContain('Platform company 7 is connected to 2 accounts (Initech #3, Initrode #4)');
      const next = /href="(\/admin\/accounts\?before=\d+)" rel="next"/.exec(first.text)![1]!;
      expect(next).toBe('/admin/accounts?before=105');
      const second = await get(next);
      expect(ids(second.text)).toEqual(Array.from({ length: 50 }, (_, i) => 104 - i));
      const last = await get('/admin/accounts?before=5');
      expect(ids(last.text)).toEqual([4, 3, 2, 1]);
      expect(last.text).not.toContain('rel="next"');
      // The invitation's account is named on the overview, though its account is far down the list.
      expect((await get('/admin')).text).toMatch(/Acme Corp<\/a> <span class="muted">#1<\/span><\/td>/);
    });

    it('on another host name than PUBLIC_URL’s (DNS rebinding), then 421 with a page naming the dashboard’s address, not the data, even with the right credentials', async () => {
      for (const host of ['evil.test', 'evil.test:80', '127.0.0.1', 'partner.test.evil.test', 'partner.test:8080', 'partner.test@evil.test']) {
        const res = await get('/admin').set('Host', host);
        expect(res.status, host).toBe(421);
        expect(res.text).toContain(`${h.publicUrl}/admin`);
        expect(res.text).not.toContain('Grace');
        expect(res.headers['www-authenticate']).toBeUndefined();
      }
      // Without TRUST_PROXY, a forwarded host is not believed.
      expect((await get('/admin').set('Host', 'evil.test').set('X-Forwarded-Host', 'partner.test')).status).toBe(421);
      expect((await get(`/admin/reports/${reportId}`).set('Host', 'evil.test')).status).toBe(421);
      expect((await get('/admin/mail/1').set('Host', 'evil.test')).status).toBe(421);
    });

    it('on PUBLIC_URL’s host name, however the browser spells it, then it is served', async () => {
      for (const host of ['partner.test', 'PARTNER.test', 'partner.test:80']) {
        const res = await get('/admin').set('Host', host);
        expect(res.status, host).toBe(200);
        expect(res.text).toContain('Grace Hopper');
      }
    });

    it('behind a trusted proxy, then the host it forwards (X-Forwarded-Host) is the one checked', async () => {
      // The proxy, on this machine, forwards to 127.0.0.1:3000; PUBLIC_URL is http://partner.test.
      const t = await flowHarness({ env: { TRUST_PROXY: 'loopback' } });
      try {
        const at = (host: string, forwarded?: string) => {
          const req = t.http().get('/admin').set('Authorization', AUTH).set('Host', host);
          return forwarded === undefined ? req : req.set('X-Forwarded-Host', forwarded);
        };
        expect((await at('127.0.0.1:3000', 'partner.test')).status).toBe(200);
        expect((await at('partner.test')).status).toBe(200);
        expect((await at('partner.test', 'evil.test')).status).toBe(421);
        expect((await at('evil.test')).status).toBe(421);
        expect((await at('127.0.0.1:3000')).status).toBe(421);
      } finally {
        await t.close();
      }
    });

    it('with ADMIN_TOKEN configured, then the token opens it as Bearer or as the Basic password', async () => {
      const token = 'tok_0123456789abcdefghijklmnopqrstuv';
      const t = await flowHarness({ env: { ADMIN_TOKEN: token, ADMIN_PASSWORD: '' } });
      try {
        expect((await t.http().get('/admin').set('Authorization', `Bearer ${token}`)).status).toBe(200);
        expect((await t.http().get('/admin').set('Authorization', basic('anyone', token))).status).toBe(200);
        expect((await t.http().get('/admin').set('Authorization', `Bearer ${token}x`)).status).toBe(401);
        // No password was configured, so the development default does not open it either.
        expect((await t.http().get('/admin').set('Authorization', basic('admin', 'admin'))).status).toBe(401);
      } finally {
        await t.close();
      }
    });

    it('when the scheme is in another case or followed by several spaces, then the credentials still open it (RFC 9110)', async () => {
      const token = 'tok_0123456789abcdefghijklmnopqrstuv';
      const t = await flowHarness({ env: { ADMIN_TOKEN: token, ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password } });
      try {
        const credentials = AUTH.slice('Basic '.length);
        for (const header of [`bearer ${token}`, `BEARER ${token}`, `Bearer   ${token}`, `bearer\t${token}`, `basic ${credentials}`, `BASIC  ${credentials}`, `Basic \t ${credentials}`]) {
          expect({ header, status: (await t.http().get('/admin').set('Authorization', header)).status }).toEqual({ header, status: 200 });
        }
        expect((await t.http().get('/admin').set('Authorization', `bearer  ${token}x`)).status).toBe(401);
      } finally {
        await t.close();
      }
    });
  });

  describe('form posts (CSRF)', () => {
    const firstUpdateId = async () => (await h.row('SELECT id FROM report_updates ORDER BY id LIMIT 1'))!.id as number;

    it('from another origin, without Origin, or marked cross-site or same-site, then 403 and nothing changes', async () => {
      const id = await firstUpdateId();
      for (const headers of [
        { Origin: 'https://evil.example' },
        {} as Record<string, string>,
        { Origin: 'null' },
        { Origin: h.publicUrl, 'Sec-Fetch-Site': 'cross-site' },
        { Origin: 'https://admin.partner.test', 'Sec-Fetch-Site': 'same-site' },
        { 'Sec-Fetch-Site': 'none' },
      ]) {
        const res = await post(`/admin/updates/${id}/cancel`, {}, headers);
        expect(res.status).toBe(403);
        expect(res.text).toContain('must be submitted from the dashboard');
      }
      expect((await update(id))!.status).toBe('pending');
    });

    it('from the dashboard in a browser that sends Fetch Metadata, then it is accepted even with Origin: null (a no-referrer page)', async () => {
      const id = await firstUpdateId();
      const res = await post(`/admin/updates/${id}/cancel`, {}, { Origin: 'null', 'Sec-Fetch-Site': 'same-origin' });
      expect(res.status).toBe(303);
      expect((await update(id))!.status).toBe('canceled');
      expect(res.headers['referrer-policy']).toBe('same-origin');
    });

    it('from the dashboard itself but without credentials, then 401', async () => {
      const res = await h.http().post(`/admin/updates/${await firstUpdateId()}/cancel`).set('Origin', h.publicUrl).type('form').send({});
      expect(res.status).toBe(401);
      expect((await update(await firstUpdateId()))!.status).toBe('pending');
    });

    it('"cancel retries" stops a pending update; "retry now" queues it again, due at once with a fresh give-up window', async () => {
      const id = await firstUpdateId();
      const canceled = await post(`/admin/updates/${id}/cancel`, { back: `/admin/reports/${reportId}` }, { Origin: h.publicUrl, 'Sec-Fetch-Site': 'same-origin' });
      expect(canceled.status).toBe(303);
      expect(canceled.headers.location).toBe(`/admin/reports/${reportId}?notice=stopped`);
      expect((await update(id))!.status).toBe('canceled');
      expect((await get(canceled.headers.location!)).text).toContain('Retries canceled');

      h.clock.advance(60_000);
      const retried = await post(`/admin/updates/${id}/retry`);
      expect(retried.headers.location).toBe('/admin?notice=retried');
      const now = h.clock.now();
      expect(await update(id)).toEqual({
        status: 'pending',
        next_attempt_at: new Date(now).toISOString(),
        give_up_at: new Date(now + 3 * 24 * 3600_000).toISOString(),
      });
    });

    it('from a page on another host name that resolves to this server (DNS rebinding), then 421 and the invitation is not canceled', async () => {
      const attempts: Record<string, string>[] = [
        { Host: 'evil.test', Origin: 'http://evil.test' },
        { Host: 'evil.test', Origin: 'http://evil.test', 'Sec-Fetch-Site': 'same-origin' },
        // The configured origin in Origin does not make another Host acceptable either.
        { Host: 'evil.test', Origin: h.publicUrl },
      ];
      for (const headers of attempts) {
        const res = await post(`/admin/reports/${reportId}/cancel`, { back: `/admin/reports/${reportId}` }, headers);
        expect(res.status).toBe(421);
        expect(res.text).toContain(`${h.publicUrl}/admin`);
      }
      expect(await h.row('SELECT status, canceled_by FROM invitations WHERE report_id = ?', reportId)).toEqual({ status: 'sent', canceled_by: null });
      expect(await h.row('SELECT count(*) AS n FROM report_updates')).toEqual({ n: 1 });
    });

    it('an open redirect through "back" is not possible', async () => {
      const res = await post(`/admin/updates/${await firstUpdateId()}/cancel`, { back: 'https://evil.example/admin' });
      expect(res.headers.location).toBe('/admin?notice=stopped');
    });

    it('"cancel invitation" cancels it on our side, queues the canceled update and stops the candidate link', async () => {
      const link = pathOf(linkIn((await h.mails())[0]!.text));
      const res = await post(`/admin/reports/${reportId}/cancel`, { back: `/admin/reports/${reportId}` });
      expect(res.headers.location).toBe(`/admin/reports/${reportId}?notice=canceled`);
      expect(await h.row('SELECT status, canceled_by FROM invitations')).toEqual({ status: 'canceled', canceled_by: 'vendor' });
      expect(JSON.parse((await h.rows('SELECT body FROM report_updates ORDER BY id DESC LIMIT 1'))[0]!.body as string)).toEqual({
        status: 'canceled',
        canceled_by: 'vendor',
        cancel_reason: null,
        at: new Date(h.clock.now()).toISOString(),
      });
      expect((await h.http().get(link)).status).toBe(410);
      // Again: nothing more to cancel.
      expect((await post(`/admin/reports/${reportId}/cancel`)).headers.location).toBe('/admin?notice=not-canceled');
      expect(await h.row('SELECT count(*) AS n FROM report_updates')).toEqual({ n: 2 });
    });

    it('"resend invitation" sends a second e-mail with a fresh link that works', async () => {
      h.clock.advance(3600_000);
      await post(`/admin/reports/${reportId}/resend`);
      await h.sender.runOnce();
      const mails = await h.mails();
      expect(mails).toHaveLength(2);
      const fresh = linkIn(mails[1]!.text);
      expect(fresh).not.toBe(linkIn(mails[0]!.text));
      expect((await h.http().get(pathOf(fresh))).status).toBe(200);
    });
  });

  it('the report page shows the delivery log: request, error, attempts and next attempt', async () => {
    // A platform nothing listens on: the attempt fails with a connection error and is scheduled again.
    const t = await flowHarness({ platform: { url: 'http://127.0.0.1:9', codename: 'demo-assessments', secret: 's3cret' } });
    try {
      const c = await t.customer('Acme', ['SQL basics']);
      const body = sendBody(c.tests[0]!.id);
      await t.send(c.token, body);
      await t.startAndMail();
      expect(await t.worker.runOnce()).toMatchObject({ retried: 1 });
      const page = await t.http().get(`/admin/reports/${body.report_id}`).set('Authorization', AUTH);
      expect(page.status).toBe(200);
      expect(page.text).toContain('ECONNREFUSED');
      // The request's fields, its links shortened; the whole request behind a disclosure.
      expect(page.text).toMatch(new RegExp(`<dt>urls.show</dt><dd><a href="${t.publicUrl}/results\\?token=[\\w.-]+" [^>]*>…/results\\?token=eyJhbGci…</a>`));
      expect(page.text).toContain(`<pre>{\n  &quot;urls&quot;: {\n    &quot;show&quot;: &quot;${t.publicUrl}/results?token=`);
      const next = new Date(t.clock.now() + 10_000).toISOString();
      expect(page.text).toContain(`next <time datetime="${next}" title="${next}">`);
      expect(page.text).not.toContain('s3cret');
      expect(page.text).not.toContain('Report updates are waiting');
    } finally {
      await t.close();
    }
  });

  it('when PARTNER_SECRET is not set, then the dashboard says why report updates wait', async () => {
    const res = await get('/admin');
    expect(res.text).toContain('Report updates are waiting: PARTNER_SECRET is not set');
  });

  it('the e-mail page shows what the JSON transport rendered, from the database', async () => {
    const res = await get('/admin/mail/1');
    expect(res.status).toBe(200);
    expect(res.text).toContain('Acme Corp invites you to take the JavaScript fundamentals test');
    expect(res.text).toContain('Grace Hopper &lt;grace@example.com&gt;');
    expect(res.text).toContain('Demo Assessments &lt;no-reply@partner.localhost&gt;');
    expect(res.text).toContain((await h.row('SELECT candidate_url FROM invitations WHERE report_id = ?', reportId))!.candidate_url);
    expect((await get('/admin/mail/999')).status).toBe(404);
    expect((await get('/admin/reports/not-a-uuid')).status).toBe(404);
  });

  it('the e-mail page of an erased e-mail says so, and shows none of it', async () => {
    await h.sql.run('UPDATE mail_outbox SET recipient = NULL, subject = NULL, message = NULL WHERE id = 1');
    const erased = await get('/admin/mail/1');
    expect(erased.status).toBe(200);
    expect(erased.text).toContain("Erased with the candidate's personal data.");
    expect(erased.text).not.toContain('grace@example.com');
  });
});

describe('the dashboard for a check', () => {
  it("a check's dashboard carries the manifest's name and says when consent was given, not \"submitted\"", async () => {
    const h = await flowHarness({ kind: 'background_check', env: { PARTNER_MANIFEST: 'scripts/partner-manifest.background-check.json' } });
    try {
      const c = await h.customer('Acme', ['Criminal record check']);
      const body = sendBody(c.tests[0]!.id);
      await h.send(c.token, body);
      await h.startAndMail();
      const token = new URL(linkIn((await h.mails())[0]!.text)).searchParams.get('token')!;
      await h.http().post('/take').type('form').send({ token, consent: 'yes' }).expect(303);
      const overview = await h.http().get('/admin').set('Authorization', AUTH).expect(200);
      expect(overview.text).toContain('<title>Dashboard · Demo Background Checks dashboard</title>');
      expect(overview.text).toContain('<a class="brand" href="/admin">Demo Background Checks <span>dashboard</span></a>');
      expect(overview.text).toContain(' · consent given');
      const report = await h.http().get(`/admin/reports/${body.report_id}`).set('Authorization', AUTH).expect(200);
      expect(report.text).toContain('<dt>Consent given</dt>');
      for (const text of [overview.text, report.text]) expect(text).not.toMatch(/submitted/i);
    } finally {
      await h.close();
    }
  });

  it('records an operator decision only after consent, and the update carries status and score only', async () => {
    const h = await flowHarness({ kind: 'reference_check' });
    try {
      const c = await h.customer('Acme', ['Two professional references']);
      const body = sendBody(c.tests[0]!.id);
      await h.send(c.token, body);
      await h.startAndMail();
      const decide = (decision: string, confirm: Record<string, string> = { confirm: 'yes' }) =>
        h.http().post(`/admin/reports/${body.report_id}/decide`).set('Authorization', AUTH).set('Origin', h.publicUrl).type('form').send({ decision, ...confirm });

      expect((await decide('clear')).headers.location).toBe('/admin?notice=not-decided');
      expect(await h.row('SELECT status FROM invitations')).toEqual({ status: 'sent' });
      const page = await h.http().get(`/admin/reports/${body.report_id}`).set('Authorization', AUTH);
      expect(page.text).toContain("Waiting for the candidate's consent");

      const token = new URL(linkIn((await h.mails())[0]!.text)).searchParams.get('token')!;
      await h.http().post('/take').type('form').send({ token, consent: 'yes' }).expect(303);
      expect((await decide('maybe')).headers.location).toBe('/admin?notice=not-decided');
      // Without the confirmation page's answer, the operator is asked first and nothing is recorded.
      const asked = await decide('adverse', {});
      expect(asked.status).toBe(200);
      expect(asked.text).toContain('This cannot be undone.');
      expect(await h.row('SELECT status FROM invitations')).toEqual({ status: 'sent' });
      h.clock.advance(86_400_000);
      expect((await decide('adverse')).headers.location).toBe('/admin?notice=decided');
      expect(await h.row('SELECT status, score FROM invitations')).toEqual({ status: 'failed', score: 'Poor' });
      const last = JSON.parse((await h.rows('SELECT body FROM report_updates ORDER BY id DESC LIMIT 1'))[0]!.body as string);
      expect(Object.keys(last).sort()).toEqual(['at', 'completed_at', 'score', 'score_value', 'status', 'urls']);
      const now = new Date(h.clock.now()).toISOString();
      expect(last).toMatchObject({ status: 'failed', score: 'Poor', score_value: null, completed_at: now, at: now });
    } finally {
      await h.close();
    }
  });
});
