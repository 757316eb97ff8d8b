import request from 'supertest';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { GRACE, HOOLI, PARTNER_KEY, basic, blob, fakeAshbyPartner, pickAssessment, postUpdate, submit, type FakeAshbyPartner } from './ashby-support.js';

/**
 * The Ashby company's pages as a vendor uses them to try its Ashby side, read as HTML: the home
 * card, connecting the partner, the API key to give it, picking an assessment for a stage,
 * starting it for a candidate's application, and what the candidate's page shows as updates arrive.
 */

let partner: FakeAshbyPartner;
let mock: RunningMockPlatform;
beforeEach(async () => {
  partner = await fakeAshbyPartner();
  mock = await startMockPlatform({ port: 0, logLevel: 'silent', webhookWorker: false });
});
afterEach(async () => {
  await mock.close();
  await partner.close();
});

const page = async (path: string) => (await request(mock.url).get(path).expect(200).expect('content-type', /html/)).text;
const companyPage = () => page(`/ashby/companies/${HOOLI}`);
const gracePage = () => page(`/ashby/companies/${HOOLI}/candidates/${GRACE}`);
const alert = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1]?.trim();
const notice = (html: string) => /role="status">([^<]*)</.exec(html)?.[1]?.trim();

it('the home page has a card for Hooli, saying whether a partner is connected', async () => {
  let home = await page('/');
  expect(home).toContain('href="/ashby/companies/1"');
  expect(home).toContain('Ashby company 1 · no partner connected');
  await submit(mock, `/ashby/companies/${HOOLI}/partner`, { name: 'Skill Check', api_key: PARTNER_KEY, base_url: `${partner.url}/ashby` });
  home = await page('/');
  expect(home).toContain('Ashby company 1 · partner: Skill Check');
});

it("connecting the partner: the form, then its base URL, its three calls and the key's last characters", async () => {
  let html = await companyPage();
  expect(html).toContain('<h1>Hooli <span class="tag">ATS: Ashby</span></h1>');
  expect(html).toContain('No assessment partner is connected.');
  expect(html).toContain('<details open>');
  expect(html).not.toContain('List assessments');

  const saved = await submit(mock, `/ashby/companies/${HOOLI}/partner`, { name: 'Skill Check', api_key: PARTNER_KEY, base_url: `${partner.url}/ashby/` });
  html = await page(saved.headers.location!);
  expect(notice(html)).toBe('Skill Check is connected: Ashby calls its assessment.list, assessment.start and assessment.cancel with this API key.');
  expect(html).toContain('<span class="tag tag-ok">Connected</span>');
  expect(html).toContain(`<dt>assessment.start</dt><dd class="url">${partner.url}/ashby/assessment.start</dd>`);
  expect(html).toContain(`API key <code>…${PARTNER_KEY.slice(-4)}</code>`);
  expect(html).not.toContain(PARTNER_KEY);

  const refused = await submit(mock, `/ashby/companies/${HOOLI}/partner`, { name: 'Skill Check', api_key: PARTNER_KEY, base_url: 'ftp://example.com' });
  expect(alert(await page(refused.headers.location!))).toContain('base_url');
});

it('shows the Ashby API key the partner must send, where, and a new one replaces it', async () => {
  const key = (mock.db.prepare('SELECT api_key FROM ashby_companies WHERE id = ?').get(HOOLI) as { api_key: string }).api_key;
  let html = await companyPage();
  expect(html).toContain(`<code class="secret">${key}</code>`);
  expect(html).toContain(`its <code>ASHBY_API_URL</code> is <code>${mock.url}/ashby/api</code>`);
  expect(html).toContain('npm run accounts -- credential set &lt;account-id&gt; ashby &lt;key&gt;');

  const issued = await submit(mock, `/ashby/companies/${HOOLI}/api-key`, {});
  html = await page(issued.headers.location!);
  expect(notice(html)).toBe('Hooli issued a new Ashby API key; the old one no longer works. Give the partner the new one.');
  expect(html).not.toContain(key);
});

