/**
 * `npm run dev`: the whole sandbox in one command. Starts the mock platform and the partner server
 * (with the demo account), registers the partner with the mock, integrates the sandbox company
 * "Acme Corp" with the demo customer's token, connects the sandbox company of every other platform
 * the mock plays (its plugins, src/mock-platform/platforms/) to the partner with the same token,
 * and prints where to click. Ctrl-C stops both.
 *
 * The partner's database is a file (DATABASE_PATH, default ./data/partner.db) and survives
 * restarts; so does the mock's, a file beside it (./data/partner.mock.db, or MOCK_DATABASE_PATH),
 * so that the two agree on which reports exist, and holds them while it runs (a `.lock` beside
 * each: a second npm run dev on them stops before touching them). `npm run dev -- --reset` starts
 * both afresh, saying what it deleted. Every
 * start registers (or updates the registration) and integrates again.
 *
 * Environment: PORT / HOST / PUBLIC_URL / DATABASE_PATH / LOG_LEVEL as for the server; MOCK_PORT,
 * MOCK_HOST, MOCK_DATABASE_PATH, MOCK_PUBLIC_URL, MOCK_UPLOADS_DIR as for `npm run mock`;
 * PARTNER_CODENAME (default demo-assessments), PARTNER_MANIFEST (scripts/partner-manifest.json, an
 * assessment; scripts/partner-manifest.background-check.json and .reference-check.json for the
 * checks, each with a database of its own by default). The banner's steps follow the kind.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../src/partner/config.js';
import { Codename } from '../src/contract/schemas.js';
import { mockOptionsFrom, startMockPlatform } from '../src/mock-platform/server.js';
import { SEED_API_TOKENS, SEED_CANDIDATES, SEED_COMPANIES } from '../src/mock-platform/seed.js';
import { mockPlatforms } from '../src/mock-platform/platforms/index.js';
import { connectPlatforms, credentialSetter } from '../src/testing/platforms.js';
import { main, servedPlatforms } from '../src/partner/server.js';
import { demoTokenFile } from '../src/partner/accounts/demo-seed.js';
import { DEFAULT_MANIFEST, RegisterConfigError, describeResult, loadManifest, registerPartner } from './register-partner.js';
import { loadEnvFile } from '../src/lib/env-file.js';
import { PARTNER_DEFAULTS } from '../src/partner/defaults.js';
import { EX_CONFIG, EX_UNAVAILABLE, StartupError, exitUnlessRun, isEntryPoint, listenFailure, readCommandLine, type CliOutput } from '../src/lib/cli.js';
import type { PartnerKind } from '../src/contract/decisions.js';
import { KIND_WORDING } from '../src/partner/invitations/kinds.js';

const USAGE = `Usage: npm run dev [-- --reset]

Starts the mock platform and the partner server, registers the partner with the mock,
integrates the sandbox company Acme Corp and connects the sandbox company of each other platform
the mock plays (${mockPlatforms().map((p) => p.label).join(', ')}). Both keep their state in files (the partner's database,
and the mock's beside it: ./data/partner.mock.db); --reset deletes both first, for a fresh sandbox.
It reads the environment (and .env):

  PORT, HOST, PUBLIC_URL, DATABASE_PATH, LOG_LEVEL, LOG_FORMAT    the partner server, as for npm start
  MOCK_PORT, MOCK_HOST, MOCK_DATABASE_PATH                        the mock platform, as for npm run mock
                                                                  (MOCK_DATABASE_PATH=:memory: keeps it in memory)
  PARTNER_CODENAME, PARTNER_MANIFEST                              what is registered; for a check:
      PARTNER_MANIFEST=scripts/partner-manifest.background-check.json (or .reference-check.json),
      with its own database (./data/partner.background-check.db) unless DATABASE_PATH is set`;

const SANDBOX_COMPANY = SEED_COMPANIES[0];
const SANDBOX_TOKEN = SEED_API_TOKENS.find((t) => t.companyId === SANDBOX_COMPANY.id)!.token;
const SANDBOX_CANDIDATE = SEED_CANDIDATES.find((c) => c.companyId === SANDBOX_COMPANY.id)!;
/** The demo customer's account: DEMO_SEED creates it in an empty database only, so it is the first. */
const DEMO_ACCOUNT_ID = 1;

