import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { inject } from 'vitest';
import type { Db } from '../../src/lib/db.js';
import { postgresPool, postgresSql, type Sql } from '../../src/lib/sql.js';
import { openDb, openPartnerDatabase, type PartnerDatabase } from '../../src/partner/db/open.js';
import { DEMO_MIGRATIONS } from '../../src/partner/provider/demo/index.js';
import { createDatabaseOn } from './postgres.js';

/**
 * Which database the partner's tests run on: SQLite by default, PostgreSQL in the `postgres`
 * project of vitest.config.ts (TEST_DATABASE=postgres), where test/postgres-setup.ts has started a
 * throwaway server. The same tests run on both.
 */
export const ON_POSTGRES = process.env.TEST_DATABASE === 'postgres';

let created = 0;

/** What a fresh database holds: the kit's tables, or the demo provider's too (test/postgres-setup.ts). */
export type DatabaseTemplate = 'kit' | 'demo';

/**
 * The settings of a fresh partner database for one test, already migrated, with the demo
 * provider's tables too for a test whose partner builds the demo (`demo`): a SQLite file in `dir`,
 * or a database on the run's PostgreSQL server (DATABASE_URL; test/postgres-setup.ts). A harness
 * ends with `discardDatabase`.
 */
export async function freshDatabase(dir: string, template: DatabaseTemplate = 'kit'): Promise<{ DATABASE_PATH: string; DATABASE_URL?: string }> {
  const file = path.join(dir, 'partner.db');
  if (!ON_POSTGRES) {
    writeFileSync(file, sqliteTemplate(template), { mode: 0o600 });
    return { DATABASE_PATH: file };
  }
  return { DATABASE_PATH: file, DATABASE_URL: spare[template].pop() ?? (await createdDatabase(template)) };
}

/**
 * The bytes of a SQLite database with the kit's migrations applied (and the demo's, for `demo`),
 * made once per worker: a test's database is a copy of them, where applying the migrations cost
 * every test's a few milliseconds of CPU. The migrations themselves run in their own tests, and in
 * every test that starts the partner as a process on a path of its own.
 */
const sqliteTemplates: Partial<Record<DatabaseTemplate, Buffer>> = {};

const sqliteTemplate = (template: DatabaseTemplate): Buffer => (sqliteTemplates[template] ??= migratedSqlite(template));

