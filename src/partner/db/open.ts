import { fileURLToPath } from 'node:url';
import { migrateNamed, openSqlite, type Db } from '../../lib/db.js';
import { migratePostgres } from '../../lib/sql-migrate.js';
import { postgresPool, postgresSql, sqliteSql, type Sql } from '../../lib/sql.js';
import type { ProviderMigrations } from '../provider/types.js';

export type { Db, Sql };

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const POSTGRES_MIGRATIONS_DIR = fileURLToPath(new URL('./migrations-postgres/', import.meta.url));

/** The partner's database, whichever it is: the stores query it through `sql`. */
export interface PartnerDatabase {
  sql: Sql;
  /** Where it is, for the log: the file, or the PostgreSQL host and database (never the password). */
  where: string;
  close(): Promise<void>;
}

/**
 * The partner's database: PostgreSQL when `databaseUrl` is set (DATABASE_URL), else SQLite at
 * `databasePath`; its schema brought up to date, and a provider's own tables after the kit's when
 * `provider` names its migrations (the server applies them itself when it builds the provider).
 * On PostgreSQL, instances starting together migrate one after the other (an advisory lock).
 */
export async function openPartnerDatabase(
  settings: { databasePath: string; databaseUrl?: string },
  options: { provider?: ProviderMigrations; onConnectionError?: (err: Error) => void } = {},
): Promise<PartnerDatabase> {
  if (settings.databaseUrl) {
    const pool = postgresPool(settings.databaseUrl, { onError: options.onConnectionError });
    const sql = postgresSql(pool);
    try {
      await migratePostgres(sql, [{ dir: POSTGRES_MIGRATIONS_DIR, prefix: 'kit' }]);
      if (options.provider) await migrateProvider(sql, options.provider);
    } catch (err) {
      await pool.end();
      throw err;
    }
    const url = new URL(settings.databaseUrl);
    return { sql, where: `postgres://${url.host}${url.pathname}`, close: () => pool.end() };
  }
  const db = openDb(settings.databasePath, options);
  return { sql: sqliteSql(db), where: settings.databasePath, close: async () => void db.close() };
}

/**
 * The partner's SQLite database at `file`, its schema brought up to date (`migrationsDir` for
 * tests), and a provider's own tables after the kit's when `provider` names its migrations.
 */
export function openDb(file: string, options: { migrationsDir?: string; provider?: ProviderMigrations } = {}): Db {
  const db = openSqlite(file, options.migrationsDir ?? MIGRATIONS_DIR);
  if (options.provider) migrateNamed(db, options.provider.dir, options.provider.prefix);
  return db;
}

/**
 * Applies a provider's own migrations, after the kit's, each once: `dir` on SQLite, `postgresDir`
 * on PostgreSQL (a provider whose tables are only written for SQLite cannot run on PostgreSQL).
 */
export async function migrateProvider(sql: Sql, migrations: ProviderMigrations): Promise<void> {
  if (sql.sqlite) return migrateNamed(sql.sqlite, migrations.dir, migrations.prefix);
  if (!migrations.postgresDir) {
    throw new Error(
      `The provider's migrations ("${migrations.prefix}") are written for SQLite only: give them a postgresDir to run on PostgreSQL (DATABASE_URL)`,
    );
  }
  await migratePostgres(sql, [{ dir: migrations.postgresDir, prefix: migrations.prefix }]);
}
