import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { PARTNER_KINDS, type PartnerKind } from '../contract/decisions.js';
import { ManifestError, readManifest } from '../contract/manifest.js';
import { Codename } from '../contract/schemas.js';
import { UsageError, parseCommandLine, type CliOutput } from '../lib/cli.js';
import { GREENHOUSE_USAGE, parseGreenhouseArgs, whatTheGreenhouseRunLeaves, type GreenhouseArgs } from './greenhouse/cli.js';
import { runGreenhouseConformance } from './greenhouse/run.js';
import { PlatformSetupError } from './platform.js';
import { resultsUrlFromCallbacks } from './results-checks.js';
import { ConformanceSetupError, runConformance, type ConformanceRun } from './run.js';
import { whatTheRunLeaves } from './side-effects.js';
import type { CheckResult, ConformanceOptions, PlatformSettings, Targets, Tokens } from './types.js';

export const USAGE = `Usage: npm run conformance -- [--platform hiring-platform] <callback-base-url | manifest.json> [options]
       npm run conformance -- --platform greenhouse <base-url> --key KEY [options]

Drives a partner server over HTTP as a platform does and checks every answer against that
platform's contract: one line per check, then "N passed, M failed". Exit code 0 when every
check passed, 1 when one failed, 2 for wrong arguments.

  --platform NAME              the platform whose contract is checked: hiring-platform (the default,
                               docs/platform-contract.md) or greenhouse (docs/greenhouse.md)

The recruiting platform (hiring-platform). The partner's callbacks, one of:
  <callback-base-url>          e.g. http://127.0.0.1:3000/callbacks: <base>/validate_token, <base>/tests,
                               <base>/send_candidate
  <manifest.json>              a partner manifest (scripts/partner-manifest.json): its urls
  --public-url URL             replaces \${PUBLIC_URL} in the manifest (default: PUBLIC_URL, else http://HOST:PORT)
  --validate-token-url URL, --tests-url URL, --send-candidate-url URL
                               each callback explicitly (over the above)

Customer tokens the partner issued (npm run accounts -- create "<name>" --test "<test>"):
  --token TOKEN                twice: two accounts not bound to a company yet, each with a test
                               (or CONFORMANCE_TOKENS=<a>,<b>). The run binds them to companies 1 and 2.
  --empty-token TOKEN          an unbound account without tests, to check the empty list (bound to company 3)

  --kind KIND                  assessment | background_check | reference_check (default: the manifest's,
                               else assessment): which report fields the partner may send
  --mock                       also start the bundled mock platform, register the partner there, send
                               candidates through its marketplace and check the report updates the partner
                               sends back. Prints PLATFORM_URL, PARTNER_CODENAME and PARTNER_SECRET: the
                               partner must send its report updates there, with that secret.
  --mock-port PORT             the mock's port (default: a free one)
  --codename NAME              the codename registered on the mock (default: the manifest's, else conformance)
  --wait                       with --mock: wait for Enter after printing the settings, to (re)start
                               the partner with them

${GREENHOUSE_USAGE}

Either platform:
  --results-secret SECRET      the partner's VENDOR_RESULTS_SECRET (or CONFORMANCE_RESULTS_SECRET; never printed)
                               for its results endpoint, POST /vendor/reports/{report_id}/result: check that
                               endpoint too; with greenhouse, post the interview's result there, so that the
                               test is complete and the PATCH comes
  --results-url URL            that endpoint, with {report_id} where the id goes (default: beside the
                               callbacks or the Greenhouse endpoints, <base without /callbacks or
                               /greenhouse>/vendor/reports/{report_id}/result)
  --json                       print the results as JSON: [{id, section, name, ok, detail, ms}]
  --yes                        run without asking: the run creates invitations in the partner (what, it
                               says first). Without a terminal on standard input (CI) it never asks.
  -h, --help                   this text`;

/** The platforms whose contract the checker knows; the first is the default. */
export const PLATFORMS = ['hiring-platform', 'greenhouse'] as const;
export type PlatformName = (typeof PLATFORMS)[number];

const httpUrl = z.url({ protocol: /^https?$/ });

/** The callbacks under a base URL: `<base>/validate_token`, `<base>/tests`, `<base>/send_candidate`. */
export function callbackTargets(baseUrl: string): Targets {
  const base = baseUrl.replace(/\/+$/, '');
  return { validateToken: `${base}/validate_token`, tests: `${base}/tests`, sendCandidate: `${base}/send_candidate` };
}

/** What the command line asks for: a run against the recruiting platform's contract, or Greenhouse's. */
export type CliArgs = HiringPlatformArgs | ({ platform: 'greenhouse'; json: boolean; yes: boolean } & GreenhouseArgs);

