import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { migrateNamed, openSqlite, type Db } from '../../lib/db.js';
import { migratePostgres } from '../../lib/sql-migrate.js';
import { DEFAULT_DATABASE_TIMEOUT_MS, DatabaseUnavailable, postgresPool, postgresSql, sqliteSql, type Sql } from '../../lib/sql.js';
import { EX_CONFIG, EX_UNAVAILABLE, StartupError } from '../../lib/cli.js';
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
 * On PostgreSQL, instances starting together migrate one after the other (an advisory lock), and
 * every call the stores make afterwards is answered within `databaseTimeoutMs`
 * (DATABASE_TIMEOUT_SECONDS; `DEFAULT_DATABASE_TIMEOUT_MS` when not given) or rejects as
 * `DatabaseUnavailable`: the migrations alone may wait longer, for another instance's.
 * A database that cannot be reached or opened rejects as a `StartupError` naming DATABASE_URL
 * (without its password) or DATABASE_PATH.
 */
export async function openPartnerDatabase(
  settings: { databasePath: string; databaseUrl?: string; databaseTimeoutMs?: number },
  options: {
    provider?: ProviderMigrations;
    onConnectionError?: (err: Error) => void;
    /**
     * A pool already open on DATABASE_URL's database, used instead of a new one (an application
     * that has one; the tests, which keep theirs from test to test): `close` ends it all the same.
     */
    pool?: pg.Pool;
  } = {},
): Promise<PartnerDatabase> {
  if (settings.databaseUrl) {
    const where = withoutCredentials(settings.databaseUrl);
    const timeoutMs = settings.databaseTimeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
    const pool = options.pool ?? postgresPool(settings.databaseUrl, { timeoutMs, onError: options.onConnectionError });
    const migrating = postgresSql(pool, { timeoutMs: Infinity });
    try {
      await migratePostgres(migrating, [{ dir: POSTGRES_MIGRATIONS_DIR, prefix: 'kit' }]);
      if (options.provider) await migrateProvider(migrating, options.provider);
    } catch (err) {
      await pool.end();
      throw err instanceof DatabaseUnavailable ? unreachable(err.cause, where, timeoutMs) : err;
    }
    return { sql: postgresSql(pool, { timeoutMs }), where, close: () => pool.end() };
  }
  let db: Db;
  try {
    db = openDb(settings.databasePath, options);
  } catch (err) {
    throw unopenable(err, settings.databasePath);
  }
  return { sql: sqliteSql(db), where: settings.databasePath, close: async () => void db.close() };
}

/** DATABASE_URL as the log and the start-up errors show it: the host and database, never the user's password. */
function withoutCredentials(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `postgres://${url.host}${url.pathname}`;
}

/**
 * Why PostgreSQL could not be reached, in one line: EX_CONFIG when DATABASE_URL itself is wrong
 * (a password, user or database PostgreSQL refuses), EX_UNAVAILABLE when the server is not there
 * now (refusing connections, not answering, starting up). PostgreSQL's own messages name the user
 * or database, never the password.
 */
function unreachable(cause: unknown, where: string, timeoutMs: number): StartupError {
  const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown };
  // A refused connection to a name with several addresses is an AggregateError without a message.
  const said = typeof message === 'string' && message !== '' ? message : typeof code === 'string' ? code : String(cause);
  // 28P01 wrong password, 28000 no such user (or not allowed from here), 3D000 no such database.
  if (code === '28P01' || code === '28000' || code === '3D000') {
    return new StartupError(`DATABASE_URL: PostgreSQL at ${where} refused the connection: ${said}; fix DATABASE_URL`, EX_CONFIG, { cause });
  }
  if (/timeout/i.test(said)) {
    return new StartupError(
      `DATABASE_URL: PostgreSQL at ${where} did not answer within ${timeoutMs / 1000} s (DATABASE_TIMEOUT_SECONDS); is it running, and does DATABASE_URL name it?`,
      EX_UNAVAILABLE,
      { cause },
    );
  }
  return new StartupError(`DATABASE_URL: cannot reach PostgreSQL at ${where} (${said}); is it running, and does DATABASE_URL name it?`, EX_UNAVAILABLE, { cause });
}

/** Why the SQLite file could not be opened (a folder that cannot be created, a file that is not a database), in one line. */
function unopenable(cause: unknown, file: string): unknown {
  const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || !/^(SQLITE_(CANTOPEN|NOTADB|READONLY|PERM|IOERR|CORRUPT)|EACCES$|EPERM$|ENOTDIR$|EEXIST$|EROFS$|ENOENT$)/.test(code)) return cause;
  return new StartupError(`DATABASE_PATH: cannot open the SQLite database ${file}: ${String(message)}; fix DATABASE_PATH or the folder's permissions`, EX_CONFIG, { cause });
}

/**
 * The partner's SQLite database at `file`, its schema brought up to date (`migrationsDir` for
 * tests), and a provider's own tables after the kit's when `provider` names its migrations.
 */
export function openDb(file: string, options: { migrationsDir?: string; provider?: ProviderMigrations } = {}): Db {
  if (options.provider) migrationsFolder(options.provider.dir, options.provider.prefix);
  const db = openSqlite(file, options.migrationsDir ?? MIGRATIONS_DIR);
  if (options.provider) migrateNamed(db, options.provider.dir, options.provider.prefix);
  return db;
}

/**
 * `dir`, when it is a folder; else a `StartupError` saying where the migrations of `prefix` (a
 * provider's, a platform's) were looked for: a path written for src/ that the build does not have
 * (npm run build copies every .sql file of src/provider/ to the same path under dist/), or a
 * folder misnamed. Without it, start-up ended on ENOENT and a stack trace.
 */
function migrationsFolder(dir: string, prefix: string): string {
  if (existsSync(dir)) return dir;
  throw new StartupError(
    `The migrations of "${prefix}" are not where its definition says: ${dir} does not exist. ` +
      'Give their folder beside the module that names them (fileURLToPath(new URL(\'./migrations/\', import.meta.url))); ' +
      'from a build, run npm run build again: it copies every .sql file of src/provider/ under dist/',
    EX_CONFIG,
  );
}

/**
 * Applies a provider's own migrations, after the kit's, each once: `dir` on SQLite, `postgresDir`
 * on PostgreSQL (a provider whose tables are only written for SQLite cannot run on PostgreSQL).
 */
export async function migrateProvider(sql: Sql, migrations: ProviderMigrations): Promise<void> {
  if (sql.sqlite) return migrateNamed(sql.sqlite, migrationsFolder(migrations.dir, migrations.prefix), migrations.prefix);
  if (!migrations.postgresDir) {
    throw new Error(
      `The provider's migrations ("${migrations.prefix}") are written for SQLite only: give them a postgresDir to run on PostgreSQL (DATABASE_URL)`,
    );
  }
  await migratePostgres(sql, [{ dir: migrationsFolder(migrations.postgresDir, migrations.prefix), prefix: migrations.prefix }]);
}
