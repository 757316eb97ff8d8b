import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { sqliteSql } from '../../src/lib/sql.js';
import { DEV_CANDIDATE_LINK_SECRET } from '../../src/partner/config.js';
import { mockPlatforms } from '../../src/mock-platform/platforms/index.js';
import { connectionStore } from '../../src/partner/connections/store.js';
import { openDb } from '../../src/partner/db/open.js';
import { openMockDb } from '../../src/mock-platform/db.js';
import { banner, startSandbox } from '../../scripts/dev.js';
import { linkIn, storedMails } from '../invitations/support.js';
import { eventually } from '../support/eventually.js';
import { ACME, ADA, startDev } from './support.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kit-dev-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm run dev` as a function, on ports the system picks (PORT=0), with the partner database in a fresh folder. */
async function start() {
  return startDev(path.join(dir, 'partner.db'));
}

async function sendFirstTest(mockUrl: string, codename: string) {
  const tests = await request(mockUrl).get(`/api/marketplace/c/${ACME.id}/partners/${codename}/tests`).expect(200);
  const test = tests.body.tests[0] as { id: number; name: string };
  return request(mockUrl)
    .post(`/api/marketplace/c/${ACME.id}/partners/${codename}/send`)
    .send({ candidate_id: ADA, test_id: test.id, test_name: test.name })
    .expect(201);
}

describe('npm run dev', () => {
  it('on a fresh clone, then again: registers, integrates Acme with the demo token, and is ready to send', async () => {
    const first = await start();
    let firstReport: string;
    try {
      expect(first.integration).toEqual({ ok: true });
      expect(existsSync(path.join(dir, 'partner.db.demo-token'))).toBe(true);
      const sent = await sendFirstTest(first.mockUrl, first.codename);
      firstReport = sent.body.report.id;
      expect(sent.body.report).toMatchObject({ status: 'sent', delivery: 'delivered' });
      const page = await request(first.mockUrl).get(`/companies/${ACME.id}`).expect(200);
      expect(page.text).toContain('Demo Assessments');
      expect(page.text).toContain('Integrated');
    } finally {
      await first.close();
    }

    // Second run: the partner database exists (no new demo account), and the mock, kept in a file
    // beside it, still has the report the partner lists.
    const second = await start();
    try {
      expect(existsSync(path.join(dir, 'partner.mock.db'))).toBe(true);
      expect(second.integration).toEqual({ ok: true });
      await request(second.mockUrl).get(`/api/marketplace/c/${ACME.id}/reports/${firstReport}`).expect(200);
      await sendFirstTest(second.mockUrl, second.codename);
    } finally {
      await second.close();
    }
    const db = openDb(path.join(dir, 'partner.db'));
    try {
      expect(db.prepare('SELECT count(*) AS n FROM accounts').get()).toEqual({ n: 1 });
      expect(db.prepare('SELECT count(*) AS n FROM invitations').get()).toEqual({ n: 2 });
    } finally {
      db.close();
    }

    // --reset: both start empty, and still agree.
    const third = await startSandbox(
      { PATH: process.env.PATH, DATABASE_PATH: path.join(dir, 'partner.db'), PORT: '0', MOCK_PORT: '0', LOG_LEVEL: 'silent' },
      { reset: true },
    );
    try {
      expect(third.integration).toEqual({ ok: true });
      await request(third.mockUrl).get(`/api/marketplace/c/${ACME.id}/reports/${firstReport}`).expect(404);
    } finally {
      await third.close();
    }
    const reset = openDb(path.join(dir, 'partner.db'));
    try {
      expect(reset.prepare('SELECT count(*) AS n FROM invitations').get()).toEqual({ n: 0 });
    } finally {
      reset.close();
    }
  });
});