export interface HiringPlatformArgs {
  platform: 'hiring-platform';
  targets: Targets;
  tokens: Tokens;
  kind: PartnerKind;
  json: boolean;
  wait: boolean;
  yes: boolean;
  results?: { secret: string; url: string };
  /** `--mock`: the bundled mock platform, started for the run. */
  mock?: { port: number; codename: string; record: { name?: string; description?: string; helpArticle?: string } };
}

/** The options of one platform only, and which: the other platform's run refuses them. */
const ONLY_FOR: Record<PlatformName, readonly string[]> = {
  'hiring-platform': ['public-url', 'validate-token-url', 'tests-url', 'send-candidate-url', 'token', 'empty-token', 'kind', 'mock', 'mock-port', 'codename', 'wait'],
  greenhouse: ['key', 'other-key', 'patch-timeout', 'receiver-port', 'receiver-host'],
};

/**
 * \`--platform\` names a platform: given bare (followed by another option, or by nothing), it is
 * what \`--platform\` meant before it took a name, "also start the mock platform" (now \`--mock\`).
 */
function refuseBarePlatform(argv: readonly string[]): void {
  argv.forEach((arg, i) => {
    const next = argv[i + 1];
    if (arg === '--platform=' || (arg === '--platform' && (next === undefined || next.startsWith('-')))) {
      throw new UsageError(
        `--platform needs the name of the platform whose contract is checked: ${PLATFORMS.join(' or ')}. To start the bundled mock platform, give --mock.`,
      );
    }
  });
}

/**
 * Reads the command line (and CONFORMANCE_TOKENS, CONFORMANCE_KEYS, CONFORMANCE_RESULTS_SECRET);
 * throws a UsageError naming what is wrong.
 */
