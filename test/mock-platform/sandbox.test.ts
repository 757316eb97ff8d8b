import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACME, ADA, integrate, mockPlatform, register, stubPartner, type StubPartner } from './support.js';

let partner: StubPartner;
let platform: ReturnType<typeof mockPlatform>;

beforeEach(async () => {
  partner = await stubPartner();
  platform = mockPlatform();
  await register(platform.app, 'skill-check', partner.urls);
});
afterEach(() => partner.close());

/** Follows a POST-redirect-GET and returns the page it lands on. */
async function submit(path: string, form: Record<string, string>) {
  const posted = await request(platform.app).post(path).type('form').send(form).expect(303);
  const location = posted.headers.location as string;
  expect(location).toMatch(/[?&]flash=/);
  return request(platform.app).get(location).expect(200);
}

describe('sandbox UI', () => {
  it.each(['/', `/companies/${ACME.id}`, `/companies/${ACME.id}/candidates/${ADA}`, '/calls', '/admin'])(
    '%s renders under the default CSP, without inline scripts',
    async (path) => {
      const res = await request(platform.app).get(path).expect(200).expect('content-type', /html/);
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).toContain("script-src-attr 'none'");
      // A script is a file of the mock's own assets, or none.
      expect(res.text.replace(/<script src="\/assets\/[\w-]+\.js" defer><\/script>/g, '')).not.toMatch(/<script|\son[a-z]+=/i);
    },
  );

  it('lists the registered partner and the seeded companies', async () => {
    const res = await request(platform.app).get('/').expect(200);
    expect(res.text).toContain('Skill Check');
    expect(res.text).toContain('Acme Corp');
    expect(res.text).toContain('Globex');
  });

  it('integrating with a token shows success and the token hint, never the token', async () => {
    const page = await submit(`/companies/${ACME.id}/integrations`, { codename: 'skill-check', token: 'ptk_customer_token_0001' });
    expect(page.text).toContain('Skill Check is integrated.');
    expect(page.text).toContain('…0001');
    expect(page.text).not.toContain('ptk_customer_token_0001');
  });

  it('a token the partner refuses shows "Invalid token"', async () => {
    partner.answer('/validate_token', 401, { error: 'Invalid token' });
    const page = await submit(`/companies/${ACME.id}/integrations`, { codename: 'skill-check', token: 'ptk_bad' });
    expect(page.text).toMatch(/class="flash flash-error"[^>]*>\s*Invalid token/);
  });

  it('lists tests on the candidate page, and sending the same form twice creates one report', async () => {
    await integrate(platform.app, ACME.id, 'skill-check');
    partner.answer('/tests', 200, [{ id: 7, name: 'SQL <basics>' }]);
    partner.answer('/send_candidate', 201, { status: 'sent' });
    const page = await request(platform.app).get(`/companies/${ACME.id}/candidates/${ADA}?partner=skill-check`).expect(200);
    expect(page.text).toContain('SQL &lt;basics&gt;');
    const reportId = /name="report_id" value="([0-9a-f-]{36})"/.exec(page.text)![1]!;
    const test = JSON.stringify({ id: 7, name: 'SQL <basics>' });
    const form = { codename: 'skill-check', report_id: reportId, test };
    const after = await submit(`/companies/${ACME.id}/candidates/${ADA}/send`, form);
    expect(after.text).toContain('SQL &lt;basics&gt; was sent.');
    await submit(`/companies/${ACME.id}/candidates/${ADA}/send`, form);
    expect(platform.db.prepare('SELECT id, status FROM reports').all()).toEqual([{ id: reportId, status: 'sent' }]);
    expect(partner.received.filter((r) => r.path === '/send_candidate').map((r) => (r.body as { test_id: string }).test_id)).toEqual(['7', '7']);
    const company = await request(platform.app).get(`/companies/${ACME.id}`).expect(200);
    expect(company.text).toMatch(/badge badge-sent">Skill Check: sent/);
  });

  it('a failed send shows the generic message and no badge', async () => {
    await integrate(platform.app, ACME.id, 'skill-check');
    partner.answer('/send_candidate', 500, {});
    const form = { codename: 'skill-check', report_id: crypto.randomUUID(), test: JSON.stringify({ id: 1, name: 'Ruby' }) };
    const page = await submit(`/companies/${ACME.id}/candidates/${ADA}/send`, form);
    expect(page.text).toContain('There was a problem with the Skill Check API');
    const company = await request(platform.app).get(`/companies/${ACME.id}`).expect(200);
    expect(company.text).not.toContain('badge-sent');
  });

  it('an invalid form comes back as a message on the page, not an error page', async () => {
    const page = await submit(`/companies/${ACME.id}/candidates`, { name: '', email: 'not-an-email' });
    expect(page.text).toMatch(/flash-error[^>]*>\s*name is required; email must be a valid e-mail address/);
  });

  it('adding a candidate leads to their page', async () => {
    const posted = await request(platform.app)
      .post(`/companies/${ACME.id}/candidates`)
      .type('form')
      .send({ name: 'Katherine Johnson', email: 'kj@example.com' })
      .expect(303);
    expect(posted.headers.location).toMatch(/^\/companies\/1\/candidates\/\d+\?flash=/);
    const page = await request(platform.app).get(posted.headers.location as string).expect(200);
    expect(page.text).toContain('Katherine Johnson was added.');
  });

  it('shows a new API token once', async () => {
    const page = await submit('/admin/api-tokens', { company_id: String(ACME.id), label: 'CI' });
    const token = /<code class="secret">(mock_api_[^<]+)<\/code>/.exec(page.text)![1]!;
    await request(platform.app).get(`/api/p/skill-check/c/${ACME.id}/partner`).set('authorization', `Bearer ${token}`).expect(200);
    const again = await request(platform.app).get('/admin').expect(200);
    expect(again.text).not.toContain(token);
  });

  it('arms a fault from the Admin page', async () => {
    const page = await submit('/admin/faults', { endpoint: 'reports.update', status: '503', delay_ms: '', times: '2' });
    expect(page.text).toContain('Fault armed on reports.update: status 503, 2 time(s).');
    expect((await request(platform.app).get('/_mock/faults').expect(200)).body.faults).toHaveLength(1);
  });

  it('arms a fault on a callback to the partner from the Admin page; sending then shows the problem message', async () => {
    await integrate(platform.app, ACME.id, 'skill-check');
    const admin = await request(platform.app).get('/admin').expect(200);
    expect(admin.text).toContain('<option value="callback:send_candidate">send_candidate</option>');
    const armed = await submit('/admin/faults', { endpoint: 'callback:send_candidate', status: '500', delay_ms: '', times: '1' });
    expect(armed.text).toContain('Fault armed on the send_candidate callback: status 500, 1 time(s).');
    const form = { codename: 'skill-check', report_id: crypto.randomUUID(), test: JSON.stringify({ id: 1, name: 'Ruby' }) };
    const page = await submit(`/companies/${ACME.id}/candidates/${ADA}/send`, form);
    expect(page.text).toContain('There was a problem with the Skill Check API');
    expect(partner.received.filter((r) => r.path === '/send_candidate')).toHaveLength(0);
  });

  it('shows the call history with credentials redacted', async () => {
    await integrate(platform.app, ACME.id, 'skill-check', 'ptk_customer_token_0001');
    const list = await request(platform.app).get('/calls').expect(200);
    expect(list.text).toContain('validate_token');
    expect(list.text).toContain('<th>Direction</th>');
    const id = /href="\/calls\/(\d+)">/.exec(list.text)![1];
    const detail = await request(platform.app).get(`/calls/${id}`).expect(200);
    expect(detail.text).toContain('authorization: Bearer [redacted]');
    expect(detail.text).not.toContain('ptk_customer_token_0001');
    // One header a line, as a person reads them.
    const headers = /<pre class="headers">([^<]*)<\/pre>/.exec(detail.text)![1]!.split('\n');
    expect(headers.length).toBeGreaterThan(2);
    for (const line of headers) expect(line).toMatch(/^[a-z0-9-]+: \S/);
    expect(headers).toContain('authorization: Bearer [redacted]');
  });

  it('refuses form posts from another site (403)', async () => {
    await request(platform.app)
      .post(`/companies/${ACME.id}/integrations`)
      .set('sec-fetch-site', 'cross-site')
      .type('form')
      .send({ codename: 'skill-check', token: 'x' })
      .expect(403);
    expect(partner.received).toHaveLength(0);
  });

  it('answers an unknown company or candidate with a 404 page', async () => {
    const res = await request(platform.app).get('/companies/99').expect(404).expect('content-type', /html/);
    expect(res.text).toContain('Unknown company');
    await request(platform.app).get(`/companies/${ACME.id}/candidates/31`).expect(404);
  });
});
