import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Wrong command-line arguments: the CLI prints the message and its usage, and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util parseArgs, strict (unknown options and missing values are errors), with `--help`
 * always known; its errors come out as UsageError.
 */
export function parseCommandLine<const O extends Options, const P extends boolean = false>(
  args: string[],
  options: O,
  allowPositionals?: P,
) {
  try {
    return parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: allowPositionals ?? false,
      strict: true,
    });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) throw new UsageError((err as Error).message);
    throw err;
  }
}

/** Where a command writes: the process's streams, or (in tests) strings. */
export interface CliOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The process's own stdout and stderr. */
export const processOutput: CliOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * What an entry point does with its arguments before anything else: `--help` prints the usage on
 * stdout (exit 0); wrong arguments print what is wrong and the usage on stderr (exit 2), never a
 * stack trace. Returns the parsed arguments when the command should run, else `{ exit }` with the
 * code to exit with, once printed.
 */
export function readCommandLine<const O extends Options, const P extends boolean = false>(
  usage: string,
  args: string[],
  options: O,
  allowPositionals?: P,
  out: CliOutput = processOutput,
): { run: ReturnType<typeof parseCommandLine<O, P>> } | { exit: 0 | 2 } {
  let parsed: ReturnType<typeof parseCommandLine<O, P>>;
  try {
    parsed = parseCommandLine(args, options, allowPositionals);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    out.stderr(`${err.message}\n\n${usage}\n`);
    return { exit: 2 };
  }
  if ((parsed.values as { help?: boolean }).help) {
    out.stdout(`${usage}\n`);
    return { exit: 0 };
  }
  return { run: parsed };
}

/** What an entry point does with `readCommandLine`'s answer: exits when the command should not run. */
export function exitUnlessRun<T>(read: { run: T } | { exit: number }): T {
  if ('exit' in read) process.exit(read.exit);
  return read.run;
}

/** Whether the module at `moduleUrl` (its `import.meta.url`) is the script Node was started with. */
export const isEntryPoint = (moduleUrl: string): boolean =>
  process.argv[1] !== undefined && moduleUrl === pathToFileURL(path.resolve(process.argv[1])).href;

/** sysexits(3): a setting is wrong (fix it and start again). */
export const EX_CONFIG = 78;
/** sysexits(3): something the server needs is not available now (the database, the port); starting again later may work. */
export const EX_UNAVAILABLE = 69;

/**
 * Why a server cannot start, in one line naming the variable to look at, and the code its process
 * exits with: `EX_CONFIG` when the setting is wrong, `EX_UNAVAILABLE` when what it names is not
 * there now. An entry point prints the message alone, never a stack (`exitOnStartupError`).
 */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode: typeof EX_CONFIG | typeof EX_UNAVAILABLE,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StartupError';
  }
}

/**
 * A server's `listen` failure as a `StartupError` naming the variables that set its port and host
 * (`PORT`/`HOST` for the partner, `MOCK_PORT`/`MOCK_HOST` for the mock); any other error as it is.
 */
export function listenFailure(err: unknown, at: { port: number; host: string }, names: { port: string; host: string }): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  const where = `${at.host}:${at.port}`;
  if (code === 'EADDRINUSE') {
    return new StartupError(`${where} is already in use (${names.port}=${at.port}): stop what listens there, or set ${names.port} to a free port`, EX_UNAVAILABLE, { cause: err });
  }
  if (code === 'EACCES') {
    return new StartupError(`Not allowed to listen on ${where}: ports below 1024 need privileges; set ${names.port} to 1024 or above`, EX_CONFIG, { cause: err });
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new StartupError(`${names.host}=${at.host} is not an address of this machine: set ${names.host} to one of its addresses (127.0.0.1, or 0.0.0.0 for all)`, EX_CONFIG, { cause: err });
  }
  return err;
}

/** An entry point's answer to its start failing: a `StartupError`'s one line and exit code; anything else is thrown on. */
export function exitOnStartupError(err: unknown): never {
  if (err instanceof StartupError) {
    console.error(err.message);
    process.exit(err.exitCode);
  }
  throw err;
}
