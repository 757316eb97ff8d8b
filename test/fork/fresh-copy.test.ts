import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { loadManifest, registerPartner } from '../../scripts/register-partner.js';
import { signVendorResult, VENDOR_SIGNATURE_HEADER } from '../../src/contract/vendor-signature.js';
import { startMockPlatform } from '../../src/mock-platform/server.js';
import { eventually } from '../support/eventually.js';
import { layOutImage } from '../repo/dockerfile.js';
import { freshClone, ROOT, vendorGitEnv } from './fresh-clone.js';

/**
 * The fork as a vendor makes one: a copy of the repository, as cloned (one commit), in which only
 * src/provider/ changes. src/provider/index.ts is replaced with a provider of ten lines, beside its
 * own manifest and test; and the vendor adds a recruiting platform of its own, entirely inside
 * src/provider/ (docs/platforms.md, "A platform of your own"): Acme ATS, which posts an application
 * to the partner and hears each result at its own API, authenticated with the customer's own Acme
 * ATS API key. The platform brings one setting (ACME_ATS_URL), one table in both dialects, one route
 * that creates an invitation, a delivery that needs the customer's credential; the vendor sets that
 * credential with `npm run accounts -- credential set`.
 *
 * `npm run build`, `npm start`, the Docker image's command, `npm run accounts` and `npm run dev`
 * must all run that provider — read after `.env`, since it reads a setting as its module loads —
 * and never the demo; the image, under the vendor's own name. `npm start` and `npm run dev` serve
 * the platform beside the kit's, a result reaches a stub of Acme ATS with the key, and git sees
 * changes under src/provider/ only. One fork and one build for all of it: the build is most of the
 * time, and what each part proves needs nothing the others change.
 */
const FORK_PROVIDER = `import type { Provider, ProviderKit } from '../partner/index.js';

// Read as the module loads: every entry point reads .env before it imports this file.
const TEST_NAME = process.env.FORK_TEST_NAME ?? 'FORK_TEST_NAME is not set';

export default (kit: ProviderKit): Provider => ({
  kind: kit.kind,
  listTests: async () => [{ id: 'typing', name: TEST_NAME }],
  startInvitation: async (invitation) => ({ candidateUrl: \`https://typing.example/\${invitation.reportId}\` }),
});
`;
const FORK_TESTS = [{ id: 'typing', name: 'Typing speed, from .env' }];
/** The vendor's module: its provider of ten lines, and its own platform beside the kit's (two lines more). */
const PROVIDER_INDEX = `${FORK_PROVIDER.replace("from '../partner/index.js';\n", "from '../partner/index.js';\nimport { acmeAts } from './acme-ats/index.js';\n")}
export const platforms = [acmeAts];
`;

/** The fork's partner record, in its own folder: its name is the vendor's everywhere the kit shows one. */
const FORK_MANIFEST = 'src/provider/partner-manifest.json';
const VENDOR = 'Typing Co';
/** A test of the fork's own, beside its provider: the build must leave it out. */
const FORK_TEST = `import { expect, it } from 'vitest';
import { startHarness } from '../testing/index.js';
import provider from './index.js';

it('lists its tests', async () => {
  const harness = await startHarness({ provider, manifest: 'src/provider/partner-manifest.json' });
  expect(await harness.listTests()).toHaveLength(1);
  await harness.close();
});
`;

