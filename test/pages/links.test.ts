import jwt from 'jsonwebtoken';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LINK_ISSUER } from '../../src/partner/invitations/links.js';
import { ADMIN, flowHarness, LINK_SECRET, linkIn, pathOf, sendBody, type FlowHarness } from '../invitations/support.js';

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('signed invitation links', () => {
  let h: FlowHarness;
  let reportId: string;
  let link: string;
  beforeEach(async () => {
    h = await flowHarness();
    const c = await h.customer('Acme', ['JavaScript fundamentals']);
    const body = sendBody(c.tests[0]!.id);
    reportId = body.report_id;
    await h.send(c.token, body);
    await h.startAndMail();
    link = pathOf(linkIn((await h.mails())[0]!.text));
  });
  afterEach(() => h.close());

  const open = (path: string) => h.http().get(path);
  /** `exp` an hour after the fake clock's now (links are checked against the app's clock). */
  const inAnHour = () => Math.floor(h.clock.now() / 1000) + 3600;
  const withToken = (token: string) => open(`/take?token=${token}`);
  /** A friendly page: HTML, the heading given, and no trace of the code behind it. */
  const expectFriendly = (res: { status: number; text: string; headers: Record<string, string> }, status: number, heading: string) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain(heading);
    expect(res.text).not.toMatch(/at \w+ \(|node_modules|JsonWebTokenError|TokenExpiredError|stack/i);
  };

  it('when the link from the e-mail is opened, then the test page shows and the opening is recorded', async () => {
    const res = await open(link);
    expect(res.status).toBe(200);
    expect(res.text).toContain('JavaScript fundamentals');
    expect(res.text).toContain('Submit my answers');
    expect((await h.row('SELECT opened_at FROM invitations'))!.opened_at).toBe(new Date(h.clock.now()).toISOString());
  });

  it('when the operator follows the link from the dashboard’s e-mail, then the page shows and the candidate has not opened it; a forged or another report’s mark does not hide an opening', async () => {
    const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
    await h.http().get('/admin/mail/1/open').expect(401);
    const redirect = await h.http().get('/admin/mail/1/open').set('authorization', basic).expect(303);
    expect(redirect.headers.location).toMatch(new RegExp(`^${h.publicUrl}${link.replace('?', '\\?')}&preview=eyJ`));
    const preview = pathOf(redirect.headers.location!);
    expect((await open(preview)).text).toContain('Submit my answers');
    expect(await h.row('SELECT opened_at FROM invitations')).toEqual({ opened_at: null });

    const mark = new URL(preview, 'http://x').searchParams.get('preview')!;
    const otherReport = jwt.sign({ sub: '5e1f0c2a-0000-4000-8000-ffffffffffff', exp: inAnHour() }, LINK_SECRET, { algorithm: 'HS256', audience: 'preview', issuer: LINK_ISSUER });
    const candidateToken = new URL(link, 'http://x').searchParams.get('token')!;
    for (const forged of [`${mark.slice(0, -2)}AA`, otherReport, candidateToken, '']) {
      await h.sql.run('UPDATE invitations SET opened_at = NULL');
      await open(`${link}&preview=${forged}`).expect(200);
      expect(await h.row('SELECT opened_at FROM invitations')).toEqual({ opened_at: new Date(h.clock.now()).toISOString() });
    }
  });

  it('when a character of the signature is changed, then a friendly "does not work" page answers 400', async () => {
    const token = new URL(link, 'http://x').searchParams.get('token')!;
    const last = token.at(-2) === 'A' ? 'B' : 'A';
    expectFriendly(await withToken(token.slice(0, -2) + last + token.at(-1)), 400, 'This link does not work');
  });

  it('when the payload is swapped for another report, then the signature no longer matches: 400', async () => {
    const [header, , signature] = new URL(link, 'http://x').searchParams.get('token')!.split('.');
    const forged = b64({ sub: '5e1f0c2a-0000-4000-8000-ffffffffffff', aud: 'candidate', iss: LINK_ISSUER, exp: 4102444800 });
    expectFriendly(await withToken(`${header}.${forged}.${signature}`), 400, 'This link does not work');
  });

  it('when the link is older than its expiry, then a friendly "expired" page answers 410', async () => {
    h.clock.advance(h.config.links.candidateTtlMs + 1000);
    expectFriendly(await open(link), 410, 'This link has expired');
  });

  it('when an unsigned token (alg "none") names the report, then it is refused: 400', async () => {
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: reportId, aud: 'candidate', iss: LINK_ISSUER, exp: 4102444800 })}.`;
    expectFriendly(await withToken(unsigned), 400, 'This link does not work');
  });

  it('when a token is signed with the right key but another algorithm (HS512), then it is refused: 400', async () => {
    const token = jwt.sign({ sub: reportId, exp: inAnHour() }, LINK_SECRET, { algorithm: 'HS512', audience: 'candidate', issuer: LINK_ISSUER });
    expectFriendly(await withToken(token), 400, 'This link does not work');
  });

  it('when the results link is used as a candidate link, or the other way round, then the audience is wrong: 400', async () => {
    const results = h.links.resultsUrl(reportId);
    expectFriendly(await withToken(new URL(results).searchParams.get('token')!), 400, 'This link does not work');
    const candidate = new URL(link, 'http://x').searchParams.get('token')!;
    expectFriendly(await open(`/results?token=${candidate}`), 400, 'This results link does not work');
  });

  it('when a token comes from another issuer, another key, or has no expiry, then it is refused: 400', async () => {
    const sign = (secret: string, issuer: string, payload: object = { sub: reportId, exp: inAnHour() }) =>
      jwt.sign(payload, secret, { algorithm: 'HS256', audience: 'candidate', issuer });
    expectFriendly(await withToken(sign(LINK_SECRET, 'someone-else')), 400, 'does not work');
    expectFriendly(await withToken(sign('another-key-0123456789-0123456789-xx', LINK_ISSUER)), 400, 'does not work');
    expectFriendly(await withToken(sign(LINK_SECRET, LINK_ISSUER, { sub: reportId })), 400, 'does not work');
  });

  it('when the token is missing, garbage or huge, then the same friendly page answers', async () => {
    expectFriendly(await open('/take'), 400, 'This link does not work');
    expectFriendly(await withToken('not.a.jwt'), 400, 'This link does not work');
    expectFriendly(await withToken('x'.repeat(5000)), 400, 'This link does not work');
    expectFriendly(await h.http().post('/take').type('form').send({ token: 'nope', q1: '0' }), 400, 'This link does not work');
  });

  it('when a valid link names a report this partner does not have, then it answers as a broken link', async () => {
    const token = jwt.sign({ sub: '5e1f0c2a-0000-4000-8000-ffffffffffff', exp: inAnHour() }, LINK_SECRET, {
      algorithm: 'HS256',
      audience: 'candidate',
      issuer: LINK_ISSUER,
    });
    expectFriendly(await withToken(token), 400, 'This link does not work');
  });
});
