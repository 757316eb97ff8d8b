import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminSessions, SESSION_LIFETIME_MS } from '../../src/partner/pages/admin-session.js';
import { SIGN_IN_LIMITS } from '../../src/partner/pages/sign-in-throttle.js';
import { ADMIN, flowHarness, sendBody, type FlowHarness } from '../invitations/support.js';
import { capturedLogger } from '../support/log.js';

/** A browser's navigation: it asks for HTML. */
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const TOKEN = 'tok_0123456789abcdefghijklmnopqrstuv';

/**
 * Signing in to the dashboard from a browser: the sign-in page and its session cookie, sign-out,
 * the session's end, and the same limits and CSRF rules as every other form. Scripts still send
 * the credentials on each request (dashboard.test.ts).
 */
describe('the dashboard’s sign-in page', () => {
  let h: FlowHarness;
  let log: ReturnType<typeof capturedLogger>;
  let reportId: string;
  beforeEach(async () => {
    log = capturedLogger();
    h = await flowHarness({ env: { TRUST_PROXY: 'true' }, logger: log.logger });
    const c = await h.customer('Acme Corp', ['JavaScript fundamentals'], 3);
    const body = sendBody(c.tests[0]!.id, { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' });
    reportId = body.report_id;
    await h.send(c.token, body);
  });
  afterEach(() => h.close());

  /** What a browser at PUBLIC_URL sends: its page's origin on a form, HTML asked for, from `address`. */
  const browser = (address = '192.0.2.10') => ({ Origin: h.publicUrl, 'Sec-Fetch-Site': 'same-origin', Accept: HTML, 'X-Forwarded-For': address });
  const signIn = (username: string, password: string, extra: Record<string, string> = {}, headers: Record<string, string> = browser()) =>
    h.http().post('/admin/sign-in').set(headers).type('form').send({ username, password, ...extra });
  /** The session cookie a Set-Cookie header gives, as the browser sends it back. */
  const cookieOf = (res: { headers: Record<string, unknown> }) => {
    const set = ([] as string[]).concat((res.headers['set-cookie'] as string[] | undefined) ?? []);
    const cookie = set.find((c) => c.startsWith('dashboard_session='));
    if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(set)}`);
    return cookie.split(';')[0]!;
  };
  const open = (path: string, cookie?: string) => {
    const req = h.http().get(path).set('Accept', HTML).set('X-Forwarded-For', '192.0.2.10');
    return cookie ? req.set('Cookie', cookie) : req;
  };

  it('when a browser opens a page without a session, then it is sent to the sign-in page (no Basic prompt), and back to that page once signed in', async () => {
    const asked = await open(`/admin/reports/${reportId}`);
    expect(asked.status).toBe(303);
    expect(asked.headers.location).toBe(`/admin/sign-in?next=%2Fadmin%2Freports%2F${reportId}`);
    expect(asked.headers['www-authenticate']).toBeUndefined();
    expect(asked.text).not.toContain('Grace');

    const page = await open(asked.headers.location!);
    expect(page.status).toBe(200);
    expect(page.headers['www-authenticate']).toBeUndefined();
    expect(page.text).toContain('<form method="post" action="/admin/sign-in"');
    expect(page.text).toContain(`<input type="hidden" name="next" value="/admin/reports/${reportId}">`);
    expect(page.text).toContain('autocomplete="current-password"');
    expect(page.text).not.toContain('Grace');
    expect(page.text).not.toMatch(/<script/i);

    const signedIn = await signIn(ADMIN.username, ADMIN.password, { next: `/admin/reports/${reportId}` });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.location).toBe(`/admin/reports/${reportId}`);
    const set = (signedIn.headers['set-cookie'] as unknown as string[])[0]!;
    expect(set.split('; ').slice(1).sort()).toEqual(['HttpOnly', `Max-Age=${SESSION_LIFETIME_MS / 1000}`, 'Path=/admin', 'SameSite=Strict']);
    // Not the password, not the user name: a signed value.
    expect(set).not.toContain(ADMIN.password);
    expect(set).not.toContain(ADMIN.username);

    const report = await open(`/admin/reports/${reportId}`, cookieOf(signedIn));
    expect(report.status).toBe(200);
    expect(report.text).toContain('Grace Hopper');
    expect(report.text).toContain('<form class="sign-out" method="post" action="/admin/sign-out">');
    expect(log.entries().find((e) => e.msg === 'dashboard signed in')).toMatchObject({ address: '192.0.2.10', with: 'password' });
  });

  it('when a link to a page is followed from another site, then the page loads itself again from this origin (the browser sends its Strict cookie then), and that load goes on to sign in', async () => {
    const crossSite = { Accept: HTML, 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Site': 'cross-site', 'X-Forwarded-For': '192.0.2.10' };
    const followed = await h.http().get(`/admin/reports/${reportId}`).set(crossSite);
    expect(followed.status).toBe(200);
    expect(followed.headers['cache-control']).toBe('no-store');
    expect(followed.text).toContain('<meta http-equiv="refresh" content="0">');
    expect(followed.text).not.toContain('Grace');
    expect(followed.text).not.toContain(reportId);
    // The reload, from this origin, without a cookie: the sign-in page, no loop.
    const reloaded = await h.http().get(`/admin/reports/${reportId}`).set({ ...crossSite, 'Sec-Fetch-Site': 'same-origin' });
    expect(reloaded.status).toBe(303);
    expect(reloaded.headers.location).toBe(`/admin/sign-in?next=%2Fadmin%2Freports%2F${reportId}`);
    // With the cookie it carries then: the page.
    const cookie = cookieOf(await signIn(ADMIN.username, ADMIN.password));
    expect((await h.http().get(`/admin/reports/${reportId}`).set({ ...crossSite, 'Sec-Fetch-Site': 'same-origin', Cookie: cookie })).text).toContain('Grace Hopper');
    // A form's post from another site is never bounced: refused.
    expect((await h.http().post(`/admin/reports/${reportId}/cancel`).set({ ...crossSite, Origin: 'https://evil.example' }).type('form').send({})).status).toBe(403);
  });

  it('when the password is wrong, then the form comes back with the user name and never the password, 401, logged without what was sent, and no session', async () => {
    const res = await signIn(ADMIN.username, 'hunter2-hunter2');
    expect(res.status).toBe(401);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.text).toContain('Wrong user name or password.');
    expect(res.text).toContain(`value="${ADMIN.username}"`);
    expect(res.text).not.toContain('hunter2');
    expect(log.entries().find((e) => e.msg === 'dashboard sign-in refused: wrong credentials')).toMatchObject({ address: '192.0.2.10', failures: 1 });
    expect(log.lines.join('')).not.toContain('hunter2');
    expect((await signIn('root', ADMIN.password)).status).toBe(401);
    expect((await signIn('', '')).status).toBe(401);
  });

  it('when one address has sent 10 wrong passwords through the form, then the form and the Basic header alike answer 429 with Retry-After, the right password too, until the window has passed', async () => {
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) expect((await signIn(ADMIN.username, `guess-${i}`, {}, browser('203.0.113.5'))).status).toBe(401);
    const refused = await signIn(ADMIN.username, ADMIN.password, {}, browser('203.0.113.5'));
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(SIGN_IN_LIMITS.windowMs / 1000));
    expect(refused.headers['set-cookie']).toBeUndefined();
    expect(refused.text).toContain('Too many wrong sign-ins to the dashboard: try again in 15 minutes.');
    const basic = await h.http().get('/admin').set('X-Forwarded-For', '203.0.113.5').auth(ADMIN.username, ADMIN.password);
    expect(basic.status).toBe(429);
    // Another address signs in meanwhile.
    expect((await signIn(ADMIN.username, ADMIN.password, {}, browser('198.51.100.7'))).status).toBe(303);
    h.clock.advance(SIGN_IN_LIMITS.windowMs);
    expect((await signIn(ADMIN.username, ADMIN.password, {}, browser('203.0.113.5'))).status).toBe(303);
  });

  it('when the sign-in form is posted from another site, or with no word of where from, then 403, no session, and nothing counted', async () => {
    for (const headers of [
      { Origin: 'https://evil.example', Accept: HTML },
      { Accept: HTML } as Record<string, string>,
      { Origin: h.publicUrl, 'Sec-Fetch-Site': 'cross-site', Accept: HTML },
      { Origin: 'https://login.partner.test', 'Sec-Fetch-Site': 'same-site', Accept: HTML },
    ]) {
      const res = await signIn(ADMIN.username, ADMIN.password, {}, { ...headers, 'X-Forwarded-For': '192.0.2.10' });
      expect(res.status).toBe(403);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.text).toContain('must be submitted from the dashboard');
    }
    // Nor sign-out: another site cannot end the operator's session either.
    expect((await h.http().post('/admin/sign-out').set({ Origin: 'https://evil.example' }).type('form').send({})).status).toBe(403);
    expect(log.entries().filter((e) => e.msg === 'dashboard sign-in refused: wrong credentials')).toEqual([]);
  });

  it('when the operator signs out, then the cookie is cleared and the sign-in page says so; a browser without it is sent to sign in again', async () => {
    const cookie = cookieOf(await signIn(ADMIN.username, ADMIN.password));
    const out = await h.http().post('/admin/sign-out').set(browser()).set('Cookie', cookie).type('form').send({});
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/admin/sign-in?notice=signed-out');
    expect((out.headers['set-cookie'] as unknown as string[])[0]).toMatch(/^dashboard_session=; Path=\/admin; HttpOnly; SameSite=Strict; Max-Age=0$/);
    expect((await open(out.headers.location!)).text).toContain('You are signed out.');
    expect((await open('/admin')).headers.location).toBe('/admin/sign-in');
  });

  it('when the session is a working day old, then it has ended: the browser is sent to sign in again, told why, and the cookie cleared', async () => {
    const cookie = cookieOf(await signIn(ADMIN.username, ADMIN.password));
    h.clock.advance(SESSION_LIFETIME_MS - 1000);
    expect((await open('/admin/invitations', cookie)).status).toBe(200);
    h.clock.advance(1000);
    const ended = await open('/admin/invitations', cookie);
    expect(ended.status).toBe(303);
    expect(ended.headers.location).toBe('/admin/sign-in?notice=ended&next=%2Fadmin%2Finvitations');
    expect((ended.headers['set-cookie'] as unknown as string[])[0]).toContain('Max-Age=0');
    expect((await open(ended.headers.location!)).text).toContain('Your session has ended: sign in again.');
    // A script with the same cookie gets the 401 a script gets.
    expect((await h.http().get('/admin').set('Cookie', cookie)).status).toBe(401);
  });

  it('when the cookie is altered or made up, then it is no session', async () => {
    const cookie = cookieOf(await signIn(ADMIN.username, ADMIN.password));
    const [name, value] = cookie.split('=') as [string, string];
    const fields = value.split('.');
    // A later end, the same signature.
    const longer = [fields[0], String(Number(fields[1]) + 86_400_000), ...fields.slice(2)].join('.');
    // Another credential named, the same signature.
    const token = [...fields.slice(0, 2), 't', ...fields.slice(3)].join('.');
    for (const forged of [longer, token, `${value.slice(0, -2)}AA`, 'x', `${value}.x`]) {
      const res = await open('/admin', `${name}=${forged}`);
      expect(res.status, forged).toBe(303);
      expect(res.headers.location).toBe('/admin/sign-in?notice=ended');
    }
  });

  it('when the next page named is another site’s, then signing in leads to the dashboard’s home', async () => {
    for (const next of ['//evil.example/admin', 'https://evil.example/admin', '/admin@evil.example', '/admin//evil.example', '/administrator', '/admin\\@evil.example']) {
      const res = await signIn(ADMIN.username, ADMIN.password, { next });
      expect(res.headers.location, next).toBe('/admin');
    }
  });

  it('when signed in already, then the sign-in page leads on to the dashboard', async () => {
    const cookie = cookieOf(await signIn(ADMIN.username, ADMIN.password));
    const res = await open('/admin/sign-in?next=%2Fadmin%2Faccounts', cookie);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/accounts');
  });
});

describe('signing in with ADMIN_TOKEN, and the session’s key', () => {
  it('when only ADMIN_TOKEN is configured, then it is the password on the sign-in page, with any user name', async () => {
    const h = await flowHarness({ env: { ADMIN_TOKEN: TOKEN, ADMIN_PASSWORD: '' } });
    try {
      const page = await h.http().get('/admin/sign-in').set('Accept', HTML);
      expect(page.text).toContain('(any user name)');
      const res = await h.http().post('/admin/sign-in').set({ Origin: h.publicUrl }).type('form').send({ username: '', password: TOKEN });
      expect(res.status).toBe(303);
      const cookie = (res.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
      expect((await h.http().get('/admin').set('Cookie', cookie)).status).toBe(200);
      // The development default is no door when a token is configured.
      expect((await h.http().post('/admin/sign-in').set({ Origin: h.publicUrl }).type('form').send({ username: 'admin', password: 'admin' })).status).toBe(401);
    } finally {
      await h.close();
    }
  });

  it('when ADMIN_PASSWORD changes, or the session was made for another database, then the session is no longer accepted; over https it is Secure', async () => {
    const h = await flowHarness();
    try {
      const made = adminSessions({ sql: h.sql, clock: h.clock, admin: h.config.admin, publicUrl: 'https://partner.example' });
      const cookie = (await made.start('p')).split(';')[0]!;
      expect(await made.start('p')).toMatch(/; Secure; Max-Age=28800$/);
      expect(await made.read(cookie)).toMatchObject({ state: 'valid', operator: { who: ADMIN.username, via: 'session' } });
      const changed = adminSessions({ sql: h.sql, clock: h.clock, admin: { ...h.config.admin, password: 'another password 1234' }, publicUrl: h.publicUrl });
      expect(await changed.read(cookie)).toEqual({ state: 'ended' });
      const other = await flowHarness();
      try {
        const elsewhere = adminSessions({ sql: other.sql, clock: other.clock, admin: h.config.admin, publicUrl: h.publicUrl });
        expect(await elsewhere.read(cookie)).toEqual({ state: 'ended' });
      } finally {
        await other.close();
      }
      // Every instance of one database reads the same key: a session made by one is another's.
      const again = adminSessions({ sql: h.sql, clock: h.clock, admin: h.config.admin, publicUrl: h.publicUrl });
      expect((await again.read(cookie)).state).toBe('valid');
      expect(await h.rows("SELECT name FROM dashboard_keys")).toEqual([{ name: 'session' }]);
    } finally {
      await h.close();
    }
  });
});
