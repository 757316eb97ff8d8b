import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isoAt } from '../../src/lib/clock.js';
import { openMockDb } from '../../src/mock-platform/db.js';
import { checkPlugins } from '../../src/mock-platform/platforms/assemble.js';
import { mockPlatforms } from '../../src/mock-platform/platforms/index.js';
import { definePlatformPlugin, type PlatformPlugin, type ScriptedReport } from '../../src/mock-platform/platforms/plugin.js';
import { startMockPlatform } from '../../src/mock-platform/server.js';

/**
 * The mock takes the platforms it plays as plugins (src/mock-platform/platforms/plugin.ts): a
 * platform written entirely in a test — its tables, world, routes, pages, home card, calls and
 * faults, API operations, scripted recruiter and background work — is served by a mock built with
 * it, without a line of the mock's core naming it.
 */

const dir = mkdtempSync(path.join(tmpdir(), 'mock-plugins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the fake platform's worker was told, in order. */
const workerLog: string[] = [];

/** "Quizzly", an ATS in one definition: one folder of files, as a plugin of the kit's would be. */
function quizzly(): PlatformPlugin {
  const root = mkdtempSync(path.join(dir, 'quizzly-'));
  mkdirSync(path.join(root, 'migrations'));
  mkdirSync(path.join(root, 'views'));
  writeFileSync(path.join(root, 'migrations', '001_companies.sql'), 'CREATE TABLE quizzly_companies (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n');
  writeFileSync(
    path.join(root, 'migrations', '002_sent.sql'),
    'CREATE TABLE quizzly_sent (report_id TEXT PRIMARY KEY, test_id TEXT NOT NULL, status TEXT NOT NULL, updated_at TEXT NOT NULL);\n',
  );
  writeFileSync(path.join(root, 'views', 'company.eta'), `<% layout('./layout') %>\n<h1 id="quizzly-company"><%= it.company %></h1>\n`);
  const report = (row: { report_id: string; test_id: string; status: string; updated_at: string }): ScriptedReport => ({
    id: row.report_id,
    test: { id: row.test_id, name: `Test ${row.test_id}` },
    candidate: { id: '1', name: 'Quinn', email: 'quinn@example.com' },
    status: row.status,
    complete: row.status === 'done',
    score: null,
    resultsUrl: null,
    details: {},
    problem: null,
    page: '/quizzly',
    updatedAt: row.updated_at,
  });

  return definePlatformPlugin({
    name: 'quizzly',
    label: 'Quizzly',
    migrations: path.join(root, 'migrations'),
    views: path.join(root, 'views'),
    callbacks: ['quizzly.list'],
    api: {
      tags: [{ name: 'Quizzly', description: 'What a partner calls on Quizzly.' }],
      operations: [
        {
          operationId: 'quizzlyPing',
          method: 'get',
          path: '/quizzly/ping',
          summary: 'Ping Quizzly',
          description: 'Answers pong.',
          tags: ['Quizzly'],
          responses: { 200: { description: 'Pong.', schema: z.object({ pong: z.literal(true) }) } },
          examples: [{ name: 'pong', summary: 'Pong', status: 200, response: { pong: true } }],
        },
      ],
    },
    seed(db, clock) {
      const { n } = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM quizzly_companies').get()!;
      if (n === 0) db.prepare('INSERT INTO quizzly_companies (id, name) VALUES (7, ?)').run(`Quizzly Corp (seeded ${isoAt(clock.now()).slice(0, 4)})`);
    },
    create(setup) {
      const company = () => setup.db.prepare<[], { id: number; name: string }>('SELECT id, name FROM quizzly_companies').get()!;
      return {
        mount(router) {
          router.get('/quizzly/ping', ...setup.endpoint('quizzly.ping'), (_req, res) => {
            res.json({ pong: true });
          });
        },
        pages(router, kit) {
          router.get('/quizzly', (req, res) => kit.render(req, res, '@quizzly/company', { title: 'Quizzly', company: company().name }));
        },
        home: () => ({ title: 'Quizzly', intro: 'The mock plays Quizzly too', partnerPaths: '/quizzly/…', cards: [{ href: '/quizzly', name: company().name, detail: 'Quizzly company 7' }] }),
        script: {
          company: () => ({ id: String(company().id), name: company().name, page: '/quizzly' }),
          candidates: () => [{ id: '1', name: 'Quinn', email: 'quinn@example.com' }],
          connect: async (partner) => ({ ok: true, value: { connection: { partner: partner.name }, credential: 'qz_sandbox_key' } }),
          listTests: async () => ({ ok: true, value: [{ id: 'q1', name: 'Test q1' }] }),
          async send({ testId }) {
            if (testId === 'refused') return { ok: false, refused: true, message: 'Quizzly said no.' };
            const at = isoAt(setup.clock.now());
            setup.db.prepare('INSERT INTO quizzly_sent VALUES (?, ?, ?, ?)').run(`r-${testId}`, testId, 'sent', at);
            return { ok: true, value: report({ report_id: `r-${testId}`, test_id: testId, status: 'sent', updated_at: at }) };
          },
          report(reportId) {
            const row = setup.db.prepare<[string], { report_id: string; test_id: string; status: string; updated_at: string }>('SELECT * FROM quizzly_sent WHERE report_id = ?').get(reportId);
            return row && report(row);
          },
        },
        worker: {
          start: () => void workerLog.push('start'),
          wake: () => void workerLog.push('wake'),
          stop: async () => void workerLog.push('stop'),
        },
      };
    },
  });
}

describe('a platform plugin', () => {
  it('brings its tables, world, routes, pages, home card, calls, faults, API operations, scripted recruiter and worker', async () => {
    workerLog.length = 0;
    const mock = await startMockPlatform({ port: 0, logLevel: 'silent', platforms: [quizzly()] });
    const api = request(mock.url);
    try {
      // Its tables, tracked by name after the mock's own; its world, seeded.
      const applied = mock.db.prepare("SELECT name FROM schema_migrations WHERE name LIKE 'quizzly/%' ORDER BY name").pluck().all();
      expect(applied).toEqual(['quizzly/001_companies.sql', 'quizzly/002_sent.sql']);
      // Its routes, logged and taking faults under its names; the mock's core does not know them.
      expect((await api.get('/quizzly/ping').expect(200)).body).toEqual({ pong: true });
      const calls = await api.get('/_mock/calls?endpoint=quizzly.ping').expect(200);
      expect(calls.body.calls).toHaveLength(1);
      const faults = await api.get('/_mock/faults').expect(200);
      expect(faults.body.endpoints).toContain('quizzly.ping');
      expect(faults.body.callbacks).toEqual(['cancel', 'send_candidate', 'tests', 'validate_token', 'quizzly.list']);
      await api.post('/_mock/faults').send({ endpoint: 'quizzly.ping', status: 503 }).expect(201);
      await api.get('/quizzly/ping').expect(503);
      await api.post('/_mock/faults').send({ target: 'callback', endpoint: 'quizzly.list', status: 500 }).expect(201);
      await api.post('/_mock/faults').send({ target: 'callback', endpoint: 'greenhouse.list_tests', status: 500 }).expect(422);
      // Its page, in the sandbox's layout; its card on the home page.
      const page = await api.get('/quizzly').expect(200);
      expect(page.text).toContain('<title>Quizzly · Mock platform sandbox</title>');
      expect(page.text).toMatch(/<h1 id="quizzly-company">Quizzly Corp \(seeded \d{4}\)<\/h1>/);
      const home = await api.get('/').expect(200);
      expect(home.text).toContain('<h2>Quizzly</h2>');
      expect(home.text).toContain('The mock plays Quizzly too (<code>/quizzly/…</code> on your server).');
      expect(home.text).toContain('href="/quizzly"');
      // The registry's platforms are not there: the mock plays the plugins it is given.
      expect(home.text).not.toContain('Greenhouse');
      await api.get('/greenhouse/companies/1').expect(404);
      // Its operations in the API document.
      const document = await api.get('/openapi.json').expect(200);
      expect(document.body.paths['/quizzly/ping'].get.operationId).toBe('quizzlyPing');
      expect(document.body.tags.map((t: { name: string }) => t.name)).toContain('Quizzly');
      // Its scripted recruiter, on /_mock/platforms.
      expect((await api.get('/_mock/platforms').expect(200)).body.platforms.map((p: { name: string }) => p.name)).toEqual(['quizzly']);
      expect((await api.post('/_mock/platforms/quizzly/connect').send({ partner_url: 'http://127.0.0.1:9/', partner_name: 'P', token: 't' }).expect(200)).body).toEqual({
        connection: { partner: 'P' },
        credential: 'qz_sandbox_key',
      });
      expect((await api.get('/_mock/platforms/quizzly/tests').expect(200)).body).toEqual({ tests: [{ id: 'q1', name: 'Test q1' }] });
      const sent = await api.post('/_mock/platforms/quizzly/sends').send({ test_id: 'q1' }).expect(201);
      expect(sent.body.report).toMatchObject({ id: 'r-q1', status: 'sent', complete: false, results_url: null, page: '/quizzly' });
      expect((await api.get('/_mock/platforms/quizzly/reports/r-q1').expect(200)).body.report).toEqual(sent.body.report);
      expect((await api.post('/_mock/platforms/quizzly/sends').send({ test_id: 'refused' }).expect(422)).body).toEqual({ error: 'Quizzly said no.' });
      // Its worker: started once the mock listens, woken when the clock moves.
      expect(workerLog).toEqual(['start']);
      await api.post('/_mock/clock').send({ advance: '1m' }).expect(200);
      expect(workerLog).toEqual(['start', 'wake']);
    } finally {
      await mock.close();
    }
    expect(workerLog).toEqual(['start', 'wake', 'stop']);
  });

  it('keeps its tables in a database file across starts, applying each migration once', async () => {
    const plugin = quizzly();
    const file = path.join(dir, 'kept.mock.db');
    openMockDb(file, [plugin]).close();
    const db = openMockDb(file, [plugin]);
    try {
      expect(db.prepare("SELECT count(*) FROM schema_migrations WHERE name LIKE 'quizzly/%'").pluck().get()).toBe(2);
    } finally {
      db.close();
    }
  });

  it('is not started with the workers off', async () => {
    workerLog.length = 0;
    const mock = await startMockPlatform({ port: 0, logLevel: 'silent', platforms: [quizzly()], webhookWorker: false });
    await mock.close();
    expect(workerLog).toEqual([]);
  });

  it('is refused when its name is used twice, is not a name, or it names a call outside its own', () => {
    const plain = (name: string, callbacks: string[] = []) => definePlatformPlugin({ ...quizzly(), name, callbacks });
    expect(() => checkPlugins([plain('quizzly'), plain('quizzly')])).toThrow('Two platform plugins are named "quizzly"');
    expect(() => checkPlugins([plain('Quizzly')])).toThrow('must be lowercase letters, digits and -');
    expect(() => checkPlugins([plain('quizzly', ['tests'])])).toThrow('Platform plugin "quizzly" names a call "tests": its calls are named "quizzly.…"');
    expect(checkPlugins(mockPlatforms())).toEqual(mockPlatforms());
  });
});

describe("the kit's plugins", () => {
  it('open a sandbox database kept from before the mock took plugins (Greenhouse in the mock\'s migration 300), keeping its rows', () => {
    // A mock database as the mock wrote it then: its own migrations, Greenhouse's tables among them.
    const file = path.join(dir, 'before-plugins.mock.db');
    openMockDb(file, []).close();
    const greenhouse = mockPlatforms().find((p) => p.name === 'greenhouse')!;
    const old = new Database(file);
    old.exec(readFileSync(path.join(greenhouse.migrations!, '001_greenhouse.sql'), 'utf8').replaceAll('IF NOT EXISTS ', ''));
    old.prepare("INSERT INTO greenhouse_companies (id, name, sent_by, created_at) VALUES (1, 'Initech', 'morgan@initech.example', '2026-01-01')").run();
    old.pragma('user_version = 300');
    old.close();

    const db = openMockDb(file);
    try {
      expect(db.prepare('SELECT name FROM greenhouse_companies').pluck().all()).toEqual(['Initech']);
      expect(db.prepare("SELECT name FROM schema_migrations WHERE name LIKE 'greenhouse/%' ORDER BY name").pluck().all()).toEqual([
        'greenhouse/001_greenhouse.sql',
        'greenhouse/002_tests_by_interview.sql',
      ]);
    } finally {
      db.close();
    }
  });

  it('are named nowhere in the mock\'s core or npm run dev, which reach them through the registry', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const core = [
      'src/mock-platform/app.ts',
      'src/mock-platform/server.ts',
      'src/mock-platform/db.ts',
      'src/mock-platform/sandbox/routes.ts',
      'src/mock-platform/sandbox/views.ts',
      'src/mock-platform/faults/store.ts',
      'src/mock-platform/faults/routes.ts',
      'src/mock-platform/openapi/document.ts',
      'src/mock-platform/openapi/routes.ts',
      'src/mock-platform/platforms/routes.ts',
      'src/mock-platform/platforms/assemble.ts',
      'views/mock/home.eta',
      'scripts/dev.ts',
    ];
    const names = mockPlatforms().flatMap((p) => [p.name, p.label]);
    for (const file of core) {
      const text = readFileSync(path.join(root, file), 'utf8');
      // An import of a plugin's folder (platforms/<name>/…) is the registry's alone.
      expect(text, file).not.toMatch(/from '[^']*platforms\/[a-z0-9-]+\/[^']*'/);
      for (const name of names) expect(text.toLowerCase(), `${file} names ${name}`).not.toContain(name.toLowerCase());
    }
    // The harness drives each platform by name, through the mock's /_mock/platforms routes: it imports none.
    expect(readFileSync(path.join(root, 'src/testing/index.ts'), 'utf8')).not.toMatch(/from '[^']*platforms\/[a-z0-9-]+\/[^']*'/);
  });
});
