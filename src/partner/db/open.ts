import { fileURLToPath } from 'node:url';
import { migrateNamed, openSqlite, type Db } from '../../lib/db.js';
import type { ProviderMigrations } from '../provider/types.js';

export type { Db };

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/**
 * The partner's SQLite database at `file`, its schema brought up to date (`migrationsDir` for
 * tests), and a provider's own tables after the kit's when `provider` names its migrations (the
 * server applies them itself when it builds the provider).
 */
export function openDb(file: string, options: { migrationsDir?: string; provider?: ProviderMigrations } = {}): Db {
  const db = openSqlite(file, options.migrationsDir ?? MIGRATIONS_DIR);
  if (options.provider) migrateNamed(db, options.provider.dir, options.provider.prefix);
  return db;
}
