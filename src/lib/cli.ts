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
