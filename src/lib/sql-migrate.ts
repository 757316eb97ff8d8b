import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Sql } from './sql.js';

/** Any number that no other advisory lock of the kit's uses: every instance takes this one to migrate. */
const MIGRATION_LOCK = 7_305_011;
/** PostgreSQL's SQLSTATE for a table that does not exist. */
const UNDEFINED_TABLE = '42P01';

/**
 * Applies the `NNN_name.sql` files of each folder that `schema_migrations` does not list yet (as
 * `prefix/NNN_name.sql`), in order, all in one transaction: PostgreSQL's DDL is transactional, so
 * a failed migration leaves the schema as it was. The transaction first takes an advisory lock, so
 * instances starting together migrate one after the other: the first applies, the others wait,
 * then find nothing left to do. A database already up to date (every start but the first) is
 * found so with one read, without the transaction. Returns what this call applied.
 */
export async function migratePostgres(sql: Sql, sequences: readonly { dir: string; prefix: string }[]): Promise<string[]> {
  const migrations = sequences.flatMap(({ dir, prefix }) =>
    readdirSync(dir)
      .filter((f) => /^\d+_.+\.sql$/.test(f))
      .sort()
      .map((file) => ({ name: `${prefix}/${file}`, file: path.join(dir, file) })),
  );
  // Up to date, as every start after the first finds it: one read, no transaction, no lock.
  const names = migrations.map((m) => m.name);
  const listed = await sql.all<{ name: string }>('SELECT name FROM schema_migrations WHERE name = ANY ($1)', [names]).catch((err: unknown) => {
    if ((err as { code?: string }).code === UNDEFINED_TABLE) return []; // a new database
    throw err;
  });
  if (listed.length === names.length) return [];
  return sql.transaction(async (tx) => {
    await tx.get('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
    const applied = new Set((await tx.all<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name));
    const done: string[] = [];
    for (const { name, file } of migrations) {
      if (applied.has(name)) continue;
      await tx.exec(readFileSync(file, 'utf8'));
      await tx.run('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [name, new Date().toISOString()]);
      done.push(name);
    }
    return done;
  });
}