const ACME_PLATFORM = `import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { z } from 'zod';
import { definePlatform } from '../../partner/index.js';

const ACME = 'acme-ats';
/** A folder beside this file, from src/ under tsx and from dist/ once built (npm run build copies the .sql files). */
const beside = (folder: string) => fileURLToPath(new URL(\`./\${folder}/\`, import.meta.url));

/** What Acme ATS posts when a recruiter sends a candidate one of the customer's tests. */
const Application = z.object({
  application_id: z.string().min(1).max(100),
  company_id: z.string().min(1).max(100),
  test_id: z.string().min(1).max(100),
  candidate: z.object({ first_name: z.string().min(1).max(100), last_name: z.string().min(1).max(100), email: z.email() }),
});

/**
 * Acme ATS: it posts applications to POST /acme-ats/applications with the customer's token, and
 * hears each result at ACME_ATS_URL/results with the customer's own Acme ATS API key.
 */
export const acmeAts = definePlatform({
  name: ACME,
  label: 'Acme ATS',
  settings: z
    .object({ ACME_ATS_URL: z.url({ protocol: /^https?$/, error: 'must be the http(s) URL of Acme ATS\\'s API' }) })
    .transform((s) => ({ url: s.ACME_ATS_URL.replace(/\\/+$/, '') })),
  migrations: { dir: beside('sql/sqlite'), postgresDir: beside('sql/postgres') },
  credential: { label: 'Acme ATS API key', required: true },
  create: ({ settings, publicUrl }) => ({
    name: ACME,
    label: 'Acme ATS',
    emailAfterAcceptance: false,
    home: { endpoints: { applications: \`\${publicUrl}/acme-ats/applications\` } },
    mount(router, context) {
      router.post('/acme-ats/applications', express.json({ limit: context.bodyLimitBytes }), async (req, res) => {
        const token = /^Bearer (\\S+)$/.exec(req.headers.authorization ?? '')?.[1];
        const account = token === undefined ? undefined : await context.core.accounts.authenticate(token);
        if (!account) return void res.status(401).json({ error: 'Unauthorized' });
        const application = Application.safeParse(req.body);
        if (!application.success) return void res.status(422).json({ error: 'Invalid application' });
        const { application_id: applicationId, company_id: companyId, test_id: testId, candidate } = application.data;
        const known = await context.sql.get<{ report_id: string }>('SELECT report_id FROM acme_ats_applications WHERE application_id = $1', [applicationId]);
        if (known) return void res.status(200).json({ report_id: known.report_id });
        const test = (await context.provider.listTests(account)).find((t) => String(t.id) === testId);
        if (!test) return void res.status(422).json({ error: 'Unknown test' });
        if (!(await context.core.connections.connect(account.id, ACME, companyId))) return void res.status(409).json({ error: 'Another account is connected to this company' });
        const reportId = randomUUID();
        await context.createInvitation({
          reportId,
          accountId: account.id,
          testId,
          testName: test.name,
          firstName: candidate.first_name,
          lastName: candidate.last_name,
          email: candidate.email,
          phone: null,
          extraInputs: {},
          platform: ACME,
          platformData: { application_id: applicationId },
        });
        await context.sql.run('INSERT INTO acme_ats_applications (application_id, report_id) VALUES ($1, $2)', [applicationId, reportId]);
        context.onInvitationCreated?.(reportId);
        res.status(201).json({ report_id: reportId });
      });
    },
    async deliveryRequest(target, update) {
      // Acme ATS hears of results only.
      if (update.status !== 'completed' && update.status !== 'failed') return undefined;
      const key = await target.credential();
      if (key === undefined) throw new Error(\`No Acme ATS API key: npm run accounts -- credential set \${target.accountId} \${ACME}\`);
      return {
        url: \`\${settings.url}/results\`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: \`Bearer \${key}\` },
        body: JSON.stringify({ application_id: target.data.application_id, status: update.status, score: update.score }),
      };
    },
  }),
});
`;
const ACME_TABLE = (id: string) => `-- Which invitation each Acme ATS application became: a repeated post finds the first.
CREATE TABLE acme_ats_applications (
  application_id TEXT PRIMARY KEY,
  report_id      TEXT NOT NULL UNIQUE,
  created_at     ${id}
);
`;
/** Every file the vendor writes: all under src/provider/. */
const FORK_FILES: Record<string, string> = {
  'src/provider/index.ts': PROVIDER_INDEX,
  'src/provider/index.test.ts': FORK_TEST,
  [FORK_MANIFEST]: `${JSON.stringify({ ...(JSON.parse(readFileSync(path.join(ROOT, 'scripts/partner-manifest.json'), 'utf8')) as object), name: VENDOR, description: 'Typing tests, taken in our product.' }, null, 2)}\n`,
  'src/provider/acme-ats/index.ts': ACME_PLATFORM,
  // Its tables in a folder of its choosing: the build copies every .sql file of src/provider/.
  'src/provider/acme-ats/sql/sqlite/001_applications.sql': ACME_TABLE("TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"),
  'src/provider/acme-ats/sql/postgres/001_applications.sql': ACME_TABLE('TIMESTAMPTZ NOT NULL DEFAULT now()'),
};

