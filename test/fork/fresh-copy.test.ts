import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { loadManifest, registerPartner } from '../../scripts/register-partner.js';
import { startMockPlatform } from '../../src/mock-platform/server.js';
import { eventually } from '../support/eventually.js';
import { layOutImage } from '../repo/dockerfile.js';
import { freshClone, ROOT } from './fresh-clone.js';

/**
 * The fork as a vendor makes one: a copy of the repository in which src/provider/index.ts is
 * replaced with a provider of ten lines, beside its own manifest and test, and no file outside
 * src/provider/ is edited. `npm run build`, `npm start`, the Docker image's command, `npm run
 * accounts` and `npm run dev` must all run that provider — read after `.env`, since it reads a
 * setting as its module loads — and never the demo; the image, under the vendor's own name.
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

let fork: string;
beforeAll(() => {
  fork = mkdtempSync(path.join(tmpdir(), 'kit-fork-'));
  freshClone(fork);
  expect(FORK_PROVIDER.trimEnd().split('\n')).toHaveLength(10);
  writeFileSync(path.join(fork, 'src/provider/index.ts'), FORK_PROVIDER);
  writeFileSync(path.join(fork, 'src/provider/index.test.ts'), FORK_TEST);
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'scripts/partner-manifest.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(path.join(fork, FORK_MANIFEST), JSON.stringify({ ...manifest, name: VENDOR, description: 'Typing tests, taken in our product.' }, null, 2));
  writeFileSync(path.join(fork, '.env'), `FORK_TEST_NAME=${FORK_TESTS[0]!.name}\n`);
});
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
 * the machine's — or, `options.clean`, with `env` and the machine's PATH alone, as in an image.
 */
function run(command: string, args: string[], env: Record<string, string> = {}, options: { cwd?: string; clean?: boolean } = {}): Run {
  const { DATABASE_URL: _url, ...machine } = process.env;
  const base = options.clean ? { PATH: process.env.PATH ?? '' } : machine;
  const child = spawn(command, args, { cwd: options.cwd ?? fork, env: { ...base, ...env }, detached: true });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (data: Buffer) => {
    output += data.toString();
    for (const check of waiters) check();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
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
async function completed(command: string, args: string[], env: Record<string, string> = {}, options: { cwd?: string; clean?: boolean } = {}) {
  const ran = run(command, args, env, options);
  return { code: await ran.exited, output: ran.output() };
}

/** `npm run build` in the fork, run once, by whichever test needs it first. */
let building: Promise<{ code: number | null; output: string }> | undefined;
const built = () => (building ??= completed('npm', ['run', 'build']));

/** The database the built server runs on, with the customer account the vendor created in it by `npm run accounts`. */
const SERVED = () => path.join(fork, 'data', 'served.db');
/** `npm run accounts create` in the fork, run once, by whichever test needs the account first: the account's token, or the CLI's output. */
let creating: Promise<{ code: number | null; output: string }> | undefined;
async function createdAccount(expect: ExpectStatic): Promise<string> {
  const created = await (creating ??= completed('npm', ['run', '--silent', 'accounts', '--', 'create', 'Acme', '--json'], { DATABASE_PATH: SERVED() }));
  expect(created.code, created.output).toBe(0);
  return (JSON.parse(/\{.*\}/.exec(created.output)![0]) as { token: string }).token;
}

/**
 * Once the account is created and `npm run build` has succeeded, starts the built server by
 * `command`, asks its tests callback, checks it is the fork's provider, and stops it.
 */
async function servesTheForksProvider(expect: ExpectStatic, command: string, args: string[]) {
  const database = SERVED();
  const token = await createdAccount(expect);
  expect((await built()).code).toBe(0);
  const server = run(command, args, { DATABASE_PATH: database, PORT: '0', LOG_LEVEL: 'info' });
  try {
    const [, port] = await server.waitFor(/"port":(\d+).*"msg":"partner server listening"/);
    const tests = await fetch(`http://127.0.0.1:${port}/callbacks/tests`, { headers: { authorization: `Bearer ${token}` } });
    expect(tests.status).toBe(200);
    expect(await tests.json()).toEqual(FORK_TESTS);
  } finally {
    await server.stop();
  }
  // The demo never ran: none of its tables were created.
  const db = new Database(database, { readonly: true });
  try {
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'demo%'").pluck().all()).toEqual([]);
  } finally {
    db.close();
  }
}

// At once, on ports the system picks: most of each test is waiting for a process (npm, tsx, tsc)
// to start or finish, which the others fill. The start and the image's command wait for the one
// build; the image has its own folder and database, as a container does, the others their own.
describe.concurrent('a fork that changes src/provider/ only', () => {
  it('npm run build compiles its provider, and neither the mock nor the test harness', async ({ expect }) => {
    const build = await built();
    expect(build.code, build.output).toBe(0);
    expect(readFileSync(path.join(fork, 'dist/src/provider/index.js'), 'utf8')).toContain('typing.example');
    expect(existsSync(path.join(fork, 'dist/src/provider/index.js'))).toBe(true);
    for (const absent of ['dist/src/mock-platform', 'dist/src/testing', 'dist/src/provider/index.test.js']) expect(existsSync(path.join(fork, absent)), absent).toBe(false);
  }, 300_000);

  it('npm start runs its provider, which read .env as it loaded', async ({ expect }) => {
    await servesTheForksProvider(expect, 'npm', ['start']);
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
          // The provider's own setting, with no line for it in compose.yaml.
          'FORK_TEST_NAME=Typing speed, from the deployment',
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

  it('npm run dev runs its provider: the platform lists its tests', async ({ expect }) => {
    const dev = run('npm', ['run', 'dev'], { DATABASE_PATH: path.join(fork, 'data', 'dev.db'), PORT: '0', MOCK_PORT: '0' });
    try {
      const [, mockUrl] = await dev.waitFor(/Mock platform \(sandbox UI\)\s+(http:\/\/\S+)/);
      const tests = await fetch(`${mockUrl}/api/marketplace/c/1/partners/demo-assessments/tests`);
      expect(await tests.json()).toEqual({ tests: FORK_TESTS });
    } finally {
      await dev.stop();
    }
  }, 120_000);
});
