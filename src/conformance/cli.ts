import { isIP } from 'node:net';
import { createInterface } from 'node:readline';
import { UsageError, parseCommandLine, type CliOutput } from '../lib/cli.js';
import { CHECKERS } from './platforms/index.js';
import type { ArgsInput, CheckerOption, CheckerPlugin, RunIo } from './platforms/plugin.js';
import type { ReceiverSpec } from './receiver.js';
import { ConformanceSetupError, type ConformanceRun } from './run.js';
import type { CheckResult } from './types.js';

/**
 * `npm run conformance`: the command line of every platform's checker. It names no platform: the
 * platforms are the registry's (platforms/index.ts), each a plugin (platforms/plugin.ts) that
 * brings its options, its usage, its checks and its run. Here are what they share: `--platform`,
 * the results endpoint, the receiver's address, `--wait`, the question before a run, the lines it
 * prints and the exit codes.
 */

/** The options every platform takes, or (the receiver's, --wait) every platform that has what they are about. */
const SHARED_OPTIONS = {
  platform: { type: 'string' },
  'results-secret': { type: 'string' },
  'results-url': { type: 'string' },
  'receiver-host': { type: 'string' },
  'receiver-port': { type: 'string' },
  wait: { type: 'boolean' },
  json: { type: 'boolean' },
  yes: { type: 'boolean' },
} as const satisfies Record<string, CheckerOption>;

/** Whether `plugin` takes `--flag`: its own options, the shared ones, the receiver's when it has one, --wait when it has a mock. */
function takes(plugin: CheckerPlugin, flag: string): boolean {
  if (flag === 'receiver-host' || flag === 'receiver-port') return plugin.receiver !== undefined;
  if (flag === 'wait') return plugin.mock !== undefined;
  return flag in SHARED_OPTIONS || Object.hasOwn(plugin.options, flag);
}

/**
 * Every option the command knows: the shared ones and each platform's. Two platforms may have an
 * option of the same name (a customer's `--key`) if it is of the same type; a platform may not
 * redefine a shared one. A registry that breaks this is the kit's fault, not the user's: an Error.
 */
export function commandOptions(platforms: readonly CheckerPlugin[]): Record<string, CheckerOption> {
  const table: Record<string, CheckerOption> = { ...SHARED_OPTIONS };
  const names = new Set<string>();
  for (const plugin of platforms) {
    if (!/^[a-z][a-z0-9-]*$/.test(plugin.name) || names.has(plugin.name)) throw new Error(`The platform checkers' names must be distinct, lowercase words: ${plugin.name}`);
    names.add(plugin.name);
    for (const [name, option] of Object.entries(plugin.options)) {
      if (name in SHARED_OPTIONS || name === 'help') throw new Error(`The checker of ${plugin.name} declares --${name}, an option every platform shares`);
      const known = table[name];
      if (known && (known.type !== option.type || Boolean(known.multiple) !== Boolean(option.multiple))) {
        throw new Error(`--${name} of ${plugin.name} is not of the type of another platform's --${name}`);
      }
      table[name] = option;
    }
  }
  return table;
}

/** `a`, `a or b`, `a, b or c`. */
const oneOf = (words: readonly string[]) => (words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`);

/** `To start the bundled mock platform, give --mock.`: what a bare `--platform` once meant. */
const mockHint = (platforms: readonly CheckerPlugin[]) =>
  platforms
    .filter((p) => p.mock?.option !== undefined)
    .map((p) => ` To start ${p.mock!.what}, give --${p.mock!.option}.`)
    .join('');

const COLUMN = 31;
const WIDTH = 110;

/** Words wrapped at WIDTH, the first line after `first`, the others after `indent`. */
function wrap(text: string, first: string, indent: string): string {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = indent + word;
    } else {
      line = empty ? line + word : `${line} ${word}`;
    }
    empty = false;
  }
  lines.push(line);
  return lines.join('\n');
}

/** `  --flag VALUE                 text`, the text from column 32, wrapped. */
function optionLine(flag: string, text: string): string {
  const head = `  ${flag}`;
  const pad = ' '.repeat(COLUMN);
  return head.length < COLUMN ? wrap(text, head.padEnd(COLUMN), pad) : `${head}\n${wrap(text, pad, pad)}`;
}

/** The lines the command adds to a platform's own: its receiver's options, and --wait. */
function sharedLinesOf(plugin: CheckerPlugin): string[] {
  const lines: string[] = [];
  if (plugin.receiver) lines.push(...receiverLines(plugin.receiver));
  if (plugin.mock) {
    const when = plugin.mock.option === undefined ? '' : `with --${plugin.mock.option}: `;
    lines.push(optionLine('--wait', `${when}wait for Enter after printing the partner's settings (${plugin.mock.settings.join(', ')}), to (re)start the partner with them`));
  }
  return lines;
}