it('lists the assessments for a stage, then starts one from the candidate\'s application, and shows what each update says', async () => {
  await submit(mock, `/ashby/companies/${HOOLI}/partner`, { name: 'Skill Check', api_key: PARTNER_KEY, base_url: `${partner.url}/ashby` });
  const listed = await page(`/ashby/companies/${HOOLI}?list_assessments=1`);
  expect(listed).toContain('title="JavaScript, by Skill Check">JavaScript</option>');
  expect(listed).toContain('Use for Technical Assessment</button>');

  // Before a stage has one, the application says where to pick it.
  let html = await gracePage();
  expect(html).toContain('<h2>Backend Engineer <span class="tag">Active</span></h2>');
  expect(html).toContain('<h2>Data Analyst <span class="tag">Lead</span></h2>');
  expect(html).toContain('No interview stage of Backend Engineer has an assessment yet');
  expect(html).not.toContain('Start assessment');

  await pickAssessment(mock);
  expect(await companyPage()).toMatch(/Technical Assessment<\/td>\s*<td>JavaScript <span class="muted">\(<code>/);
  html = await gracePage();
  expect(html).toContain('<option value="2">Technical Assessment: JavaScript</option>');
  expect(html).toContain('No interview stage of Data Analyst has an assessment yet');

  const started = await submit(mock, `/ashby/companies/${HOOLI}/candidates/${GRACE}/start`, { application_id: '1', stage_id: '2' });
  html = await page(started.headers.location!);
  const id = /assessment_id <code>([0-9a-f-]{36})<\/code>/.exec(html)![1]!;
  expect(notice(html)).toBe(`JavaScript was started (assessment_id ${id}).`);
  expect(html).toMatch(/JavaScript <span class="muted">Technical Assessment<\/span>\s*<span class="badge">Invited<\/span>/);
  expect(html).toContain('Cancel assessment</button>');
  expect(await companyPage()).toContain('<td><span class="badge">Invited</span></td>');

  const key = (mock.db.prepare('SELECT api_key FROM ashby_companies WHERE id = ?').get(HOOLI) as { api_key: string }).api_key;
  const startedAt = Date.now();
  await postUpdate(mock, { assessment_id: id, timestamp: startedAt, assessment_status: blob('status', 'string', 'Started') }, basic(key)).expect(200);
  html = await gracePage();
  expect(html).toMatch(/<span class="badge">Started<\/span>/);
  expect(html).toContain(`candidate started <time datetime="${new Date(startedAt).toISOString()}"`);

  await postUpdate(
    mock,
    {
      assessment_id: id,
      timestamp: startedAt + 1,
      assessment_status: blob('status', 'string', 'Failed'),
      assessment_result: blob('result', 'boolean_success', false, 'Result'),
      assessment_profile_url: blob('profile', 'url', 'https://partner.example/r/1', 'Results'),
      metadata: [blob('report', 'url', 'https://partner.example/r/1.pdf', 'Report')],
    },
    basic(key),
  ).expect(200);
  html = await gracePage();
  expect(html).toMatch(/<span class="badge badge-completed">Failed<\/span>\s*<span class="score" title="Result \(boolean_success\)">Failed<\/span>/);
  expect(html).toContain('<a href="https://partner.example/r/1" rel="noopener noreferrer">View in Skill Check</a>');
  expect(html).toContain('<td>Report</td><td><a href="https://partner.example/r/1.pdf" rel="noopener noreferrer">https://partner.example/r/1.pdf</a></td>');
  expect(html).toContain('3 updates received');
  expect(html).not.toContain('Cancel assessment</button>');
});

it('a value is text on the page, never markup', async () => {
  await submit(mock, `/ashby/companies/${HOOLI}/partner`, { name: '<b>Skill</b>', api_key: PARTNER_KEY, base_url: `${partner.url}/ashby` });
  await pickAssessment(mock);
  await submit(mock, `/ashby/companies/${HOOLI}/candidates/${GRACE}/start`, { application_id: '1', stage_id: '2' });
  const { assessment_id: id } = mock.db.prepare('SELECT assessment_id FROM ashby_assessments').get() as { assessment_id: string };
  const key = (mock.db.prepare('SELECT api_key FROM ashby_companies WHERE id = ?').get(HOOLI) as { api_key: string }).api_key;
  await postUpdate(mock, { assessment_id: id, timestamp: Date.now(), assessment_status: blob('status', 'string', '<script>alert(1)</script>') }, basic(key)).expect(200);
  const html = await gracePage();
  expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(html).not.toContain('<script>alert(1)');
  expect(html).not.toContain('<b>Skill</b>');
});

it('an unknown candidate or company is a 404; a start of another candidate\'s application, or at a stage without an assessment, is refused without a call', async () => {
  await request(mock.url).get(`/ashby/companies/${HOOLI}/candidates/99`).expect(404);
  await request(mock.url).get('/ashby/companies/2').expect(404);
  await submit(mock, `/ashby/companies/${HOOLI}/partner`, { name: 'Skill Check', api_key: PARTNER_KEY, base_url: `${partner.url}/ashby` });
  // Alan's page cannot start Grace's application.
  const refused = await submit(mock, `/ashby/companies/${HOOLI}/candidates/2/start`, { application_id: '1', stage_id: '2' });
  expect(alert(await page(refused.headers.location!))).toBe('Unknown application');
  const unpicked = await submit(mock, `/ashby/companies/${HOOLI}/candidates/${GRACE}/start`, { application_id: '1', stage_id: '2' });
  expect(alert(await page(unpicked.headers.location!))).toBe('Pick an assessment for the stage &quot;Technical Assessment&quot; first.');
  expect(partner.calls('assessment.start')).toEqual([]);
});