/** Acme's key for Acme ATS, as its administrator copied it: 36 characters, ending in "wxyz". */
const ACME_KEY = 'acme_live_8f3b2c1d9e0a7f6b5c4d3wxyz';
const RESULTS_SECRET = 'fork-results-secret-0123456789abcdef0123';

let fork: string;
/** git in the fork, with no configuration of the machine's or the user's. */
const git = (...args: string[]) =>
  new Promise<string>((resolve, reject) => {
    const env = vendorGitEnv();
    execFile('git', args, { cwd: fork, env }, (err, stdout, stderr) => (err ? reject(new Error(`git ${args.join(' ')}: ${stderr}`)) : resolve(stdout)));
  });

beforeAll(async () => {
  fork = realpathSync(mkdtempSync(path.join(tmpdir(), 'kit-fork-')));
  // The kit as the vendor cloned it: one commit.
  freshClone(fork);
  await git('init', '--quiet', '--initial-branch=main');
  await git('add', '--all');
  await git('commit', '--quiet', '--no-gpg-sign', '-m', 'The kit');
  // The vendor's code, in its folder only; its settings in .env, which git ignores.
  expect(FORK_PROVIDER.trimEnd().split('\n')).toHaveLength(10);
  for (const [file, text] of Object.entries(FORK_FILES)) {
    mkdirSync(path.dirname(path.join(fork, file)), { recursive: true });
    writeFileSync(path.join(fork, file), text);
  }
  writeFileSync(path.join(fork, '.env'), `FORK_TEST_NAME=${FORK_TESTS[0]!.name}\n`);
}, 300_000);
afterAll(() => {
  if (fork) rmSync(fork, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
  /** SIGTERM to the process and its children (npm runs the command in a shell of its own), as `docker stop` or Ctrl-C would. */
  stop(): Promise<number | null>;
}

/**
 * A command in the fork (or in `options.cwd`), in a process group of its own, with `env` beside
 * the machine's — or, `options.clean`, with `env` and the machine's PATH alone, as in an image;
 * `options.stdin` written to it, then closed.
 */
function run(command: string, args: string[], env: Record<string, string> = {}, options: { cwd?: string; clean?: boolean; stdin?: string } = {}): Run {
  const { DATABASE_URL: _url, ...machine } = process.env;
  const base = options.clean ? { PATH: process.env.PATH ?? '' } : machine;
  const child = spawn(command, args, { cwd: options.cwd ?? fork, env: { ...base, ...env }, detached: true });
  child.stdin.end(options.stdin ?? '');
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (data: Buffer) => {
    output += data.toString();
    for (const check of waiters) check();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  // Once its output is closed: npm's children hold it too, and may still be stopping when npm exits.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (!match) return;
          waiters.delete(check);
          resolve(match);
        };
        waiters.add(check);
        check();
        void exited.then((code) => {
          if (waiters.delete(check)) reject(new Error(`${command} ${args.join(' ')} exited (${code}) before printing ${pattern}:\n${output}`));
        });
      }),
    stop() {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      return exited;
    },
  };
}

/** The command to its end: its exit code and what it printed. */
async function completed(command: string, args: string[], env: Record<string, string> = {}, options: { cwd?: string; clean?: boolean; stdin?: string } = {}) {
  const ran = run(command, args, env, options);
  return { code: await ran.exited, output: ran.output() };
}

/** `npm run build` in the fork, run once, by whichever test needs it first. */
let building: Promise<{ code: number | null; output: string }> | undefined;
const built = () => (building ??= completed('npm', ['run', 'build']));

