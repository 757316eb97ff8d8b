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

/**
 * What an entry point does with its arguments before anything else: `--help` prints the usage
 * (exit 0); wrong arguments print what is wrong and the usage on stderr (exit 2), never a stack
 * trace. Returns the parsed arguments when the command should run.
 */
export function commandLineOrExit<const O extends Options, const P extends boolean = false>(
  usage: string,
  args: string[],
  options: O,
  allowPositionals?: P,
): ReturnType<typeof parseCommandLine<O, P>> {
  let parsed: ReturnType<typeof parseCommandLine<O, P>>;
  try {
    parsed = parseCommandLine(args, options, allowPositionals);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    exitWithUsage(usage, err.message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return parsed;
}

/** Prints `message` and the usage on stderr and exits 2. */
export function exitWithUsage(usage: string, message: string): never {
  console.error(`${message}\n\n${usage}`);
  process.exit(2);
}