const receiverLines = (spec: ReceiverSpec) => [
  optionLine('--receiver-port PORT', `the port the checker listens on for ${spec.for} (default: a free one), where only some ports may be opened`),
  optionLine(
    '--receiver-host ADDRESS',
    `the address it listens on, which ${spec.namedBy} names (default 127.0.0.1): an IP address of this machine that the partner reaches`,
  ),
];

/** The usage: every registered platform, its synopsis, how it calls a partner and its options; then what every platform takes. */
export function usageText(platforms: readonly CheckerPlugin[] = CHECKERS): string {
  const [first, ...rest] = platforms;
  const synopses = [
    `Usage: npm run conformance -- [--platform ${first!.name}] ${first!.usage.synopsis}`,
    ...rest.map((p) => `       npm run conformance -- --platform ${p.name} ${p.usage.synopsis}`),
  ];
  const width = Math.max(...platforms.map((p) => p.name.length)) + 2;
  const names = platforms.map((p, i) => `${' '.repeat(COLUMN + 2)}${p.name.padEnd(width)}${p.label}, ${p.contract}${i === 0 ? ' (the default)' : ''}`);
  const sections = platforms.map((p) =>
    [wrap(`--platform ${p.name}: ${p.label}, ${p.contract}. It calls the partner ${p.calls}.`, '', ''), p.usage.lines, ...sharedLinesOf(p)].join('\n'),
  );
  return `${synopses.join('\n')}

Drives a partner server over HTTP as a platform does and checks every answer against that
platform's contract: one line per check, then "N passed, M failed". Exit code 0 when every
check passed, 1 when one failed, 2 for wrong arguments.

${optionLine('--platform NAME', 'the platform whose contract is checked, one of these (their options below):')}
${names.join('\n')}

${sections.join('\n\n')}

Every platform:
${[
  optionLine(
    '--results-secret SECRET',
    "the partner's VENDOR_RESULTS_SECRET (or CONFORMANCE_RESULTS_SECRET; never printed), for its results endpoint, " +
      'POST /vendor/reports/{report_id}/result: what the run does with it, each platform says above',
  ),
  optionLine('--results-url URL', "that endpoint, with {report_id} where the id goes (default: beside the partner's endpoints, where a kit partner serves it)"),
  optionLine('--json', 'print the results as JSON: [{id, section, name, ok, detail, ms}]'),
  optionLine(
    '--yes',
    'run without asking: the run creates invitations in the partner (what, it says first). Without a terminal on standard input (CI) it never asks.',
  ),
  optionLine('-h, --help', 'this text'),
].join('\n')}`;
}

/**
 * `--platform` names a platform: given bare (followed by another option, or by nothing), it is
 * what `--platform` meant before it took a name, "also start the mock platform" (now the option of
 * the platform whose mock it is).
 */
function refuseBarePlatform(argv: readonly string[], platforms: readonly CheckerPlugin[]): void {
  argv.forEach((arg, i) => {
    const next = argv[i + 1];
    if (arg === '--platform=' || (arg === '--platform' && (next === undefined || next.startsWith('-')))) {
      throw new UsageError(`--platform needs the name of the platform whose contract is checked: ${oneOf(platforms.map((p) => p.name))}.${mockHint(platforms)}`);
    }
  });
}