interface Delivery {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** Acme ATS's API, as a stub: records each delivery; `next()` resolves with the next one not taken yet. */
async function acmeAtsApi() {
  const received: Delivery[] = [];
  let taken = 0;
  const waiting: ((delivery: Delivery) => void)[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const delivery = { method: req.method, url: req.url, headers: req.headers, body: JSON.parse(text || '{}') as Record<string, unknown> };
      received.push(delivery);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      const waiter = waiting.shift();
      if (waiter) {
        taken += 1;
        waiter(delivery);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received,
    next: (): Promise<Delivery> => (taken < received.length ? Promise.resolve(received[taken++]!) : new Promise((resolve) => waiting.push(resolve))),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * The vendor's side, from a terminal in the fork: a customer account, and the customer's Acme ATS
 * API key, typed on standard input. Returns the account's token.
 */
async function customerWithKey(expect: ExpectStatic, database: string): Promise<string> {
  const created = await completed('npm', ['run', '--silent', 'accounts', '--', 'create', 'Acme', '--json'], { DATABASE_PATH: database });
  expect(created.code, created.output).toBe(0);
  const { id, token } = JSON.parse(/\{.*\}/.exec(created.output)![0]) as { id: number; token: string };
  const set = await completed('npm', ['run', 'accounts', '--', 'credential', 'set', String(id), 'acme-ats'], { DATABASE_PATH: database }, { stdin: `${ACME_KEY}\n` });
  expect(set.code, set.output).toBe(0);
  expect(set.output).toContain(`Set the Acme ATS API key of account ${id} (Acme) for Acme ATS: ••••wxyz.`);
  expect(set.output).not.toContain(ACME_KEY);
  return token;
}

/**
 * Acme ATS sends the candidate a test, the vendor's product posts the result to the partner, and the
 * result reaches Acme ATS's API with the customer's key.
 */
async function resultReachesAcme(expect: ExpectStatic, partnerUrl: string, token: string, acme: Awaited<ReturnType<typeof acmeAtsApi>>, applicationId: string) {
  const application = {
    application_id: applicationId,
    company_id: 'acme-company-77',
    test_id: 'typing',
    candidate: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
  };
  const apply = (auth: string) =>
    fetch(`${partnerUrl}/acme-ats/applications`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body: JSON.stringify(application) });
  expect((await apply('Bearer ptk_not-a-token')).status).toBe(401);
  const sent = await apply(`Bearer ${token}`);
  expect(sent.status).toBe(201);
  const { report_id: reportId } = (await sent.json()) as { report_id: string };
  // Its table: the same application again is the same invitation.
  const again = await apply(`Bearer ${token}`);
  expect([again.status, await again.json()]).toEqual([200, { report_id: reportId }]);

  const body = JSON.stringify({ status: 'completed', score: '87%' });
  const result = await fetch(`${partnerUrl}/vendor/reports/${reportId}/result`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [VENDOR_SIGNATURE_HEADER]: signVendorResult(RESULTS_SECRET, reportId, body) },
    body,
  });
  expect(result.status).toBe(200);
  const delivery = await acme.next();
  expect(delivery).toMatchObject({ method: 'POST', url: '/results', body: { application_id: applicationId, status: 'completed', score: '87%' } });
  expect(delivery.headers.authorization).toBe(`Bearer ${ACME_KEY}`);
  return reportId;
}

/** What the platform's table and the kit's bookkeeping hold in the partner's database. */
function tablesOf(database: string) {
  const db = new Database(database, { readonly: true });
  try {
    return {
      applications: db.prepare('SELECT application_id, report_id FROM acme_ats_applications').all(),
      migrations: db.prepare("SELECT name FROM schema_migrations WHERE name LIKE 'acme-ats/%'").pluck().all(),
      connections: db.prepare('SELECT platform, company_id, credential_hint FROM connections').all(),
    };
  } finally {
    db.close();
  }
}

// At once, on ports the system picks: most of each test is waiting for a process (npm, tsx, tsc)
// to start or finish, which the others fill. The start and the image's command wait for the one
// build; the image has its own folder and database, as a container does, the others their own.
describe.concurrent('a fork that changes src/provider/ only: its own provider, and a platform of its own', () => {
  it('npm run build compiles its provider and its platform, with its SQL beside it, and neither the mock nor the test harness', async ({ expect }) => {
    const build = await built();
    expect(build.code, build.output).toBe(0);
    expect(readFileSync(path.join(fork, 'dist/src/provider/index.js'), 'utf8')).toContain('typing.example');
    expect(existsSync(path.join(fork, 'dist/src/provider/acme-ats/index.js'))).toBe(true);
    // The SQL of its migrations travels with the build, beside the compiled platform.
    for (const file of ['dist/src/provider/acme-ats/sql/sqlite/001_applications.sql', 'dist/src/provider/acme-ats/sql/postgres/001_applications.sql']) {
      expect(existsSync(path.join(fork, file)), file).toBe(true);
    }
    for (const absent of ['dist/src/mock-platform', 'dist/src/testing', 'dist/src/provider/index.test.js']) expect(existsSync(path.join(fork, absent)), absent).toBe(false);
  }, 300_000);

  it("npm start runs its provider, which read .env as it loaded, and serves its platform: its setting is read with the kit's, its table is made, its route creates the invitation, the result reaches Acme ATS with the customer's key", async ({ expect }) => {
    const database = path.join(fork, 'data', 'served.db');
    // The customer set up while the build runs: the accounts command needs no build.
    const [token, build] = await Promise.all([customerWithKey(expect, database), built()]);
    expect(build.code).toBe(0);

    // Its setting is the kit's to check: without it, start-up stops, naming it, as for any setting.
    const unset = await completed('npm', ['start'], { DATABASE_PATH: database, PORT: '0' });
    expect(unset.code).toBe(78);
    expect(unset.output).toContain('ACME_ATS_URL');

    const acme = await acmeAtsApi();
    const server = run('npm', ['start'], { DATABASE_PATH: database, PORT: '0', LOG_LEVEL: 'info', ACME_ATS_URL: acme.url, VENDOR_RESULTS_SECRET: RESULTS_SECRET });
    try {
      const [, port] = await server.waitFor(/"port":(\d+).*"msg":"partner server listening"/);
      const partnerUrl = `http://127.0.0.1:${port}`;
      // The provider's tests, named from .env.
      const tests = await fetch(`${partnerUrl}/callbacks/tests`, { headers: { authorization: `Bearer ${token}` } });
      expect(tests.status).toBe(200);
      expect(await tests.json()).toEqual(FORK_TESTS);
      // Its route is served beside the kit's platforms', and named on the home page.
      const home = await (await fetch(partnerUrl, { headers: { accept: 'application/json' } })).text();
      expect(home).toContain('/acme-ats/applications');
      const reportId = await resultReachesAcme(expect, partnerUrl, token, acme, 'app-1001');
      expect(tablesOf(database)).toEqual({
        applications: [{ application_id: 'app-1001', report_id: reportId }],
        migrations: ['acme-ats/001_applications.sql'],
        connections: [{ platform: 'acme-ats', company_id: 'acme-company-77', credential_hint: 'wxyz' }],
      });
    } finally {
      await server.stop();
      await acme.close();
    }
    expect(server.output()).not.toContain(ACME_KEY);
    // The demo never ran: none of its tables were created.
    const db = new Database(database, { readonly: true });
    try {
      expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'demo%'").pluck().all()).toEqual([]);
    } finally {
      db.close();
    }
  }, 300_000);

  it("the Docker image's command runs its provider under the vendor's name, from the settings file Compose gives it", async ({ expect }) => {
    expect((await built()).code).toBe(0);
    // The image as the Dockerfile's runtime stage lays it out: the build's dist/, the templates, the
    // vendor's folder (its manifest at the path it has in the checkout), the production settings.
    const root = mkdtempSync(path.join(tmpdir(), 'kit-image-'));
    const image = layOutImage({ context: fork, built: fork, root });
    expect(existsSync(path.join(image.cwd, FORK_MANIFEST))).toBe(true);
    expect(existsSync(path.join(image.cwd, 'src/provider/index.test.ts'))).toBe(true);
    const mock = await startMockPlatform({ port: 0, logLevel: 'silent' });
    let server: Run | undefined;
    try {
      // Registered with the fork's manifest; the secret before the partner starts, its address after.
      const register = async (url: string) => {
        const partner = loadManifest(path.join(fork, FORK_MANIFEST), url);
        const result = await registerPartner({ platformUrl: mock.url, codename: 'typing-co', companyId: 1, apiToken: 'mock_api_acme', partner });
        if (!result.ok) throw new Error(result.message);
        return result.partner.secret;
      };
      const secret = await register('http://127.0.0.1:0');

      // The vendor's deployment settings, in a file of their own beside the checkout's .env: the
      // file compose.yaml's env_file names when ENV_FILE names it, read as Compose reads it.
      const compose = readFileSync(path.join(fork, 'compose.yaml'), 'utf8');
      const envFilePath = /^\s+- path: \$\{ENV_FILE:-([^}]+)\}$/m.exec(compose);
      expect(envFilePath?.[1]).toBe('.env');
      const settingsFile = path.join(fork, 'deploy/typing/.env');
      mkdirSync(path.dirname(settingsFile), { recursive: true });
      writeFileSync(
        settingsFile,
        [
          `PARTNER_MANIFEST=${FORK_MANIFEST}`,
          'PARTNER_CODENAME=typing-co',
          `PLATFORM_URL=${mock.url}`,
          `PARTNER_SECRET=${secret}`,
          'CANDIDATE_LINK_SECRET=typing-co-candidate-link-secret-0123456789',
          'ADMIN_PASSWORD=Vq3-typing-dashboard-9k',
          // The provider's own setting, and its platform's, with no line for either in compose.yaml.
          'FORK_TEST_NAME=Typing speed, from the deployment',
          'ACME_ATS_URL=https://api.acme-ats.example',
          '',
        ].join('\n'),
      );
      const settings = parseEnv(readFileSync(settingsFile, 'utf8')) as Record<string, string>;
      // The container's environment: the image's, then the file's. HOST on loopback here (the
      // image's 0.0.0.0 is for a container's network); the system picks the port.
      const env: Record<string, string> = { ...image.env, ...settings, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' };
      expect(env.NODE_ENV).toBe('production');

      // A customer account, as docs/deploy.md creates one inside a running instance.
      const created = await completed('node', ['dist/scripts/accounts.js', 'create', 'Acme', '--json'], env, { cwd: image.cwd, clean: true });
      expect(created.code, created.output).toBe(0);
      const { token } = JSON.parse(/\{.*\}/.exec(created.output)![0]) as { token: string };

      const [command, ...args] = image.command;
      server = run(command!, args, env, { cwd: image.cwd, clean: true });
      const [, port] = await server.waitFor(/"port":(\d+).*"msg":"partner server listening"/);
      const partnerUrl = `http://127.0.0.1:${port}`;
      await register(partnerUrl);

      // Acme integrates and sends Ada the fork's test, as a recruiter would.
      const marketplace = `${mock.url}/api/marketplace/c/1/partners/typing-co`;
      const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post(`${marketplace}/integration`, { token })).status).toBe(201);
      const listed = (await (await fetch(`${marketplace}/tests`)).json()) as { tests: { id: string; name: string }[] };
      expect(listed.tests).toEqual([{ id: 'typing', name: 'Typing speed, from the deployment' }]);
      const sent = await post(`${marketplace}/send`, { candidate_id: 17, test_id: 'typing', test_name: listed.tests[0]!.name });
      expect(sent.status).toBe(201);
      const reportId = ((await sent.json()) as { report: { id: string } }).report.id;

      // The invitation e-mail, kept in the database (MAIL_TRANSPORT=json): from the vendor, signed by it.
      const database = path.join(image.cwd, 'data/partner.db');
      const mail = await eventually(
        () => {
          const db = new Database(database, { readonly: true });
          try {
            const row = db.prepare("SELECT message FROM mail_outbox WHERE report_id = ? AND status = 'sent'").get(reportId) as { message: string } | undefined;
            if (!row) throw new Error('the invitation e-mail is not sent yet');
            return JSON.parse(row.message) as { from: unknown; text: string; html: string; subject: string };
          } finally {
            db.close();
          }
        },
        { what: 'the invitation e-mail' },
      );
      expect(JSON.stringify(mail.from)).toContain(VENDOR);
      expect(mail.text).toContain(VENDOR);
      expect(JSON.stringify(mail)).not.toContain('Demo Assessments');

      // The dashboard, behind the deployment's password, and the recruiter's results page.
      const dashboard = await fetch(`${partnerUrl}/admin`, { headers: { authorization: `Basic ${btoa(`admin:${settings.ADMIN_PASSWORD}`)}` } });
      expect(dashboard.status).toBe(200);
      const overview = await dashboard.text();
      expect(overview).toContain(VENDOR);
      expect(overview).not.toContain('Demo Assessments');
      const report = await eventually(async () => {
        const res = await fetch(`${mock.url}/api/marketplace/c/1/reports/${reportId}`);
        const body = (await res.json()) as { report: { urls?: { show?: string } } };
        if (!body.report.urls?.show) throw new Error('the report has no results link yet');
        return body.report;
      });
      const results = await fetch(report.urls!.show!);
      expect(results.status).toBe(200);
      const page = await results.text();
      expect(page).toContain(VENDOR);
      expect(page).not.toContain('Demo Assessments');
    } finally {
      await server?.stop();
      await mock.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);

  it('npm run accounts refuses --test: its provider has no catalog, and its tests are in its code', async ({ expect }) => {
    const refused = await completed('npm', ['run', '--silent', 'accounts', '--', 'create', 'Acme', '--test', 'SQL'], { DATABASE_PATH: path.join(fork, 'data', 'accounts.db') });
    expect(refused.code).toBe(2);
    expect(refused.output).toContain('--test: the provider has no catalog to add tests to: every account is offered the tests its listTests returns.');
    // Not "its tests live in its own product": this one's are a list in its code.
    expect(refused.output).not.toContain('own product');
  }, 120_000);

  it('npm run dev runs its provider, the platform listing its tests, and serves its platform with the same route, table and delivery', async ({ expect }) => {
    const database = path.join(fork, 'data', 'dev.db');
    const acme = await acmeAtsApi();
    const dev = run('npm', ['run', 'dev'], { DATABASE_PATH: database, PORT: '0', MOCK_PORT: '0', ACME_ATS_URL: acme.url, VENDOR_RESULTS_SECRET: RESULTS_SECRET });
    try {
      const [, mockUrl] = await dev.waitFor(/Mock platform \(sandbox UI\)\s+(http:\/\/\S+)/);
      const [, partnerUrl] = await dev.waitFor(/Partner server\s+(http:\/\/\S+)/);
      const tests = await fetch(`${mockUrl}/api/marketplace/c/1/partners/demo-assessments/tests`);
      expect(await tests.json()).toEqual({ tests: FORK_TESTS });
      // Acme, a customer the vendor sets up beside the demo's while it runs.
      const token = await customerWithKey(expect, database);
      const reportId = await resultReachesAcme(expect, partnerUrl!, token, acme, 'app-2002');
      expect(tablesOf(database).applications).toEqual([{ application_id: 'app-2002', report_id: reportId }]);
    } finally {
      await dev.stop();
      await acme.close();
    }
    expect(dev.output()).not.toContain(ACME_KEY);
  }, 300_000);
});

describe('once built, started and run by npm run dev', () => {
  it('git sees changes under src/provider/ only', async () => {
    // After the concurrent tests above: what they built, ran and stored is git-ignored or the vendor's.
    await built();
    const changed = (await git('status', '--porcelain', '--untracked-files=all')).split('\n').filter(Boolean);
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.filter((line) => !line.slice(3).startsWith('src/provider/'))).toEqual([]);
    expect(changed.map((line) => line.slice(3)).sort()).toEqual(Object.keys(FORK_FILES).sort());
    expect(readFileSync(path.join(fork, 'src/provider/index.ts'), 'utf8')).toBe(PROVIDER_INDEX);
  });
});