function migratedSqlite(template: DatabaseTemplate): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'partner-template-'));
  try {
    const file = path.join(dir, 'partner.db');
    // Closed before it is read: its last connection's close moves the WAL's pages into the file.
    openDb(file, template === 'demo' ? { provider: DEMO_MIGRATIONS } : {}).close();
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * PostgreSQL databases this worker's tests gave back, emptied to a template's state. A copy of a
 * template costs the server some 130 ms of CPU here, and the demo's migrations on a copy of the
 * kit's some 80 ms more; emptying a database given back costs about 10.
 */
const spare: Record<DatabaseTemplate, string[]> = { kit: [], demo: [] };

/** How a copy of each template is recognised, and the statement that empties one (see `discardDatabase`). */
const templates: Partial<Record<DatabaseTemplate, Promise<{ catalog: string; empty: string }>>> = {};

async function createdDatabase(template: DatabaseTemplate): Promise<string> {
  const url = await createDatabaseOn(inject('postgresUrl'), `kit_${process.pid}_${++created}`, inject('postgresTemplates')[template]);
  await (templates[template] ??= ofTemplate(url));
  return url;
}

/**
 * `openPartnerDatabase` for a test's harness, on the connections the test before it kept open to
 * the same PostgreSQL database, if any (`discardDatabase`): a new one costs some 25 ms here, and the
 * server's first queries on it more, where its caches are cold.
 */
export async function openTestDatabase(
  settings: Parameters<typeof openPartnerDatabase>[0],
  options: Parameters<typeof openPartnerDatabase>[1] = {},
): Promise<PartnerDatabase> {
  const url = settings.databaseUrl;
  if (!ON_POSTGRES || !url || options.onConnectionError || options.pool) return openPartnerDatabase(settings, options);
  const pool = (await checkedKept(url)) ?? postgresPool(url);
  const database = await openPartnerDatabase(settings, { ...options, pool });
  poolOf.set(database, pool);
  return database;
}

/**
 * The pool kept with the spare database at `url`, taken, once a query on it has answered; ended
 * if none did. The server may have ended its connections meanwhile (a restart, a test's
 * pg_terminate_backend), and the pool drops one only once it has read that from the socket, which
 * on a busy machine may come after the next test's first query: that query would be refused.
 */
async function checkedKept(url: string): Promise<pg.Pool | undefined> {
  const pool = kept.get(url);
  kept.delete(url);
  if (!pool) return undefined;
  try {
    await pool.query('SELECT 1');
    return pool;
  } catch {
    await pool.end().catch(() => {});
    return undefined;
  }
}

/** The pools of databases given back with their connections open, by URL: ended as each test file ends (`endKeptConnections`). */
const kept = new Map<string, pg.Pool>();
/** The pool under each database `openTestDatabase` opened. */
const poolOf = new WeakMap<PartnerDatabase, pg.Pool>();

/**
 * Ends the connections kept with spare databases; the databases stay spare. Run after each
 * PostgreSQL test file (test/support/postgres-file.ts), so that no file leaves a socket open.
 */
export async function endKeptConnections(): Promise<void> {
  const pools = [...kept.values()];
  kept.clear();
  await Promise.all(pools.map((pool) => pool.end()));
}

/**
 * Closes a test's last connection to its database (`database`, opened on `settings`) and discards
 * the database: deletes `dir`, the SQLite file's folder, and gives a PostgreSQL one back for the
 * next test of this worker asking for the template it matches, emptied, with its connections
 * still open when `openTestDatabase` opened it. One whose catalog differs from both templates' (a
 * test's table, column, trigger, function or grant: any row of the catalog written since the copy)
 * is not given back.
 */
export async function discardDatabase(database: PartnerDatabase, settings: { DATABASE_URL?: string }, dir?: string): Promise<void> {
  const url = settings.DATABASE_URL;
  const pool = poolOf.get(database);
  poolOf.delete(database);
  if (ON_POSTGRES && url !== undefined && (await givenBack(database.sql, url)) && pool) kept.set(url, pool);
  else await database.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}

async function givenBack(sql: Sql, url: string): Promise<boolean> {
  try {
    const now = await sql.get<{ catalog: string }>(CATALOG);
    for (const [name, template] of Object.entries(templates) as [DatabaseTemplate, Promise<{ catalog: string; empty: string }>][]) {
      const { catalog, empty } = await template;
      if (now?.catalog !== catalog) continue;
      await sql.exec(empty);
      spare[name].push(url);
      return true;
    }
  } catch {
    // Not given back: a test whose connections the server ended (a restart) leaves its database as it is.
  }
  return false;
}

/**
 * The catalogs a test could change, each by its number of rows and the newest transaction that
 * wrote one (a row a statement of schema adds, alters or drops is a new version), with the rows
 * of the migrations' bookkeeping (the only table the template has rows in). The database's own
 * row is read by what ALTER DATABASE can change (owner, limits, rights), not by its version: each
 * copy's row is written by the CREATE DATABASE that made it, so no copy's version is another's.
 */
const CATALOG = `SELECT concat_ws(' ', ${[
  'pg_namespace', 'pg_class', 'pg_attribute', 'pg_attrdef', 'pg_constraint', 'pg_index', 'pg_trigger', 'pg_proc',
  'pg_rewrite', 'pg_policy', 'pg_type', 'pg_sequence', 'pg_extension', 'pg_event_trigger',
]
  .map((table) => `(SELECT count(*) || '/' || coalesce(max(xmin::text::bigint), 0) FROM ${table})`)
  .join(', ')},
  (SELECT md5((to_jsonb(d) - 'oid' - 'datname' - 'datfrozenxid' - 'datminmxid')::text) FROM pg_database d WHERE datname = current_database()),
  (SELECT count(*) FROM pg_db_role_setting WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())),
  (SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()),
  (SELECT md5(string_agg(name, ',' ORDER BY name)) FROM schema_migrations)) AS catalog`;

/** Read on a copy of a template nobody has used yet (the template itself may not be connected to while others copy it). */
async function ofTemplate(url: string): Promise<{ catalog: string; empty: string }> {
  const pool = postgresPool(url, { max: 1 });
  const sql = postgresSql(pool);
  try {
    const { catalog } = (await sql.get<{ catalog: string }>(CATALOG))!;
    // Every table but the bookkeeping emptied, foreign keys unchecked meanwhile (they all are), and
    // every sequence restarted.
    const statements = await sql.all<{ statement: string }>(`
      SELECT format('DELETE FROM %s;', oid::regclass) AS statement FROM pg_class
        WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace AND relname <> 'schema_migrations'
      UNION ALL SELECT format('SELECT setval(%L, %s, false);', format('%I.%I', schemaname, sequencename), start_value) FROM pg_sequences`);
    const empty = ['BEGIN; SET LOCAL session_replication_role = replica;', ...statements.map((row) => row.statement), 'COMMIT;'].join('\n');
    return { catalog, empty };
  } finally {
    await pool.end();
  }
}

/** `?` placeholders as `$1, $2…`: the tests' own queries, written once for both databases. */
export function dollars(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** One row of a test's own query (with `?` placeholders), on whichever database. */
export async function rowOf(sql: Sql, text: string, ...params: unknown[]): Promise<Record<string, unknown> | undefined> {
  return sql.get(dollars(text), params);
}

export async function rowsOf(sql: Sql, text: string, ...params: unknown[]): Promise<Record<string, unknown>[]> {
  return sql.all(dollars(text), params);
}

/** The SQLite connection under `sql`, for the tests that read SQLite itself (they run on SQLite only). */
export function sqliteOf(sql: Sql): Db {
  if (!sql.sqlite) throw new Error('This test reads SQLite directly: it belongs to the SQLite project only (vitest.config.ts)');
  return sql.sqlite;
}