const DevEnv = z.object({
  PARTNER_CODENAME: Codename.default(PARTNER_DEFAULTS.PARTNER_CODENAME),
  PARTNER_MANIFEST: z.string().min(1).default(DEFAULT_MANIFEST),
});

export interface Sandbox {
  partnerUrl: string;
  mockUrl: string;
  codename: string;
  partnerName: string;
  /** What the partner is, as registered: the banner's steps depend on it. */
  kind: PartnerKind;
  /**
   * Which requests the servers log: every one (`all`: LOG_FORMAT=json, or LOG_LEVEL=debug), only
   * those that fail (`failures`: the readable lines a person watches, where a request that went
   * well is `debug`), or `none` (LOG_LEVEL=warn and above).
   */
  requestsLogged: 'all' | 'failures' | 'none';
  /** How the sandbox company's integration went; the sandbox runs either way. */
  integration: { ok: true } | { ok: false; message: string };
  /**
   * How connecting each other platform's sandbox company went (the partner's URL, the demo token),
   * by the name of its plugin.
   */
  platforms: Readonly<Record<string, { ok: true } | { ok: false; message: string }>>;
  close(): Promise<void>;
}

/**
 * Starts everything; `env` is normally process.env. Throws ConfigError / RegisterConfigError.
 * `reset` deletes the sandbox's files first: the mock's database and the partner's SQLite database
 * (with its demo token), so that both start empty and agree.
 */