/** Polls `read` until `done` holds for what it returns (15 s at most). */
async function until<T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('npm run dev with MOCK_DATABASE_PATH', () => {
  it('keeps the sandbox across restarts: the registration is updated, the old report still exists and its updates are delivered', async () => {
    const sub = path.join(dir, 'kept');
    mkdirSync(sub);
    const env = {
      PATH: process.env.PATH,
      DATABASE_PATH: path.join(sub, 'partner.db'),
      MOCK_DATABASE_PATH: path.join(sub, 'mock.db'),
      PORT: '0',
      MOCK_PORT: '0',
      LOG_LEVEL: 'silent',
    };
    const report = (mockUrl: string, id: string) => request(mockUrl).get(`/api/marketplace/c/${ACME.id}/reports/${id}`);

    const first = await startSandbox(env);
    let reportId: string;
    try {
      expect(first.integration).toEqual({ ok: true });
      reportId = (await sendFirstTest(first.mockUrl, first.codename)).body.report.id;
      await until('the partner\'s first report update', async () => (await report(first.mockUrl, reportId)).body.report?.urls, (urls) => Boolean(urls?.cancel));
    } finally {
      await first.close();
    }

    const second = await startSandbox(env);
    try {
      expect(second.integration).toEqual({ ok: true });
      const kept = await report(second.mockUrl, reportId).expect(200);
      expect(kept.body.report).toMatchObject({ id: reportId, status: 'sent' });

      // The candidate takes the test now: the partner's update reaches the report of the first run.
      const partnerDb = openDb(env.DATABASE_PATH);
      try {
        const row = partnerDb.prepare('SELECT candidate_url, test_id FROM invitations WHERE report_id = ?').get(reportId) as { candidate_url: string; test_id: string };
        const link = new URL(row.candidate_url);
        await request(second.partnerUrl).get(link.pathname + link.search).expect(200);
        const questions = partnerDb.prepare('SELECT id, answer FROM demo_questions WHERE test_id = ?').all(Number(row.test_id)) as { id: number; answer: number }[];
        const answers = Object.fromEntries(questions.map((q) => [`q${q.id}`, String(q.answer)]));
        await request(second.partnerUrl).post('/take').type('form').send({ token: link.searchParams.get('token'), ...answers }).expect(303);
        const done = await until('the completed report', async () => (await report(second.mockUrl, reportId)).body.report?.status, (s) => s === 'completed');
        expect(done).toBe('completed');
        expect(partnerDb.prepare(`SELECT count(*) AS n FROM report_updates WHERE status = 'dead'`).get()).toEqual({ n: 0 });
      } finally {
        partnerDb.close();
      }
    } finally {
      await second.close();
    }
    const mockDb = openMockDb(env.MOCK_DATABASE_PATH);
    try {
      expect(mockDb.prepare('SELECT count(*) AS n FROM partners').get()).toEqual({ n: 1 });
      expect(mockDb.prepare('SELECT count(*) AS n FROM reports').get()).toEqual({ n: 1 });
    } finally {
      mockDb.close();
    }
  });
});

describe('npm run dev with two partner databases in one folder', () => {
  it('keeps a demo token per database, so each sandbox integrates again after the other ran', async () => {
    const sub = path.join(dir, 'two');
    mkdirSync(sub);
    const run = async (database: string) => {
      const sandbox = await startDev(path.join(sub, database));
      await sandbox.close();
      return sandbox.integration;
    };
    expect(await run('a.db')).toEqual({ ok: true });
    expect(await run('b.db')).toEqual({ ok: true });
    expect(await run('a.db')).toEqual({ ok: true });
    const a = readFileSync(path.join(sub, 'a.db.demo-token'), 'utf8');
    const b = readFileSync(path.join(sub, 'b.db.demo-token'), 'utf8');
    expect(a).toMatch(/^ptk_/);
    expect(b).toMatch(/^ptk_/);
    expect(a).not.toBe(b);
  });
});

