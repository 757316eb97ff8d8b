import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';

/**
 * The fork as a vendor makes one: a copy of the repository in which src/provider/index.ts, and no
 * other file, is replaced with a provider of ten lines. `npm run build`, `npm start`, the Docker
 * image's command, `npm run accounts` and `npm run dev` must all run that provider — read after
 * `.env`, since it reads a setting as its module loads — and never the demo.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

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

/** What a fresh clone has: the repository's files, without what installing, building or running leaves. */
const NOT_COPIED = new Set(['node_modules', 'dist', 'data', '.git', '.env', 'coverage', 'bench-results', 'test-results']);

let fork: string;
beforeAll(() => {
  fork = mkdtempSync(path.join(tmpdir(), 'kit-fork-'));
  for (const name of readdirSync(ROOT)) {
    if (NOT_COPIED.has(name)) continue;
    cpSync(path.join(ROOT, name), path.join(fork, name), { recursive: true, filter: (from) => !/\.db(-wal|-shm)?$|\.demo-token$/.test(from) });
  }
  // The dependencies as `npm ci` installs them: the project's own.
  symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(fork, 'node_modules'), 'dir');
  expect(FORK_PROVIDER.trimEnd().split('\n')).toHaveLength(10);
  writeFileSync(path.join(fork, 'src/provider/index.ts'), FORK_PROVIDER);
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

/** A command in the fork, in a process group of its own, with `env` beside the machine's. */
function run(command: string, args: string[], env: Record<string, string> = {}): Run {
  const { DATABASE_URL: _url, ...machine } = process.env;
  const child = spawn(command, args, { cwd: fork, env: { ...machine, ...env }, detached: true });
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
async function completed(command: string, args: string[], env: Record<string, string> = {}) {
  const ran = run(command, args, env);
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
// build and the one account, and serve the same database (as two instances of a deployment would);
// the others have a database of their own.
describe.concurrent('a fork that replaces src/provider/index.ts, and nothing else', () => {
  it('npm run build compiles its provider, and neither the mock nor the test harness', async ({ expect }) => {
    const build = await built();
    expect(build.code, build.output).toBe(0);
    expect(readFileSync(path.join(fork, 'dist/src/provider/index.js'), 'utf8')).toContain('typing.example');
    for (const absent of ['dist/src/mock-platform', 'dist/src/testing', 'dist/src/provider/index.test.js']) expect(existsSync(path.join(fork, absent)), absent).toBe(false);
  }, 300_000);

  it('npm start runs its provider, which read .env as it loaded', async ({ expect }) => {
    await servesTheForksProvider(expect, 'npm', ['start']);
  }, 300_000);

  it("the Docker image's command runs its provider", async ({ expect }) => {
    const cmd = readFileSync(path.join(fork, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('CMD '))
      .at(-1)!;
    const [command, ...args] = JSON.parse(cmd.slice(4)) as string[];
    await servesTheForksProvider(expect, command!, args);
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