export function parseConformanceArgs(argv: string[], env: Record<string, string | undefined>, defaults: { publicUrl: string }): CliArgs {
  refuseBarePlatform(argv);
  const { values, positionals } = parseCommandLine(
    argv,
    {
      platform: { type: 'string' },
      key: { type: 'string' },
      'other-key': { type: 'string' },
      'patch-timeout': { type: 'string' },
      'receiver-port': { type: 'string' },
      'receiver-host': { type: 'string' },
      'public-url': { type: 'string' },
      'validate-token-url': { type: 'string' },
      'tests-url': { type: 'string' },
      'send-candidate-url': { type: 'string' },
      token: { type: 'string', multiple: true },
      'empty-token': { type: 'string' },
      'results-secret': { type: 'string' },
      'results-url': { type: 'string' },
      yes: { type: 'boolean', default: false },
      kind: { type: 'string' },
      mock: { type: 'boolean', default: false },
      'mock-port': { type: 'string' },
      codename: { type: 'string' },
      wait: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    true,
  );
  const named = values.platform ?? PLATFORMS[0];
  if (!(PLATFORMS as readonly string[]).includes(named)) {
    throw new UsageError(`--platform must be ${PLATFORMS.join(' or ')}, not ${named}. To start the bundled mock platform, give --mock.`);
  }
  const platform = named as PlatformName;
  const other = PLATFORMS.find((p) => p !== platform)!;
  for (const flag of ONLY_FOR[other]) {
    const value = (values as Record<string, unknown>)[flag];
    if (value !== undefined && value !== false) throw new UsageError(`--${flag} goes with --platform ${other}`);
  }
  if (positionals.length > 1) throw new UsageError(`One ${platform === 'greenhouse' ? 'base URL' : 'callback base URL or manifest'}, not ${positionals.length}: ${positionals.join(' ')}`);
  const [source] = positionals;

  const secret = values['results-secret'] ?? (env.CONFORMANCE_RESULTS_SECRET || undefined);
  if (secret === undefined && values['results-url'] !== undefined) throw new UsageError('--results-url goes with --results-secret (or CONFORMANCE_RESULTS_SECRET)');
  if (secret !== undefined && secret.trim() === '') throw new UsageError('--results-secret is empty');

  if (platform === 'greenhouse') {
    const results = secret === undefined ? undefined : { secret, ...(values['results-url'] !== undefined && { url: values['results-url'] }) };
    const greenhouse = parseGreenhouseArgs(source, values, results, env);
    if (greenhouse.results) checkResultsUrl(greenhouse.results.url);
    return { platform, json: values.json, yes: values.yes, ...greenhouse };
  }

  let fromSource: Partial<Targets> = {};
  let manifest: ReturnType<typeof readManifest> | undefined;
  if (source !== undefined) {
    if (/^https?:\/\//i.test(source)) {
      if (!httpUrl.safeParse(source).success) throw new UsageError(`Not a URL: ${source}`);
      fromSource = callbackTargets(source);
    } else {
      if (!existsSync(source)) throw new UsageError(`${source} is neither an http(s) URL nor a manifest file`);
      const publicUrl = values['public-url'] ?? defaults.publicUrl;
      if (!httpUrl.safeParse(publicUrl).success) throw new UsageError(`--public-url must be an absolute http(s) URL, not ${publicUrl}`);
      try {
        manifest = readManifest(source, publicUrl);
      } catch (err) {
        if (err instanceof ManifestError) throw new UsageError(`The manifest cannot be used:\n  ${err.problems.join('\n  ')}`);
        throw err;
      }
      const urls = manifest.partner.urls;
      fromSource = { validateToken: urls.validate_token, tests: urls.tests, sendCandidate: urls.send_candidate };
    }
  } else if (values['public-url'] !== undefined) {
    throw new UsageError('--public-url goes with a manifest');
  }

  const targets = {
    validateToken: values['validate-token-url'] ?? fromSource.validateToken,
    tests: values['tests-url'] ?? fromSource.tests,
    sendCandidate: values['send-candidate-url'] ?? fromSource.sendCandidate,
  };
  const missing = Object.entries(targets).filter(([, url]) => url === undefined);
  if (missing.length === 3) throw new UsageError('Give the partner\'s callbacks: a base URL, a manifest, or the three --…-url options');
  if (missing.length > 0) throw new UsageError(`Missing callback URL${missing.length > 1 ? 's' : ''}: ${missing.map(([k]) => flagOf(k)).join(', ')}`);
  for (const [key, url] of Object.entries(targets)) {
    if (!httpUrl.safeParse(url).success) throw new UsageError(`${flagOf(key)} must be an absolute http(s) URL, not ${url}`);
  }

  const given = values.token ?? (env.CONFORMANCE_TOKENS ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  if (given.length !== 2) {
    throw new UsageError(
      `Give two customer tokens (--token A --token B, or CONFORMANCE_TOKENS=A,B), not ${given.length}: accounts not bound to a company, each with a test`,
    );
  }
  if (given[0] === given[1]) throw new UsageError('The two tokens must be of two different accounts');
  const empty = values['empty-token'];
  if (empty !== undefined && given.includes(empty)) throw new UsageError('--empty-token must be a third account, without tests');

  const kind = values.kind ?? manifest?.partner.kind ?? 'assessment';
  if (!(PARTNER_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind must be one of ${PARTNER_KINDS.join(', ')}, not ${kind}`);

  let results: HiringPlatformArgs['results'];
  if (secret !== undefined) {
    const url = values['results-url'] ?? resultsUrlFromCallbacks(targets.sendCandidate!);
    checkResultsUrl(url);
    results = { secret, url };
  }

  let mock: HiringPlatformArgs['mock'];
  if (values.mock) {
    const port = Number(values['mock-port'] ?? '0');
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--mock-port must be a port number, not ${values['mock-port']}`);
    const codename = values.codename ?? manifest?.codename ?? 'conformance';
    if (!Codename.safeParse(codename).success) throw new UsageError(`--codename must be 2–64 lowercase letters, digits, "-" or "_", not ${codename}`);
    const partner = manifest?.partner;
    mock = {
      port,
      codename,
      record: {
        ...(partner && { name: partner.name, helpArticle: partner.urls.help_article }),
        ...(partner?.description && { description: partner.description }),
      },
    };
  } else {
    for (const flag of ['mock-port', 'codename', 'wait'] as const) {
      if (values[flag] !== undefined && values[flag] !== false) throw new UsageError(`--${flag} goes with --mock`);
    }
  }

  return {
    platform,
    targets: targets as Targets,
    tokens: { a: given[0]!, b: given[1]!, ...(empty !== undefined && { empty }) },
    kind: kind as PartnerKind,
    json: values.json,
    wait: values.wait,
    yes: values.yes,
    ...(results && { results }),
    ...(mock && { mock }),
  };
}

function checkResultsUrl(url: string): void {
  if (!url.includes('{report_id}') || !httpUrl.safeParse(url.replace('{report_id}', 'x')).success) {
    throw new UsageError(`--results-url must be an absolute http(s) URL with {report_id} where the id goes, not ${url}`);
  }
}

const flagOf = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}-url`;

/** `✔ §4.1 validate_token POST {company_id} binds the account (200)`; a failure ends with its id. */
export function formatResult(r: CheckResult): string {
  return `${r.ok ? '✔' : '✘'} ${r.section} ${r.name} (${r.detail})${r.ok ? '' : ` [${r.id}]`}`;
}

/** The last line of a run, alone on its line. */
export const summaryLine = (results: readonly CheckResult[]): string =>
  `${results.filter((r) => r.ok).length} passed, ${results.filter((r) => !r.ok).length} failed`;

/** `○ not run (give --mock): 11 checks platform.*` — one line per reason. */
export function notRunLines(notRun: ConformanceRun['notRun']): string[] {
  const byWhy = new Map<string, string[]>();
  for (const { id, why } of notRun) byWhy.set(why, [...(byWhy.get(why) ?? []), id]);
  return [...byWhy].map(([why, ids]) => {
    const group = ids[0]!.split('.')[0];
    const prefix = ids.length > 4 && ids.every((id) => id.startsWith(`${group}.`)) ? `${ids.length} checks ${group}.*` : ids.join(', ');
    return `○ not run (${why}): ${prefix}`;
  });
}

export const settingsLine = (s: PlatformSettings) =>
  `PLATFORM_URL=${s.PLATFORM_URL} PARTNER_CODENAME=${s.PARTNER_CODENAME} PARTNER_SECRET=${s.PARTNER_SECRET}`;

export interface CliIo extends CliOutput {
  env: Record<string, string | undefined>;
  /** Where a manifest's ${PUBLIC_URL} points by default. */
  defaultPublicUrl: string;
  /** For --wait: resolves when the user pressed Enter (default: a line on standard input). */
  waitForEnter?: () => Promise<void>;
  /** Whether standard input is a terminal, where someone can answer (absent: it is not, as in CI). */
  interactive?: boolean;
  /** Asks to go on; resolves to the answer (default: a line on standard input, "y" or "yes"). */
  confirm?: (question: string) => Promise<boolean>;
}

/** The command: parses, runs, prints; returns the exit code (0 all passed, 1 a failure, 2 usage). */
export async function conformanceCli(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  let args: CliArgs;
  try {
    args = parseConformanceArgs(argv, io.env, { publicUrl: io.defaultPublicUrl });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`${err.message}\n\n${USAGE}\n`);
    return 2;
  }

  const out = args.json ? io.stderr : io.stdout;
  // What the run creates, before it creates anything: asked on a terminal, said in CI.
  out(`${args.platform === 'greenhouse' ? whatTheGreenhouseRunLeaves(args) : whatTheRunLeaves(args)}\n`);
  if (args.yes || !io.interactive) {
    out(`Going on (${args.yes ? '--yes' : 'standard input is not a terminal'}).\n\n`);
  } else if (!(await (io.confirm ?? askYesNo)('Go on? [y/N] '))) {
    out('Nothing was sent.\n');
    return 1;
  }
  const onResult = args.json ? undefined : (r: CheckResult) => io.stdout(`${formatResult(r)}\n`);
  let run: ConformanceRun;
  try {
    run =
      args.platform === 'greenhouse'
        ? await runGreenhouseConformance({
            baseUrl: args.baseUrl,
            key: args.key,
            ...(args.otherKey !== undefined && { otherKey: args.otherKey }),
            ...(args.results && { results: args.results }),
            patchTimeoutMs: args.patchTimeoutMs,
            receiver: args.receiver,
            ...(onResult && { onResult }),
            onNotice: (text) => out(`${text}\n`),
          })
        : await runConformance(hiringPlatformOptions(args, io, out, onResult));
  } catch (err) {
    if (err instanceof ConformanceSetupError || err instanceof PlatformSetupError) {
      io.stderr(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
  if (args.json) {
    io.stdout(`${JSON.stringify(run.results, null, 2)}\n`);
  } else {
    for (const line of notRunLines(run.notRun)) io.stdout(`${line}\n`);
    io.stdout(`${summaryLine(run.results)}\n`);
  }
  return run.results.every((r) => r.ok) ? 0 : 1;
}

/** The run against the recruiting platform's contract, with the mock platform's settings printed when it starts. */
function hiringPlatformOptions(args: HiringPlatformArgs, io: CliIo, out: (text: string) => void, onResult?: (r: CheckResult) => void): ConformanceOptions {
  return {
    targets: args.targets,
    tokens: args.tokens,
    kind: args.kind,
    ...(args.mock && {
      mock: {
        ...args.mock,
        ready: async (settings) => {
          out(`Mock platform running at ${settings.PLATFORM_URL}; the partner under test sends its report updates there:\n${settingsLine(settings)}\n`);
          if (args.wait) {
            out('Start (or restart) the partner with these settings, then press Enter.\n');
            await (io.waitForEnter ?? readLine)();
          }
        },
      },
    }),
    ...(args.results && { results: args.results }),
    ...(onResult && { onResult }),
  };
}

/** A yes or no on standard input: "y" or "yes" goes on, anything else (or its end) does not. */
function askYesNo(question: string): Promise<boolean> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    let answered = false;
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      resolve(/^\s*y(es)?\s*$/i.test(answer));
    });
    rl.once('close', () => {
      if (!answered) resolve(false);
    });
  });
}

/** One line from standard input (or its end). */
function readLine(): Promise<void> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin });
    const done = () => {
      rl.close();
      // Nothing more is read: a stdin left open would keep the process from exiting at the end.
      process.stdin.destroy();
      resolve();
    };
    rl.once('line', done);
    rl.once('close', done);
  });
}