describe('npm run dev for each kind of partner', () => {
  const manifest = (name: string) => fileURLToPath(new URL(`../../scripts/${name}`, import.meta.url));

  it.each([
    ['background_check', 'partner-manifest.background-check.json', 'Demo Background Checks', 'Criminal record check'],
    ['reference_check', 'partner-manifest.reference-check.json', 'Demo Reference Checks', 'Two professional references'],
  ])('%s: registers the kind, lists its checks, the banner says give consent, then complete the check, and the e-mail and pages carry its name', async (kind, file, name, check) => {
    const sub = path.join(dir, kind);
    mkdirSync(sub);
    const sandbox = await startDev(path.join(sub, 'partner.db'), { PARTNER_MANIFEST: manifest(file) });
    try {
      expect(sandbox.integration).toEqual({ ok: true });
      expect(sandbox.kind).toBe(kind);
      const record = await request(sandbox.mockUrl).get(`/api/p/${sandbox.codename}/c/${ACME.id}/partner`).set('authorization', `Bearer ${ACME.token}`).expect(200);
      expect(record.body.partner).toMatchObject({ kind, name });
      const tests = await request(sandbox.mockUrl).get(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/tests`).expect(200);
      expect(tests.body.tests.map((t: { name: string }) => t.name)).toContain(check);

      const text = banner(sandbox);
      expect(text).toContain(`choose ${name}`);
      expect(text).toMatch(/give consent/);
      expect(text).toMatch(/complete the check/i);
      expect(text).toContain('Record result');
      expect(text).not.toMatch(/take the test/);

      // The candidate's e-mail and consent page name the vendor as the platform does.
      await sendFirstTest(sandbox.mockUrl, sandbox.codename);
      const [mail] = await eventually(
        async () => {
          const stored = await storedMails(path.join(sub, 'partner.db'));
          expect(stored).toHaveLength(1);
          return stored;
        },
        { what: 'the invitation e-mail', intervalMs: 100 },
      );
      expect(mail!.from).toMatchObject({ name });
      expect(mail!.text).toContain(`has asked ${name} for a ${kind.replace('_', ' ')}`);
      const consent = await request(linkIn(mail!.text)).get('').expect(200);
      expect(consent.text).toMatch(new RegExp(`class="brand">${name} <span>`));
      expect(consent.text).not.toContain('Demo Assessments');
    } finally {
      await sandbox.close();
    }
  });

  it("the Greenhouse company comes configured with the partner's URL and the demo token as its key, and the banner and the sandbox's home link it", async () => {
    const sandbox = await startDev(path.join(dir, 'greenhouse.db'));
    try {
      expect(sandbox.platforms).toMatchObject({ greenhouse: { ok: true } });
      const token = readFileSync(path.join(dir, 'greenhouse.db.demo-token'), 'utf8').trim();
      const configured = await request(sandbox.mockUrl).get('/api/greenhouse/companies/1/partner').expect(200);
      expect(configured.body.partner).toMatchObject({
        name: 'Demo Assessments',
        api_key_hint: `…${token.slice(-4)}`,
        urls: {
          list_tests: `${sandbox.partnerUrl}/greenhouse/list_tests`,
          send_test: `${sandbox.partnerUrl}/greenhouse/send_test`,
          test_status: `${sandbox.partnerUrl}/greenhouse/test_status`,
          response_error: `${sandbox.partnerUrl}/greenhouse/response_error`,
        },
      });
      expect(banner(sandbox)).toContain(`${sandbox.mockUrl}/greenhouse/companies/1`);
      const home = await request(sandbox.mockUrl).get('/').expect(200);
      expect(home.text).toContain('href="/greenhouse/companies/1"');
      expect(home.text).toContain('partner: Demo Assessments');
    } finally {
      await sandbox.close();
    }
  });

  it("the Ashby company comes connected with the partner's /ashby base and the demo token, the partner posts its updates to the mock, and the demo account holds the company's Ashby API key", async () => {
    const sandbox = await startDev(path.join(dir, 'ashby.db'));
    try {
      // Every platform the mock plays came connected.
      expect(sandbox.platforms).toEqual(Object.fromEntries(mockPlatforms().map((p) => [p.name, { ok: true }])));
      expect(sandbox.platforms).toHaveProperty('ashby');
      const token = readFileSync(path.join(dir, 'ashby.db.demo-token'), 'utf8').trim();
      const company = await request(sandbox.mockUrl).get('/ashby/companies/1').expect(200);
      expect(company.text).toContain(`<dt>Base URL</dt><dd class="url">${sandbox.partnerUrl}/ashby</dd>`);
      expect(company.text).toContain(`API key <code>…${token.slice(-4)}</code>`);

      // The partner's ASHBY_API_URL is the mock's Ashby API, where it says it posts assessment.update.
      const home = await request(sandbox.partnerUrl).get('/').set('accept', 'application/json').expect(200);
      expect(home.body.platforms.ashby.settings).toEqual({ api_url: `${sandbox.mockUrl}/ashby/api` });
      expect(company.text).toContain(`its <code>ASHBY_API_URL</code> is <code>${sandbox.mockUrl}/ashby/api</code>`);

      // The demo account holds the key Hooli issued (what the Ashby page shows), sealed as credential set stores it.
      const key = /<code class="secret">([^<]+)<\/code>/.exec(company.text)![1]!;
      const partnerDb = openDb(path.join(dir, 'ashby.db'));
      try {
        expect(await connectionStore(sqliteSql(partnerDb), systemClock, DEV_CANDIDATE_LINK_SECRET).credential(1, 'ashby')).toBe(key);
      } finally {
        partnerDb.close();
      }

      const text = banner(sandbox);
      expect(text).toMatch(new RegExp(`Ashby company\\s+${sandbox.mockUrl}/ashby/companies/1`));
      expect(text).toContain("On Ashby, Hooli has connected Demo Assessments (its /ashby/ endpoints, the same token as API key), and the demo account holds Hooli's Ashby API key:");
      expect(text).toContain(`the partner posts assessment.update to ${sandbox.mockUrl}/ashby/api`);
      const sandboxHome = await request(sandbox.mockUrl).get('/').expect(200);
      expect(sandboxHome.text).toContain('href="/ashby/companies/1"');
      expect(sandboxHome.text).toContain('Ashby company 1 · partner: Demo Assessments');
    } finally {
      await sandbox.close();
    }
  });

  it('assessment (the default manifest): the banner says take the test', async () => {
    const sandbox = await startDev(path.join(dir, 'assessment.db'));
    try {
      expect(sandbox.kind).toBe('assessment');
      const text = banner(sandbox);
      expect(text).toMatch(/take the test/);
      expect(text).not.toMatch(/consent/);
    } finally {
      await sandbox.close();
    }
  });
});
