import type { DestinationStream } from 'pino';

/**
 * Human-readable log lines for development (LOG_FORMAT=pretty, the default of `npm run dev`),
 * without a dependency: pino still builds — and redacts — each JSON line, and this destination
 * rewrites it before it is written:
 *
 *   [partner] 10:42:01 INFO  partner server listening port=3000 publicUrl=http://127.0.0.1:3000
 *
 * The server's name, the local time, the level, the message, then the other fields as key=value
 * (strings quoted when they hold more than a URL or a path would, objects as JSON); an error's
 * stack on the lines beneath.
 */

const LEVEL_COLORS: Record<string, string> = {
  trace: '90',
  debug: '36',
  info: '32',
  warn: '33',
  error: '31',
  fatal: '35',
};
const SHOWN_ELSEWHERE = new Set(['level', 'time', 'msg', 'server']);
const PLAIN = /^[\w.:/@+,-]+$/;

export function prettyLine(line: string, options: { color?: boolean } = {}): string {
  let entry: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return ensureNewline(line);
    entry = parsed as Record<string, unknown>;
  } catch {
    return ensureNewline(line);
  }
  const level = typeof entry.level === 'string' ? entry.level : String(entry.level ?? '');
  const time = typeof entry.time === 'string' || typeof entry.time === 'number' ? new Date(entry.time) : undefined;
  const clock = time && !Number.isNaN(time.getTime()) ? time.toTimeString().slice(0, 8) : '--:--:--';
  const server = typeof entry.server === 'string' ? `[${entry.server}]`.padEnd(9) + ' ' : '';
  let label = level.toUpperCase().padEnd(5);
  if (options.color && LEVEL_COLORS[level]) label = `\u001b[${LEVEL_COLORS[level]}m${label}\u001b[39m`;

  const fields: string[] = [];
  const stacks: string[] = [];
  for (const [key, value] of Object.entries(entry)) {
    if (SHOWN_ELSEWHERE.has(key) || value === undefined) continue;
    const error = value as { message?: unknown; stack?: unknown } | null;
    if (error !== null && typeof error === 'object' && typeof error.stack === 'string') {
      fields.push(`${key}=${JSON.stringify(typeof error.message === 'string' ? error.message : String(error.stack.split('\n')[0]))}`);
      stacks.push(error.stack.replace(/^/gm, '    '));
      continue;
    }
    fields.push(`${key}=${formatValue(value)}`);
  }
  const message = typeof entry.msg === 'string' ? entry.msg : '';
  const head = [`${server}${clock} ${label}`, message, ...fields].filter((part) => part !== '').join(' ');
  return [head, ...stacks].join('\n') + '\n';
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return PLAIN.test(value) ? value : JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  return JSON.stringify(value);
}

function ensureNewline(line: string): string {
  return line.endsWith('\n') ? line : `${line}\n`;
}

/**
 * Marks a destination that a person reads at a terminal (`prettyDestination`'s): the access log
 * (request-log.ts) writes a request that went well at `debug` there, so that the start-up banner
 * and what went wrong stay in view; `LOG_LEVEL=debug` shows every request again.
 */
export const READ_BY_A_PERSON = Symbol('read by a person at a terminal');

/** Whether `destination` is one a person reads at a terminal (`READ_BY_A_PERSON`). */
export const readByAPerson = (destination: unknown): boolean =>
  typeof destination === 'object' && destination !== null && (destination as Record<symbol, unknown>)[READ_BY_A_PERSON] === true;

/**
 * A pino destination that writes each line through `prettyLine` to `out` (a stream of strings or
 * a pino destination). Colors when asked, or when `out` is omitted and standard output is a terminal.
 */
export function prettyDestination(
  out: { write(chunk: string): unknown; flush?: (cb?: (err?: Error) => void) => void; flushSync?: () => void },
  options: { color?: boolean } = {},
): DestinationStream & { flush(cb?: (err?: Error) => void): void; flushSync(): void; [READ_BY_A_PERSON]: true } {
  const color = options.color ?? false;
  return {
    [READ_BY_A_PERSON]: true,
    write(line: string) {
      out.write(prettyLine(line, { color }));
    },
    flush(cb) {
      if (typeof out.flush === 'function') out.flush(cb);
      else cb?.();
    },
    flushSync() {
      out.flushSync?.();
    },
  };
}
