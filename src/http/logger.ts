import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ ...common, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}

/**
 * The access log: one line per request with a fixed set of fields (method, path, status, duration)
 * that never carry credentials, so it skips redaction, which would cost more than the line itself.
 * Same destination and format as the main log.
 */
export function createAccessLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ ...common, level }, destination);
}