export async function startSandbox(
  env: Record<string, string | undefined>,
  options: { reset?: boolean; /** Told what `reset` deleted, one line. */ say?: (line: string) => void } = {},
): Promise<Sandbox> {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const dev = DevEnv.safeParse(present);
  // The mock reads its own keys (MOCK_PORT, MOCK_HOST, MOCK_DATABASE_PATH, …) as `npm run mock` does.
  // Both servers write to this terminal: readable lines by default, each naming its server.
  const logFormat = present.LOG_FORMAT ?? 'pretty';
  const manifestKind = dev.success ? manifestKindOf(dev.data.PARTNER_MANIFEST) : undefined;
  const partnerDatabase = present.DATABASE_PATH ?? sandboxDatabase(manifestKind ?? 'assessment');
  const mockDatabase = present.MOCK_DATABASE_PATH ?? mockDatabaseBeside(partnerDatabase);
  const mockEnv = mockOptionsFrom({ ...present, MOCK_DATABASE_PATH: mockDatabase, LOG_FORMAT: logFormat });
  // The vendor's module may add platforms of its own: their settings are read with the kit's.
  const platforms = await servedPlatforms();
  // Every setting is read before anything starts, and every problem named at once, as npm start
  // names them: the sandbox's own, the mock's, the partner's and the manifest's.
  const problems = [
    ...(dev.success ? [] : dev.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)),
    ...(mockEnv.ok ? [] : mockEnv.problems),
  ];
  // Each platform the mock plays points the partner at it; its address is known once it listens.
  const base = problemsOf(problems, ConfigError, () => loadConfig({ ...present, ...pluginSettings('http://127.0.0.1'), LOG_FORMAT: logFormat }, platforms));
  const manifestFile = present.PARTNER_MANIFEST ?? DEFAULT_MANIFEST;
  const manifest = problemsOf(problems, RegisterConfigError, () => loadManifest(manifestFile, base?.publicUrl ?? 'http://127.0.0.1'), 'PARTNER_MANIFEST: ');
  if (!dev.success || !mockEnv.ok || !base || !manifest) throw new ConfigError([...new Set(problems)]);

  // Before any database is touched: this sandbox's files are no other npm run dev's, running now,
  // and both ports are free. A second npm run dev on the same files (only MOCK_PORT changed, say)
  // stops here, instead of writing to the first one's databases and failing on the partner's port.
  const partnerFile = present.DATABASE_URL ? ':memory:' : partnerDatabase;
  const lock = lockSandbox([partnerFile, mockDatabase]);
  try {
    await portsFree([
      { port: base.port, host: base.host, names: { port: 'PORT', host: 'HOST' } },
      { port: mockEnv.options.port ?? 0, host: mockEnv.options.host ?? '127.0.0.1', names: { port: 'MOCK_PORT', host: 'MOCK_HOST' } },
    ]);
  } catch (err) {
    lock.release();
    throw err;
  }
  if (options.reset) {
    const files = [...sqliteFiles(mockDatabase), ...(present.DATABASE_URL ? [] : [...sqliteFiles(partnerDatabase), demoTokenFile(partnerDatabase)])];
    const deleted = files.filter((file) => existsSync(file));
    for (const file of deleted) rmSync(file, { force: true });
    options.say?.(resetReport(deleted, { partnerDatabase: present.DATABASE_URL ? undefined : partnerDatabase, mockDatabase }));
  }
  const partnerEnv = {
    ...present,
    DEMO_SEED: 'true',
    DATABASE_PATH: partnerDatabase,
    // The candidate's pages and e-mail name the vendor as the platform does: the registered
    // manifest's name (PARTNER_NAME, when set, still wins).
    PARTNER_MANIFEST: dev.data.PARTNER_MANIFEST,
    LOG_FORMAT: logFormat,
  };

  let mock: Awaited<ReturnType<typeof startMockPlatform>>;
  try {
    mock = await startMockPlatform(mockEnv.options);
  } catch (err) {
    lock.release();
    throw err;
  }
  // Stopped in reverse: the lock goes last, once both servers have closed their databases.
  const stops: (() => Promise<void>)[] = [async () => lock.release(), () => mock.close()];
  const close = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    const register = async (partner: NonNullable<typeof manifest>) => {
      const result = await registerPartner({
        platformUrl: mock.url,
        codename: dev.data.PARTNER_CODENAME,
        companyId: SANDBOX_COMPANY.id,
        apiToken: SANDBOX_TOKEN,
        partner,
      });
      if (!result.ok) {
        const target = { platformUrl: mock.url, codename: dev.data.PARTNER_CODENAME, companyId: SANDBOX_COMPANY.id };
        throw new Error(describeResult(result, target));
      }
      return result;
    };
    // A kept mock database (MOCK_DATABASE_PATH) already has the record: this updates it, same secret.
    const registered = await register(manifest);

    // The platform's URL, the codename, the secret and the registered kind are what the partner
    // needs to send report updates the platform accepts; each other platform's settings point at
    // the mock playing it.
    const settings = {
      ...partnerEnv,
      ...pluginSettings(mock.url),
      PLATFORM_URL: mock.url,
      PARTNER_CODENAME: dev.data.PARTNER_CODENAME,
      PARTNER_SECRET: registered.partner.secret,
      PARTNER_KIND: registered.partner.kind,
    };
    const config = loadConfig(settings, platforms);
    const partner = await main(config);
    stops.push(() => partner.close());
    const address = partner.server.address();
    const partnerUrl = `http://${config.host}:${typeof address === 'object' && address ? address.port : config.port}`;
    // With PORT=0 the port is known only now: the callbacks are registered again where it listens.
    if (partner.publicUrl !== base.publicUrl) await register(loadManifest(dev.data.PARTNER_MANIFEST, partner.publicUrl));

    const demo = demoToken(config.databasePath);
    const integration = demo.ok ? await integrate(mock.url, dev.data.PARTNER_CODENAME, demo) : demo;
    // Each other platform's sandbox company connects with the same token; a credential a platform
    // gives the customer for the partner goes on the demo account, the first the partner created.
    const connected = demo.ok
      ? await connectPlatforms({
          mockUrl: mock.url,
          plugins: mockPlatforms(),
          partner: { url: partner.publicUrl, name: registered.partner.name, token: demo.token },
          setCredential: credentialSetter({ env: settings, accountId: DEMO_ACCOUNT_ID, platforms }),
        })
      : Object.fromEntries(mockPlatforms().map((p) => [p.name, demo]));
    const level = config.logLevel;
    return {
      partnerUrl,
      mockUrl: mock.url,
      requestsLogged: level === 'debug' || level === 'trace' ? 'all' : level !== 'info' ? 'none' : config.logFormat === 'pretty' ? 'failures' : 'all',
      codename: dev.data.PARTNER_CODENAME,
      partnerName: registered.partner.name,
      kind: registered.partner.kind,
      integration,
      platforms: connected,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The demo account's catalog is seeded once, for one kind (tests, or checks): a check sandbox gets
 * a database of its own unless DATABASE_PATH says otherwise (./data/partner.background-check.db).
 */
function sandboxDatabase(kind: PartnerKind): string {
  if (kind === 'assessment') return PARTNER_DEFAULTS.DATABASE_PATH;
  return PARTNER_DEFAULTS.DATABASE_PATH.replace(/\.db$/, `.${kind.replace(/_/g, '-')}.db`);
}

/**
 * The mock's database under `npm run dev`: a file beside the partner's (./data/partner.mock.db),
 * so the sandbox's platform remembers the reports the partner remembers, across restarts.
 */
function mockDatabaseBeside(partnerDatabase: string): string {
  return partnerDatabase === ':memory:' ? ':memory:' : `${partnerDatabase.replace(/\.db$/, '')}.mock.db`;
}

/**
 * `fn`'s value; or, when it throws a `kind` of error (ConfigError, RegisterConfigError), undefined,
 * its problems added to `problems` (each after `prefix`), so that they are named with the others.
 */
function problemsOf<T>(problems: string[], kind: new (...args: never[]) => Error & { problems: string[] }, fn: () => T, prefix = ''): T | undefined {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof kind)) throw err;
    problems.push(...err.problems.map((p) => `${prefix}${p}`));
    return undefined;
  }
}

