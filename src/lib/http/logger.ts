import { destination, pino, type Logger, type DestinationStream, type Bindings } from 'pino';
import { prettyDestination } from './pretty-log.js';

export type { Logger };

/** json: one JSON object per line (production, log collectors); pretty: one readable line (development, see pretty-log.ts). */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * Structured JSON logs. Redaction is by path and applies to every log line, so a credential that
 * ends up in a logged object under one of these keys is printed as "[redacted]".
 */
export const REDACTED_PATHS = [
  'authorization',
  'token',
  'secret',
  'password',
  '*.authorization',
  '*.token',
  '*.secret',
  '*.password',
  '*.*.authorization',
  '*.*.token',
  '*.*.secret',
  '*.*.password',
  'headers["rt-partner-secret"]',
  '*.headers["rt-partner-secret"]',
  'headers.cookie',
  '*.headers.cookie',
];

const common = {
  base: undefined,
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label: string) => ({ level: label }) },
};

/**
 * Standard output for a server's log lines, written asynchronously: a line is handed to the kernel
 * off the event loop, and the lines logged while a write is under way go out together in the next
 * one. Under load that is one write for many lines instead of a blocking write() per line, which
 * cost every callback about 30 µs here. pino writes what is left synchronously when the process
 * exits, after an uncaught exception too; only a SIGKILL loses the lines still in memory, a few
 * milliseconds' worth. Give the main logger and the access log the same one: a single writer
 * never splits a line.
 */
export function logDestination(format: LogFormat = 'json'): DestinationStream {
  const stdout = destination({ dest: 1, sync: false });
  if (format === 'json') return stdout;
  return prettyDestination(stdout, { color: process.stdout.isTTY === true && !process.env.NO_COLOR });
}

/** `server` names the process's server on every line ("partner", "mock"): `npm run dev` runs both in one. */
export function createLogger(level: string, destination?: DestinationStream, options: { server?: string } = {}): Logger {
  return pino(
    { ...common, ...(options.server && { base: { server: options.server } }), level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    destination,
  );
}

/**
 * The access log: one line per request with a fixed set of fields (method, path, status, duration)
 * that never carry credentials, so it skips redaction, which would cost more than the line itself.
 * Same destination and format as the main log.
 */
export function createAccessLogger(level: string, destination?: DestinationStream, bindings?: Bindings): Logger {
  return pino({ ...common, ...(bindings && Object.keys(bindings).length > 0 && { base: bindings }), level }, destination);
}
