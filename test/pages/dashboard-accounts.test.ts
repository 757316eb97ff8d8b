import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { definePlatform, type PlatformDefinition } from '../../src/partner/platforms/index.js';
import { ADMIN, flowHarness, sendBody, type FlowHarness } from '../invitations/support.js';

const AUTH = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
/** Acme's key for Acme ATS: 36 characters, ending in "wxyz". */
const SECRET = 'acme_live_8f3b2c1d9e0a7f6b5c4d3wxyz';
/** A platform of a fork's own whose updates need the customer's key, as Ashby's do; it settles every update without a request. */
const ACME_ATS = definePlatform({
  name: 'acme-ats',
  label: 'Acme ATS',
  credential: { label: 'Acme ATS API key', required: true },
  create: () => ({ name: 'acme-ats', label: 'Acme ATS', emailAfterAcceptance: false, home: { endpoints: {} }, mount: () => {}, deliveryRequest: () => undefined }),
}) as PlatformDefinition;

/**
 * The dashboard's Accounts pages, as an operator uses them: create an account (its token shown
 * once, never stored), issue and revoke tokens, set and remove a platform credential (masked
 * afterwards, never in a page), each change in the account's history; every form refused from
 * another site.
 */
describe('the dashboard’s Accounts pages', () => {
  let h: FlowHarness;
  beforeEach(async () => {
    h = await flowHarness({ platforms: [ACME_ATS], env: { TRUST_PROXY: 'true' } });
  });
  afterEach(() => h.close());

  const get = (path: string) => h.http().get(path).set('Authorization', AUTH);
  /** A form posted from the dashboard's own page, by an operator at 203.0.113.5. */
  const post = (path: string, form: Record<string, string> = {}, headers: Record<string, string> = { Origin: h.publicUrl }) =>
    h.http().post(path).set('Authorization', AUTH).set('X-Forwarded-For', '203.0.113.5').set(headers).type('form').send(form);
  const tokenIn = (html: string) => /<code class="secret" id="token">(ptk_\w+)<\/code>/.exec(html)?.[1];
  /** Everything stored in the database, as text: a token or a credential must be in none of it. */
  const everything = async () => {
    const tables = ['accounts', 'account_tokens', 'account_events', 'connections', 'tests'];
    return JSON.stringify(await Promise.all(tables.map((t) => h.rows(`SELECT * FROM ${t}`))));
  };

  it('when an account is created, then its token is shown once, works, and is stored nowhere; its page and history name it by its key id only', async () => {
    const created = await post('/admin/accounts', { name: '  Acme Hiring ', tests: 'JavaScript\n\nSQL basics\n' });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.text).toContain('Account Acme Hiring created');
    expect(created.text).toContain('Shown once.');
    const token = tokenIn(created.text)!;
    expect(token).toMatch(/^ptk_\w{50}$/);
    expect((await h.accounts.authenticate(token))?.name).toBe('Acme Hiring');
    expect(await h.rows('SELECT name FROM tests ORDER BY id')).toEqual([{ name: 'JavaScript' }, { name: 'SQL basics' }]);
    expect(await everything()).not.toContain(token.slice(16));

    const page = await get('/admin/accounts/1');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<code>${token.slice(0, 16)}…</code>`);
    expect(page.text).not.toContain(token);
    expect(page.text).toMatch(/Created as “Acme Hiring”, with the token <code>ptk_\w{12}…<\/code> and 2 tests\s*<\/td>\s*<td>dashboard, operator <span class="muted">from 203.0.113.5<\/span>/);
    expect((await get('/admin/accounts')).text).not.toContain(token);
  });

  it('when the name is blank or too long, then nothing is created and the form says why, the name kept', async () => {
    const blank = await post('/admin/accounts', { name: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.text).toContain('The account was not created: the account needs a name.');
    const long = await post('/admin/accounts', { name: 'x'.repeat(201) });
    expect(long.status).toBe(400);
    expect(long.text).toContain('an account&#39;s name is at most 200 characters');
    expect(await h.rows('SELECT id FROM accounts')).toEqual([]);
    expect(await h.rows('SELECT id FROM account_events')).toEqual([]);
  });

  it('when a token is issued, then it is shown once and the older one keeps working; revoking asks first, then ends only the token named, or all', async () => {
    const c = await h.customer('Acme', [], 3);
    const issued = await post(`/admin/accounts/${c.accountId}/tokens`);
    expect(issued.status).toBe(201);
    const second = tokenIn(issued.text)!;
    expect(issued.text).toContain('A new token for Acme');
    expect((await h.accounts.authenticate(second))?.id).toBe(c.accountId);
    expect((await h.accounts.authenticate(c.token))?.id).toBe(c.accountId);

    const key = c.token.slice(0, 16);
    const asked = await get(`/admin/accounts/${c.accountId}/revoke?key=${key}`);
    expect(asked.status).toBe(200);
    expect(asked.text).toContain(`Revoke the token ${key}…?`);
    expect(asked.text).toContain('the account&#39;s other tokens keep working.');
    // A post without the confirmation page's answer is asked first, and revokes nothing.
    expect((await post(`/admin/accounts/${c.accountId}/revoke`, { key })).text).toContain('This cannot be undone.');
    expect((await h.accounts.authenticate(c.token))?.id).toBe(c.accountId);
    const revoked = await post(`/admin/accounts/${c.accountId}/revoke`, { key, confirm: 'yes' });
    expect(revoked.headers.location).toBe(`/admin/accounts/${c.accountId}?notice=revoked`);
    expect(await h.accounts.authenticate(c.token)).toBeUndefined();
    expect((await h.accounts.authenticate(second))?.id).toBe(c.accountId);
    // The same again, or a key id the account does not have: nothing to revoke.
    expect((await post(`/admin/accounts/${c.accountId}/revoke`, { key, confirm: 'yes' })).headers.location).toBe(`/admin/accounts/${c.accountId}?notice=not-revoked`);
    expect((await get(`/admin/accounts/${c.accountId}/revoke?key=ptk_000000000000`)).headers.location).toBe(`/admin/accounts/${c.accountId}?notice=not-revoked`);

    await post(`/admin/accounts/${c.accountId}/tokens`);
    expect((await get(`/admin/accounts/${c.accountId}/revoke?key=all`)).text).toContain('Its 2 tokens stop working at once');
    await post(`/admin/accounts/${c.accountId}/revoke`, { key: 'all', confirm: 'yes' });
    expect(await h.accounts.activeTokens(c.accountId)).toEqual([]);
    const page = await get(`/admin/accounts/${c.accountId}?notice=revoked`);
    expect(page.text).toContain('Revoked: the platform’s calls with it are refused from now on.');
    expect(page.text).toContain('No token that works: the platform cannot call for this account.');
    const history = (await h.rows('SELECT action, via, who, address FROM account_events ORDER BY id')).map((e) => [e.action, e.via, e.who, e.address]);
    expect(history).toEqual([
      ['token_issued', 'dashboard', ADMIN.username, '203.0.113.5'],
      ['token_revoked', 'dashboard', ADMIN.username, '203.0.113.5'],
      ['token_issued', 'dashboard', ADMIN.username, '203.0.113.5'],
      ['tokens_revoked', 'dashboard', ADMIN.username, '203.0.113.5'],
    ]);
    expect(page.text).toContain('2 tokens revoked (all that worked)');
    expect(await everything()).not.toContain(second.slice(16));
  });

  it('when a credential is set, then it is stored sealed and shown by its last four characters, never in a page again; removing it forgets it', async () => {
    const c = await h.customer('Acme', [], 3);
    const set = await post(`/admin/accounts/${c.accountId}/credentials/acme-ats`, { credential: SECRET });
    expect(set.status).toBe(303);
    expect(set.headers.location).toBe(`/admin/accounts/${c.accountId}?notice=credential-set`);
    expect(await h.connections.credential(c.accountId, 'acme-ats')).toBe(SECRET);
    expect(await everything()).not.toContain(SECRET.slice(0, 12));
    const page = await get(set.headers.location!);
    expect(page.text).toContain('Stored: <code>••••wxyz</code>');
    expect(page.text).toContain('Acme ATS credential set: <code>••••wxyz</code>');
    expect(page.text).not.toContain(SECRET);
    expect(page.text).not.toContain(SECRET.slice(0, -4));
    // The field is never filled in: a password field, empty.
    expect(page.text).toMatch(/<input id="credential-acme-ats-value" name="credential" type="password" autocomplete="off" spellcheck="false" required placeholder="A new Acme ATS API key">/);
    expect((await get('/admin/accounts')).text).toMatch(/Acme ATS API key <code>••••wxyz<\/code>/);

    const replaced = await post(`/admin/accounts/${c.accountId}/credentials/acme-ats`, { credential: 'acme_live_rotated_key_000000001234' });
    expect(replaced.status).toBe(303);
    expect((await get(`/admin/accounts/${c.accountId}`)).text).toContain('Acme ATS credential replaced: <code>••••1234</code>');

    const removed = await post(`/admin/accounts/${c.accountId}/credentials/acme-ats/remove`);
    expect(removed.headers.location).toBe(`/admin/accounts/${c.accountId}?notice=credential-removed`);
    expect(await h.connections.credential(c.accountId, 'acme-ats')).toBeUndefined();
    expect((await post(`/admin/accounts/${c.accountId}/credentials/acme-ats/remove`)).headers.location).toBe(`/admin/accounts/${c.accountId}?notice=credential-none`);
    const after = await get(`/admin/accounts/${c.accountId}`);
    expect(after.text).toContain('Acme ATS credential removed');
    // Connected to the platform now, without the key its updates need.
    expect(after.text).toContain('<span class="tag tag-dead">None: its Acme ATS updates cannot be delivered</span>');
  });

  it('when a credential is refused, then the page says why, never shows what was typed, and nothing is stored', async () => {
    const c = await h.customer('Acme', [], 3);
    const typed = 'acme_live_with\u0007bell_0000wxyz';
    const bell = await post(`/admin/accounts/${c.accountId}/credentials/acme-ats`, { credential: typed });
    expect(bell.status).toBe(400);
    expect(bell.text).toContain('The Acme ATS API key was not stored: the credential holds a control character.');
    expect(bell.text).not.toContain('acme_live_with');
    expect((await post(`/admin/accounts/${c.accountId}/credentials/acme-ats`, { credential: '   ' })).text).toContain('the credential is blank');
    expect((await post(`/admin/accounts/${c.accountId}/credentials/acme-ats`, { credential: 'x'.repeat(8193) })).text).toContain('a credential is at most 8192 characters');
    const greenhouse = await post(`/admin/accounts/${c.accountId}/credentials/greenhouse`, { credential: SECRET });
    expect(greenhouse.status).toBe(400);
    expect(greenhouse.text).toMatch(/Greenhouse \(&quot;greenhouse&quot;\) keeps no credential per customer/);
    expect(greenhouse.text).not.toContain(SECRET);
    expect((await post(`/admin/accounts/${c.accountId}/credentials/nope`, { credential: SECRET })).text).toContain('No platform &quot;nope&quot;');
    expect((await post(`/admin/accounts/99/credentials/acme-ats`, { credential: SECRET })).status).toBe(404);
    expect(await h.rows('SELECT account_id FROM connections')).toEqual([]);
    expect(await h.rows('SELECT action FROM account_events')).toEqual([]);
  });

  it('when any of its forms is posted from another site, then 403 and nothing changes', async () => {
    const c = await h.customer('Acme', [], 3);
    const key = c.token.slice(0, 16);
    for (const headers of [{ Origin: 'https://evil.example' }, {} as Record<string, string>, { Origin: h.publicUrl, 'Sec-Fetch-Site': 'cross-site' }]) {
      for (const [path, form] of [
        ['/admin/accounts', { name: 'Evil Co' }],
        [`/admin/accounts/${c.accountId}/tokens`, {}],
        [`/admin/accounts/${c.accountId}/revoke`, { key, confirm: 'yes' }],
        [`/admin/accounts/${c.accountId}/credentials/acme-ats`, { credential: SECRET }],
        [`/admin/accounts/${c.accountId}/credentials/acme-ats/remove`, {}],
      ] as const) {
        const res = await post(path, form, headers);
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.text).toContain('must be submitted from the dashboard');
      }
    }
    expect(await h.rows('SELECT name FROM accounts')).toEqual([{ name: 'Acme' }]);
    expect((await h.accounts.activeTokens(c.accountId)).map((t) => t.keyId)).toEqual([key]);
    expect(await h.rows('SELECT account_id FROM connections')).toEqual([]);
    expect(await h.rows('SELECT action FROM account_events')).toEqual([]);
  });

  it('when the list has an account with invitations, then it shows how many and when the last came in; an unknown account is 404', async () => {
    const c = await h.customer('Acme', ['JavaScript fundamentals'], 3);
    await h.send(c.token, sendBody(c.tests[0]!.id)).expect(201);
    h.clock.advance(60_000);
    await h.send(c.token, sendBody(c.tests[0]!.id)).expect(201);
    const list = await get('/admin/accounts');
    const row = list.text.split('<tr>').find((r) => r.includes('>Acme</a>'))!;
    expect(row).toMatch(/<td>\s*2\s*<br><span class="muted">last <time datetime="2026-11-01T09:01:00.000Z"/);
    expect((await get('/admin/accounts/99')).status).toBe(404);
    expect((await get('/admin/accounts/nope')).status).toBe(404);
  });

  it('when an account has more invitations than a list counts, then the list says "1,000+" and its own page counts them', async () => {
    const c = await h.customer('Big Co', [], 3);
    await h.sql.run(
      `INSERT INTO invitations (report_id, account_id, company_id, candidate_id, test_id, test_name, first_name, last_name, email, created_at, updated_at)
       WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 1001)
       SELECT 'bulk-' || v, $1, 3, v, 'js', 'JavaScript', 'Ada', 'Lovelace', 'ada' || v || '@example.com', '2026-11-01T08:00:00.000Z', '2026-11-01T08:00:00.000Z' FROM n`,
      [c.accountId],
    );
    const row = (await get('/admin/accounts')).text.split('<tr>').find((r) => r.includes('>Big Co</a>'))!;
    expect(row).toMatch(/<td>\s*1,000\+\s*<br>/);
    expect((await get(`/admin/accounts/${c.accountId}`)).text).toMatch(/<dt>Invitations<\/dt><dd>1,001 <span class="muted">/);
  });
});