/** What `--reset` says it did: the files it deleted (named as the settings name them), or that there were none. */
function resetReport(names: string[], databases: { partnerDatabase: string | undefined; mockDatabase: string }): string {
  const kept = databases.partnerDatabase === undefined ? " The partner's PostgreSQL database (DATABASE_URL) is kept: --reset deletes files only." : '';
  if (names.length === 0) {
    const where = [databases.partnerDatabase, databases.mockDatabase].filter((f) => f !== undefined && f !== ':memory:').join(' and ');
    return `--reset: nothing to delete${where ? ` (no ${where} yet)` : ''}; both start empty.${kept}`;
  }
  return `--reset deleted ${names.join(', ')}: the partner and the mock start empty.${kept}`;
}

/** What the sandbox holds while it runs: released when it stops (or the process exits). */
interface SandboxLock {
  release(): void;
}

/**
 * Locks the sandbox's database files, each with a `<file>.lock` beside it holding this process's
 * id, taken atomically; throws a StartupError when another running process (an npm run dev still
 * up) holds one, naming it. A lock left by a process that has gone (killed) is taken over.
 * `:memory:` is nothing to lock.
 */
function lockSandbox(files: string[]): SandboxLock {
  const held: string[] = [];
  const release = () => {
    process.off('exit', release);
    for (const lockFile of held.splice(0)) {
      try {
        if (readFileSync(lockFile, 'utf8').trim() === String(process.pid)) rmSync(lockFile, { force: true });
      } catch {
        // Gone already.
      }
    }
  };
  process.once('exit', release);
  try {
    for (const file of new Set(files.filter((f) => f !== ':memory:'))) {
      const lockFile = `${file}.lock`;
      mkdirSync(path.dirname(path.resolve(lockFile)), { recursive: true });
      for (;;) {
        try {
          writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
          held.push(lockFile);
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        const holder = Number(readFileSync(lockFile, 'utf8').trim());
        if (Number.isInteger(holder) && holder > 0 && running(holder)) {
          throw new StartupError(
            `${file} is in use by another npm run dev (process ${holder}): stop it first (Ctrl-C in its terminal), ` +
              'or give this one its own DATABASE_PATH (and MOCK_DATABASE_PATH)',
            EX_UNAVAILABLE,
          );
        }
        // Its process is gone: the lock is stale.
        rmSync(lockFile, { force: true });
      }
    }
  } catch (err) {
    release();
    throw err;
  }
  return { release };
}

/** Whether a process of that id runs (one of another user's too: EPERM). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Throws the StartupError a server's listen would (naming its PORT or MOCK_PORT) when one of these
 * ports is taken, before anything is started: a port chosen by the system (0) is always free.
 */
async function portsFree(ports: { port: number; host: string; names: { port: string; host: string } }[]): Promise<void> {
  for (const { port, host, names } of ports) {
    if (port === 0) continue;
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', (err) => reject(listenFailure(err, { port, host }, names)));
      probe.listen(port, host, () => probe.close(() => resolve()));
    });
  }
}