/** `--receiver-host` and `--receiver-port`: an IP address to listen on (not a wildcard: the partner is given it) and a port. */
function receiverAddress(host: string | undefined, port: string | undefined, spec: ReceiverSpec): Required<NonNullable<ArgsInput['receiver']>> {
  const address = host?.trim().replace(/^\[(.*)\]$/, '$1') ?? '127.0.0.1';
  if (isIP(address) === 0) throw new UsageError(`--receiver-host must be an IP address of this machine (e.g. 127.0.0.1), not ${host}`);
  if (address === '0.0.0.0' || address === '::') {
    throw new UsageError(`--receiver-host must be one address, not ${address}: ${spec.namedBy} names it, and the partner must reach it`);
  }
  const number = port === undefined ? 0 : /^\d{1,5}$/.test(port.trim()) ? Number(port) : NaN;
  if (!Number.isInteger(number) || number < 0 || number > 65535) throw new UsageError(`--receiver-port must be a port number (1 to 65535), not ${port}`);
  return { host: address, port: number };
}

/** What the command line asks for: a platform's run, its arguments as its plugin read them, and how to print. */
export interface ConformanceCommand {
  plugin: CheckerPlugin;
  /** The platform's name, as `--platform` takes it. */
  platform: string;
  /** What the plugin's `parse` returned: its run's arguments. */
  args: unknown;
  json: boolean;
  yes: boolean;
  /** `--wait`: Enter is awaited once the partner's settings are printed. */
  wait: boolean;
}

/**
 * Reads the command line (and CONFORMANCE_RESULTS_SECRET; a platform may read CONFORMANCE_* of its
 * own): picks the platform, refuses another platform's options, reads what the platforms share and
 * has the platform read the rest. Throws a UsageError naming what is wrong.
 */
export function parseConformanceArgs(
  argv: string[],
  env: Record<string, string | undefined>,
  defaults: { publicUrl: string },
  platforms: readonly CheckerPlugin[] = CHECKERS,
): ConformanceCommand {
  refuseBarePlatform(argv, platforms);
  const options = commandOptions(platforms);
  const { values, positionals } = parseCommandLine(argv, options, true);
  const given = values as Record<string, string | boolean | string[] | undefined>;

  const named = (given.platform as string | undefined) ?? platforms[0]!.name;
  const plugin = platforms.find((p) => p.name === named);
  if (!plugin) throw new UsageError(`--platform must be ${oneOf(platforms.map((p) => p.name))}, not ${named}.${mockHint(platforms)}`);
  for (const flag of Object.keys(options)) {
    if (given[flag] === undefined || takes(plugin, flag)) continue;
    const owners = platforms.filter((p) => takes(p, flag)).map((p) => p.name);
    throw new UsageError(`--${flag} goes with --platform ${oneOf(owners)}`);
  }
  if (positionals.length > 1) throw new UsageError(`One ${plugin.source}, not ${positionals.length}: ${positionals.join(' ')}`);

  const secret = (given['results-secret'] as string | undefined) ?? (env.CONFORMANCE_RESULTS_SECRET || undefined);
  const resultsUrl = given['results-url'] as string | undefined;
  if (secret === undefined && resultsUrl !== undefined) throw new UsageError('--results-url goes with --results-secret (or CONFORMANCE_RESULTS_SECRET)');
  if (secret !== undefined && secret.trim() === '') throw new UsageError('--results-secret is empty');

  const wait = given.wait === true;
  const mockOption = plugin.mock?.option;
  if (wait && mockOption !== undefined && given[mockOption] !== true) throw new UsageError(`--wait goes with --${mockOption}`);

  const own = Object.fromEntries(Object.keys(plugin.options).map((name) => [name, given[name]]));
  const args = plugin.parse({
    source: positionals[0],
    values: own,
    env,
    publicUrl: defaults.publicUrl,
    ...(secret !== undefined && { results: { secret, ...(resultsUrl !== undefined && { url: resultsUrl }) } }),
    ...(plugin.receiver && { receiver: receiverAddress(given['receiver-host'] as string | undefined, given['receiver-port'] as string | undefined, plugin.receiver) }),
  });
  return { plugin, platform: plugin.name, args, json: given.json === true, yes: given.yes === true, wait };
}

