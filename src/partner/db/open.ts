import { fileURLToPath } from 'node:url';
import { openSqlite, type Db } from '../../lib/db.js';

export type { Db };

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** The partner's SQLite database at `file`, its schema brought up to date (`migrationsDir` for tests). */
export function openDb(file: string, options: { migrationsDir?: string } = {}): Db {
  return openSqlite(file, options.migrationsDir ?? MIGRATIONS_DIR);
}