/** A SQLite database's files: the database and its write-ahead log. */
const sqliteFiles = (file: string) => (file === ':memory:' ? [] : [file, `${file}-wal`, `${file}-shm`]);

/** The kind the manifest registers, read before anything starts (undefined if it cannot be read: the start says why). */
function manifestKindOf(file: string): PartnerKind | undefined {
  try {
    return loadManifest(file, 'http://127.0.0.1').kind;
  } catch {
    return undefined;
  }
}

/** The demo account's token, which the partner wrote beside its database when it seeded the account. */
type DemoToken = { ok: true; token: string; tokenFile: string; ownFile: string } | { ok: false; message: string };

function demoToken(databasePath: string): DemoToken {
  const ownFile = demoTokenFile(databasePath);
  // Older versions wrote one `demo-token` per folder; it is used (and renamed) if it still works.
  const legacyFile = path.join(path.dirname(path.resolve(databasePath)), 'demo-token');
  const tokenFile = existsSync(ownFile) || !existsSync(legacyFile) ? ownFile : legacyFile;
  if (!existsSync(tokenFile)) {
    return {
      ok: false,
      message: `No demo token at ${tokenFile}. Issue one with \`npm run accounts -- token 1\` and paste it on the company page.`,
    };
  }
  return { ok: true, token: readFileSync(tokenFile, 'utf8').trim(), tokenFile, ownFile };
}

/** Integrates the sandbox company with the demo account's token, through the marketplace API. */
async function integrate(mockUrl: string, codename: string, demo: Extract<DemoToken, { ok: true }>): Promise<Sandbox['integration']> {
  const { token, tokenFile, ownFile } = demo;
  const res = await request(`${mockUrl}/api/marketplace/c/${SANDBOX_COMPANY.id}/partners/${codename}/integration`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.body.json().catch(() => ({}))) as { error?: string };
  if (res.statusCode < 300) {
    if (tokenFile !== ownFile) renameSync(tokenFile, ownFile);
    return { ok: true };
  }
  return {
    ok: false,
    message:
      `The partner refused the demo token in ${tokenFile} ("${body.error ?? res.statusCode}"). ` +
      `Issue a new one with \`npm run accounts -- token 1\`, write it to ${ownFile}, and restart.`,
  };
}

/** What each platform the mock plays needs in the partner's settings to reach it there (their `dev.partnerSettings`). */
function pluginSettings(mockUrl: string): Record<string, string> {
  return Object.assign({}, ...mockPlatforms().map((p) => p.dev?.partnerSettings?.(mockUrl) ?? {}));
}