/** `✔ §4.1 validate_token POST {company_id} binds the account (200)`; a failure ends with its id. */
export function formatResult(r: CheckResult): string {
  return `${r.ok ? '✔' : '✘'} ${r.section} ${r.name} (${r.detail})${r.ok ? '' : ` [${r.id}]`}`;
}

/** The last line of a run, alone on its line. */
export const summaryLine = (results: readonly CheckResult[]): string =>
  `${results.filter((r) => r.ok).length} passed, ${results.filter((r) => !r.ok).length} failed`;

/** `○ not run (give --results-secret): 12 checks results.*` — one line per reason. */
export function notRunLines(notRun: ConformanceRun['notRun']): string[] {
  const byWhy = new Map<string, string[]>();
  for (const { id, why } of notRun) byWhy.set(why, [...(byWhy.get(why) ?? []), id]);
  return [...byWhy].map(([why, ids]) => {
    const group = ids[0]!.split('.')[0];
    const prefix = ids.length > 4 && ids.every((id) => id.startsWith(`${group}.`)) ? `${ids.length} checks ${group}.*` : ids.join(', ');
    return `○ not run (${why}): ${prefix}`;
  });
}

/** `PLATFORM_URL=http://127.0.0.1:40123 PARTNER_CODENAME=conformance PARTNER_SECRET=…`: the partner's settings, on one line. */
export const settingsLine = (settings: Readonly<Record<string, string>>): string =>
  Object.entries(settings)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');

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

/**
 * The command: parses, runs, prints; returns the exit code (0 all passed, 1 a failure, 2 usage).
 * `platforms` is the registry; a test may give others.
 */
export async function conformanceCli(argv: string[], io: CliIo, platforms: readonly CheckerPlugin[] = CHECKERS): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(`${usageText(platforms)}\n`);
    return 0;
  }
  let command: ConformanceCommand;
  try {
    command = parseConformanceArgs(argv, io.env, { publicUrl: io.defaultPublicUrl }, platforms);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`${err.message}\n\n${usageText(platforms)}\n`);
    return 2;
  }

  const { plugin, args } = command;
  const out = command.json ? io.stderr : io.stdout;
  // What the run creates, before it creates anything: asked on a terminal, said in CI.
  out(`${plugin.leaves(args)}\n`);
  if (command.yes || !io.interactive) {
    out(`Going on (${command.yes ? '--yes' : 'standard input is not a terminal'}).\n\n`);
  } else if (!(await (io.confirm ?? askYesNo)('Go on? [y/N] '))) {
    out('Nothing was sent.\n');
    return 1;
  }
  const runIo: RunIo = {
    ...(!command.json && { onResult: (r: CheckResult) => io.stdout(`${formatResult(r)}\n`) }),
    notice: (text) => out(`${text}\n`),
    partnerSettings: async (heading, settings) => {
      out(`${heading}\n${settingsLine(settings)}\n`);
      if (command.wait) {
        out('Start (or restart) the partner with these settings, then press Enter.\n');
        await (io.waitForEnter ?? readLine)();
      }
    },
  };
  let run: ConformanceRun;
  try {
    run = await plugin.run(args, runIo);
  } catch (err) {
    if (err instanceof ConformanceSetupError) {
      io.stderr(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
  if (command.json) {
    io.stdout(`${JSON.stringify(run.results, null, 2)}\n`);
  } else {
    for (const line of notRunLines(run.notRun)) io.stdout(`${line}\n`);
    io.stdout(`${summaryLine(run.results)}\n`);
  }
  return run.results.every((r) => r.ok) ? 0 : 1;
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
