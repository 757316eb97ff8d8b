import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { BARBARA, CLIENT_SECRET, KRAMERICA, VANDELAY, WEBHOOK_SECRET, api, bobSandbox, exchange, fakeVendor, order, register, type FakeVendor } from './hibob-support.js';

/**
 * The mock's Bob as a person uses it in the sandbox: the home page's cards, the company page (the
 * vendor's app with what the partner must be given, the catalog, the candidates, the webhooks), the
 * marketplace's install, and a candidate's page where the recruiter orders from the catalog and
 * sees the status, score and result link as the vendor's PATCHes arrive — every value the vendor
 * sent shown as text, never as markup.
 */

let vendor: FakeVendor;
let mock: RunningMockPlatform;
let access: string;
beforeEach(async () => {
  vendor = await fakeVendor();
  let code: string;
  ({ mock, code } = await bobSandbox(vendor));
  ({ access } = await exchange(mock, code));
});
afterEach(async () => {
  await mock.close();
  await vendor.close();
});

const page = (path: string) => request(mock.url).get(path).expect(200).expect('content-type', /html/);

describe('the company page', () => {
  it("shows the vendor's app as the Developer Portal holds it, with the settings the partner needs", async () => {
    const res = await page(`/hibob/companies/${VANDELAY}`);
    expect(res.text).toContain('Vandelay Industries <span class="tag">HR: Bob</span>');
    expect(res.text).toContain('Skill Check <span class="tag tag-ok">Installed</span>');
    expect(res.text).toContain(`<dd class="url">${vendor.url}/hibob/oauth/callback</dd>`);
    expect(res.text).toContain(`<dd class="url">${vendor.url}/hibob/webhooks</dd>`);
    expect(res.text).toContain(`<code class="secret">${CLIENT_SECRET}</code>`);
    expect(res.text).toContain(`<code class="secret">${WEBHOOK_SECRET}</code>`);
    expect(res.text).toContain(`<code>HIBOB_TOKEN_URL=${mock.url}/hibob/oauth2/v1/apps/token</code>`);
    expect(res.text).toContain(`<code>HIBOB_API_URL=${mock.url}/hibob/api/v1</code>`);
    expect(res.text).toContain('the vendor holds its tokens.');
    expect(res.text).toContain('The vendor has registered no packages for Vandelay Industries');
    // Kramerica has installed nothing.
    expect((await page(`/hibob/companies/${KRAMERICA}`)).text).toContain('Skill Check <span class="tag">Not installed</span>');
  });

  it('saves the app from its form, and refuses a URL that is not one', async () => {
    const form = { name: 'Other Vendor', redirect_uri: 'https://other.example/hibob/oauth/callback', webhook_url: 'https://other.example/hibob/webhooks' };
    const saved = await request(mock.url).post(`/hibob/companies/${VANDELAY}/app`).type('form').send(form).expect(303);
    expect((await page(saved.headers.location!)).text).toContain('Other Vendor&#39;s app is saved');
    const refused = await request(mock.url).post(`/hibob/companies/${VANDELAY}/app`).type('form').send({ ...form, webhook_url: 'not a url' }).expect(303);
    expect((await page(refused.headers.location!)).text).toContain('webhook_url must be an absolute http(s) URL');
    expect(mock.db.prepare('SELECT webhook_url FROM hibob_app').get()).toEqual({ webhook_url: 'https://other.example/hibob/webhooks' });
  });

  it('lists the registered catalog, archived packages marked, and the webhooks sent; the home page has a card per company', async () => {
    await register(mock, access, [{ id: 'sql', name: 'SQL' }]).expect(201);
    await register(mock, access, [{ id: 'js', name: 'JavaScript', description: 'Two hours' }]).expect(201);
    await order(mock, 'js');
    const res = await page(`/hibob/companies/${VANDELAY}`);
    expect(res.text).toMatch(/<td>JavaScript<\/td><td><code>js<\/code><\/td><td>Two hours<\/td><td><span class="badge">active<\/span><\/td>/);
    expect(res.text).toMatch(/<td>SQL<\/td><td><code>sql<\/code><\/td><td><\/td><td><span class="badge badge-canceled">archived<\/span><\/td>/);
    expect(res.text).toContain('<code>assessment.triggered</code>');
    expect(res.text).toContain('<span class="badge badge-completed">delivered</span>');

    const home = await page('/');
    expect(home.text).toContain(`href="/hibob/companies/${VANDELAY}"`);
    expect(home.text).toContain(`Bob company ${VANDELAY} · installed Skill Check`);
    expect(home.text).toContain(`Bob company ${KRAMERICA} · the vendor&#39;s app not installed`);
  });
});

