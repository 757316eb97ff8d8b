import path from 'node:path';
import { inject } from 'vitest';
import type { Db } from '../../src/lib/db.js';
import type { Sql } from '../../src/lib/sql.js';
import { createDatabaseOn } from './postgres.js';

/**
 * Which database the partner's tests run on: SQLite by default, PostgreSQL in the `postgres`
 * project of vitest.config.ts (TEST_DATABASE=postgres), where test/postgres-setup.ts has started a
 * throwaway server. The same tests run on both.
 */
export const ON_POSTGRES = process.env.TEST_DATABASE === 'postgres';

let created = 0;

/**
 * The settings of a fresh partner database for one test: a SQLite file in `dir`, or a new database
 * on the run's PostgreSQL server (DATABASE_URL), already migrated (test/postgres-setup.ts).
 */
export async function freshDatabase(dir: string): Promise<{ DATABASE_PATH: string; DATABASE_URL?: string }> {
  const file = path.join(dir, 'partner.db');
  if (!ON_POSTGRES) return { DATABASE_PATH: file };
  return { DATABASE_PATH: file, DATABASE_URL: await createDatabaseOn(inject('postgresUrl'), `kit_${process.pid}_${++created}`, inject('postgresTemplate')) };
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
