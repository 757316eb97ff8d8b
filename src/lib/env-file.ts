import { existsSync } from 'node:fs';
import path from 'node:path';

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
 * Only entry points call this — `loadConfig(env)` itself stays a pure function of what it is given.
 */
export function loadEnvFile(): void {
  const named = process.env.ENV_FILE;
  const file = named || '.env';
  if (!named && !existsSync(file)) return;
  try {
    process.loadEnvFile(file);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no such file' : (err as Error).message;
    console.error(`${named ? 'ENV_FILE' : '.env'}: cannot read the settings file ${path.resolve(file)}: ${reason}`);
    process.exit(EX_CONFIG);
  }
}