describe('the marketplace', () => {
  it('offers the install of the vendor app as links (the redirect to another site is no form post), with its scope', async () => {
    const res = await page(`/hibob/companies/${KRAMERICA}/marketplace`);
    expect(res.text).toContain('<h2>Skill Check <span class="tag">Assessments</span></h2>');
    expect(res.text).toContain('<code>hiring.integrations:write</code>');
    expect(res.text).toContain(`<a href="/hibob/companies/${KRAMERICA}/marketplace/install" id="install">Install Skill Check</a>`);
    expect(res.text).toContain(`<a href="/hibob/companies/${KRAMERICA}/marketplace/install?decline=1" id="decline">Decline</a>`);
  });

  it('says there is nothing to install before an app is set up, and an unknown company is a 404 page', async () => {
    const fresh = await startMockPlatform({ port: 0, logLevel: 'silent', webhookWorker: false });
    try {
      const res = await request(fresh.url).get(`/hibob/companies/${VANDELAY}/marketplace`).expect(200);
      expect(res.text).toContain('No assessment vendor has an app here yet');
      const install = await request(fresh.url).get(`/hibob/companies/${VANDELAY}/marketplace/install`).expect(422);
      expect(install.text).toContain('has no redirect URI yet');
      await request(fresh.url).get('/hibob/companies/999/marketplace').expect(404).expect('content-type', /html/);
    } finally {
      await fresh.close();
    }
  });
});

describe("a candidate's page", () => {
  it('orders from the active catalog only, and says when there is none', async () => {
    expect((await page(`/hibob/companies/${VANDELAY}/candidates/${BARBARA}`)).text).toContain('No package to order');
    await register(mock, access, [{ id: 'js', name: 'JavaScript' }]).expect(201);
    const res = await page(`/hibob/companies/${VANDELAY}/candidates/${BARBARA}`);
    expect(res.text).toContain('<option value="js">JavaScript</option>');
    const refused = await request(mock.url).post(`/hibob/companies/${VANDELAY}/candidates/${BARBARA}/assessments`).type('form').send({ package_id: 'sql' }).expect(303);
    expect((await page(refused.headers.location!)).text).toContain('Skill Check has no active package &quot;sql&quot; in Vandelay Industries&#39;s catalog.');
  });

  it('shows the order, then its status, score, result link and verdict as the PATCHes arrive, as text', async () => {
    await register(mock, access, [{ id: 'js', name: '<b>JavaScript</b>' }]).expect(201);
    const { requestId, page: ordered } = await order(mock, 'js');
    expect(ordered).toContain(`&lt;b&gt;JavaScript&lt;/b&gt; was ordered for Barbara (assessmentRequestId ${requestId}). The vendor took the webhook (HTTP 200).`);
    expect(ordered).toContain('<span class="badge">ordered</span>');
    expect(ordered).toContain('the vendor has not read its details');

    await api(mock, 'get', `/hiring/assessments/${requestId}`, access).expect(200);
    await api(mock, 'patch', `/hiring/assessments/${requestId}`, access, {
      status: 'completed',
      score: 87,
      resultUrl: 'https://vendor.example/r/1?a=1&b=<2>',
      verdict: '<script>alert(1)</script>',
      comments: 'Correctness: 9/10\nSpeed: fast',
    }).expect(204);
    const shown = (await page(`/hibob/companies/${VANDELAY}/candidates/${BARBARA}`)).text;
    expect(shown).toContain('<span class="badge badge-completed">completed</span>');
    expect(shown).toContain('<span class="score" title="score">87</span>');
    expect(shown).toContain('<a href="https://vendor.example/r/1?a=1&amp;b=&lt;2&gt;" rel="noopener noreferrer">View results in Skill Check</a>');
    expect(shown).toContain('<dd class="verdict">&lt;script&gt;alert(1)&lt;/script&gt;</dd>');
    expect(shown).not.toContain('<script>alert');
    expect(shown).toContain('<pre>Correctness: 9/10\nSpeed: fast</pre>');
    expect(shown).toContain('the vendor read its details');
    expect(shown).toContain('1 update received');
    // Complete: no cancel.
    expect(shown).not.toContain('Cancel assessment');
  });

  it('cancels an order: the vendor is told, the badge says so, and a later PATCH shows as refused', async () => {
    await register(mock, access, [{ id: 'js', name: 'JavaScript' }]).expect(201);
    const { requestId, page: ordered } = await order(mock, 'js');
    const id = /assessments\/(\d+)\/cancel/.exec(ordered)![1];
    const cancelled = await request(mock.url).post(`/hibob/companies/${VANDELAY}/assessments/${id}/cancel`).type('form').send({}).expect(303);
    expect(cancelled.headers.location).toMatch(new RegExp(`^/hibob/companies/${VANDELAY}/candidates/${BARBARA}\\?flash=`));
    const res = (await page(cancelled.headers.location!)).text;
    expect(res).toContain('JavaScript was cancelled. The vendor took the webhook (HTTP 200).');
    expect(res).toContain('<span class="badge badge-canceled">cancelled</span>');
    await api(mock, 'patch', `/hiring/assessments/${requestId}`, access, { status: 'completed' }).expect(409);
    expect((await page(`/hibob/companies/${VANDELAY}/candidates/${BARBARA}`)).text).toContain('not applied: refused (409): the assessment was cancelled');
    // Cancelling twice is refused with a message.
    const again = await request(mock.url).post(`/hibob/companies/${VANDELAY}/assessments/${id}/cancel`).type('form').send({}).expect(303);
    expect((await page(again.headers.location!)).text).toContain('The assessment is cancelled already.');
  });
});
