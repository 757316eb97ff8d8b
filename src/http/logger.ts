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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