/** What `npm run dev` prints once ready: where everything is, and the flow to try for the partner's kind. */
export function banner(s: Sandbox): string {
  const company = `${s.mockUrl}/companies/${SANDBOX_COMPANY.id}`;
  const candidate = `${company}/candidates/${SANDBOX_CANDIDATE.id}`;
  const wording = KIND_WORDING[s.kind];
  const steps =
    s.kind === 'assessment'
      ? [
          `  1. Open ${candidate} (${SANDBOX_CANDIDATE.name}).`,
          `  2. Under "Send a test", choose ${s.partnerName} and click "List tests".`,
          '  3. Pick a test and click "Send": the report appears with the badge "sent".',
          `  4. The partner e-mails the candidate (kept in the database, not sent): open the invitation and`,
          `     its e-mail in the dashboard, follow the candidate link, take the test — the report turns`,
          `     completed or failed.`,
          `  5. See every call between platform and partner at ${s.mockUrl}/calls.`,
        ]
      : [
          `  1. Open ${candidate} (${SANDBOX_CANDIDATE.name}).`,
          `  2. Under "Send a test" (the platform's words for every kind), choose ${s.partnerName} and`,
          `     click "List tests": your tests callback lists the ${wording.noun}s.`,
          `  3. Pick a ${wording.noun} and click "Send": the report appears with the badge "sent".`,
          `  4. The partner e-mails the candidate (kept in the database, not sent): open the invitation and`,
          `     its e-mail in the dashboard, follow the candidate link and give consent ("${wording.cta}").`,
          `  5. Complete the check as your operator would: on the invitation's page in the dashboard,`,
          `     click "Record result: clear…" or "Record result: adverse…" and confirm — the report turns completed or failed.`,
          `  6. See every call between platform and partner at ${s.mockUrl}/calls.`,
        ];
  // Each other platform the mock plays: its link among the addresses, its steps after the hiring platform's.
  const others = mockPlatforms().flatMap((plugin) => {
    const connected = s.platforms[plugin.name];
    return plugin.dev?.banner && connected ? [plugin.dev.banner({ mockUrl: s.mockUrl, partnerName: s.partnerName, connected })] : [];
  });
  return [
    '',
    `Sandbox ready (${wording.title.toLowerCase()} partner).`,
    '',
    ...addresses(s),
    '',
    s.integration.ok
      ? `${SANDBOX_COMPANY.name} has integrated ${s.partnerName} (${s.codename}) with the demo customer's token. Try it:`
      : `Integration of ${SANDBOX_COMPANY.name} failed: ${s.integration.message}`,
    '',
    ...steps,
    '',
    ...others.flatMap((o) => [...o.steps, '']),
    ...(s.requestsLogged === 'failures'
      ? ['Requests are logged only when they fail (4xx, 5xx): LOG_LEVEL=debug npm run dev logs every one.']
      : []),
    'Press Enter to see the addresses again; Ctrl-C stops both servers.',
    '',
  ].join('\n');
}

/** Where everything is, one line each: the banner's first lines, printed again when Enter is pressed. */
export function addresses(s: Sandbox): string[] {
  const address = (label: string, url: string) => `  ${label.padEnd(26)}  ${url}`;
  const others = mockPlatforms().flatMap((plugin) => {
    const connected = s.platforms[plugin.name];
    return plugin.dev?.banner && connected ? [plugin.dev.banner({ mockUrl: s.mockUrl, partnerName: s.partnerName, connected }).link] : [];
  });
  return [
    address('Mock platform (sandbox UI)', s.mockUrl),
    address('Partner server', s.partnerUrl),
    address('Partner dashboard', `${s.partnerUrl}/admin  (admin / admin in development)`),
    address('Call history', `${s.mockUrl}/calls`),
    ...others.map((link) => address(link.label, link.url)),
  ];
}

/** `npm run dev`'s command line, read before anything starts: it takes no arguments (see readCommandLine). */
export const readDevCommandLine = (args: string[], out?: CliOutput) =>
  readCommandLine(USAGE, args, { reset: { type: 'boolean', default: false } }, false, out);

if (isEntryPoint(import.meta.url)) {
  const { values } = exitUnlessRun(readDevCommandLine(process.argv.slice(2)));
  loadEnvFile();
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox(process.env, { reset: values.reset, say: (line) => console.log(line) });
  } catch (err) {
    if (err instanceof ConfigError || err instanceof RegisterConfigError) {
      console.error(err.message);
      process.exit(EX_CONFIG);
    }
    // The port of either server in use (naming PORT or MOCK_PORT), the database unreachable: one line.
    if (err instanceof StartupError) {
      console.error(err.message);
      process.exit(err.exitCode);
    }
    console.error((err as { message?: string }).message ?? String(err));
    process.exit(1);
  }
  // Ready for Ctrl-C before the banner says so: a signal right after it must still close both servers.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      sandbox.close().then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(err);
          process.exit(1);
        },
      );
    });
  }
  console.log(banner(sandbox));
  // The log scrolls the banner away: Enter prints where everything is again.
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (typed: string) => {
    if (typed.includes('\n')) console.log(['', ...addresses(sandbox), ''].join('\n'));
  });
}
