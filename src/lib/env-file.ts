import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

/** EX_CONFIG (sysexits.h): the exit code of a start-up stopped by a setting, as a bad one's is. */
const EX_CONFIG = 78;

/**
 * Reads the settings file into `process.env`: the file ENV_FILE names (relative to the working
 * directory), else `.env` there when it exists. Variables already set in the environment win. One
 * file is one deployment's settings, so a second deployment from the same checkout (another
 * product, or staging beside production) names its own file instead of overriding every setting
 * of the first. A file ENV_FILE names that cannot be read stops the process with one line and exit
 * 78, as a bad setting does: running on the other deployment's `.env`, or on none, would be worse.
 *
 * Node's reader skips a line it cannot read without a word (and takes a line without `=` for part
 * of the next setting's name, which is then not set): each such line is warned about on standard
 * error, by its number, never its content — the file holds secrets (`unreadLines`).
 *
 * Only entry points call this — `loadConfig(env)` itself stays a pure function of what it is given.
 */
export function loadEnvFile(warn: (line: string) => void = (line) => console.warn(line)): void {
  const named = process.env.ENV_FILE;
  const file = named || '.env';
  if (!named && !existsSync(file)) return;
  const label = named ? `ENV_FILE ${file}` : '.env';
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
    process.loadEnvFile(file);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no such file' : (err as Error).message;
    console.error(`${named ? 'ENV_FILE' : '.env'}: cannot read the settings file ${path.resolve(file)}: ${reason}`);
    process.exit(EX_CONFIG);
  }
  for (const { line, why } of unreadLines(text)) warn(`${label}, line ${line}: ${why}`);
}

/** A setting's line: `NAME=value` or `export NAME=value`, the name as programs read names. */
const SETTING = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;
const QUOTES = new Set(['"', "'", '`']);

/**
 * The lines of a settings file Node's reader does not read as they look, each by its number (from
 * 1) and why, in words that never repeat the line: it is not `NAME=value` (nor blank, nor a `#`
 * comment) and is ignored, its name is not set (swallowed by such a line before it), or its quoted
 * value is never closed. The lines a quoted value spans are its setting's.
 */
export function unreadLines(text: string): { line: number; why: string }[] {
  const read = parseEnv(text);
  const lines = text.split(/\r?\n/);
  const unread: { line: number; why: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const at = i + 1;
    const line = lines[i]!;
    if (/^\s*(#|$)/.test(line)) continue;
    const setting = SETTING.exec(line);
    if (!setting) {
      unread.push({ line: at, why: 'not a setting (NAME=value, or a # comment): ignored' });
      continue;
    }
    const [, name, value] = setting as unknown as [string, string, string];
    const quote = value[0];
    if (quote !== undefined && QUOTES.has(quote) && !value.slice(1).includes(quote)) {
      // A quoted value may span lines: up to the line with its closing quote.
      let end = i + 1;
      while (end < lines.length && !lines[end]!.includes(quote)) end++;
      if (end === lines.length) {
        const taken = read[name] === undefined ? 'not set' : 'read as it is, the quote included';
        unread.push({ line: at, why: `${name}'s value opens a quote (${quote}) that is never closed: ${taken}` });
        continue;
      }
      i = end;
    }
    if (read[name] === undefined) {
      unread.push({ line: at, why: `${name} is not set: a line before it that is not a setting is taken for part of its name` });
    }
  }
  return unread;
}
