import { existsSync } from 'node:fs';

/**
 * Reads `.env` from the working directory into `process.env` when the file exists; variables
 * already set in the environment win. Only entry points call this — `loadConfig(env)` itself stays
 * a pure function of what it is given.
 */
export function loadEnvFile(file = '.env'): void {
  if (existsSync(file)) process.loadEnvFile(file);
}
