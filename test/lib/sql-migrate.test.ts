import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/lib/sql-migrate.js';
import { countingStatements, postgresPool, postgresSql } from '../../src/lib/sql.js';
import { openDb } from '../../src/partner/db/open.js';
import { DEMO_MIGRATIONS } from '../../src/partner/provider/demo/index.js';
import { startPostgres, type RunningPostgres } from '../support/postgres.js';

const KIT = { dir: fileURLToPath(new URL('../../src/partner/db/migrations-postgres/', import.meta.url)), prefix: 'kit' };
const DEMO = { dir: fileURLToPath(new URL('../../src/partner/provider/demo/migrations-postgres/', import.meta.url)), prefix: 'demo' };

let postgres: RunningPostgres;
const pools: pg.Pool[] = [];
beforeAll(async () => {
  postgres = await startPostgres();
});
/** The SQLite files and migration folders the tests make, deleted with it. */
const scratch = mkdtempSync(path.join(tmpdir(), 'sql-tests-'));
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  postgres?.stop();
  rmSync(scratch, { recursive: true, force: true });
});
const pool = (url: string) => {
  const p = postgresPool(url, { max: 2 });
  pools.push(p);
  return p;
};

describe('migrations on PostgreSQL', () => {
  it('four instances starting together on a new database: each starts, and each migration is applied once', async () => {
    const url = await postgres.createDatabase('together');
    const applied = await Promise.all(Array.from({ length: 4 }, () => migratePostgres(postgresSql(pool(url)), [KIT, DEMO])));
    // Every migration of each sequence, as its folder holds them.
    const every = [KIT, DEMO].flatMap(({ dir, prefix }) => readdirSync(dir).filter((f) => /^\d+_.+\.sql$/.test(f)).map((f) => `${prefix}/${f}`)).sort();
    expect(every).toEqual(expect.arrayContaining(['demo/001_demo_tables.sql', 'kit/001_initial.sql', 'kit/006_connections.sql']));
    expect(applied.flat().sort()).toEqual(every);
    expect(applied.filter((a) => a.length > 0)).toHaveLength(1);
    const rows = await postgresSql(pool(url)).all<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    expect(rows.map((r) => r.name)).toEqual(every);
    expect(await migratePostgres(postgresSql(pool(url)), [KIT, DEMO])).toEqual([]);
  });

  it('a database already up to date is found so with one read (no transaction, no lock); one a migration is missing from is brought up to date', async () => {
    const url = await postgres.createDatabase('up_to_date');
    const sql = postgresSql(pool(url));
    await migratePostgres(sql, [KIT]);
    const counter = { statements: 0 };
    expect(await migratePostgres(countingStatements(sql, counter), [KIT])).toEqual([]);
    expect(counter.statements).toBe(1);
    // The demo's, new to it: the whole transaction, which applies it.
    expect(await migratePostgres(countingStatements(sql, counter), [KIT, DEMO])).toEqual(['demo/001_demo_tables.sql']);
    expect(counter.statements).toBeGreaterThan(2);
  });

  it('gives PostgreSQL the same tables and columns as SQLite, the read cache\'s counter aside', async () => {
    const sql = postgresSql(pool(await postgres.createDatabase('parity')));
    await migratePostgres(sql, [KIT, DEMO]);
    const onPostgres = await sql.all<{ table_name: string; column_name: string }>(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'",
    );
    const sqlite = openDb(path.join(mkdtempSync(path.join(scratch, 'parity-')), 'partner.db'), { provider: DEMO_MIGRATIONS });
    const tables = sqlite
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('sqlite_sequence', 'read_cache_generation')")
      .all()
      .map((t) => t.name);
    const onSqlite = tables.flatMap((table) => (sqlite.pragma(`table_info(${table})`) as { name: string }[]).map((c) => `${table}.${c.name}`));
    sqlite.close();
    expect(onPostgres.map((c) => `${c.table_name}.${c.column_name}`).sort()).toEqual(onSqlite.sort());
  });

  it('a migration that fails leaves the schema as it was, and nothing recorded', async () => {
    const url = await postgres.createDatabase('failing');
    const broken = mkdtempSync(path.join(scratch, 'broken-'));
    writeFileSync(path.join(broken, '001_half.sql'), 'CREATE TABLE half (id INTEGER); CREATE TABLE half (id INTEGER);');
    const sql = postgresSql(pool(url));
    await expect(migratePostgres(sql, [KIT, { dir: broken, prefix: 'broken' }])).rejects.toThrow(/already exists/);
    expect(await sql.get("SELECT to_regclass('public.accounts') AS accounts, to_regclass('public.schema_migrations') AS migrations")).toEqual({
      accounts: null,
      migrations: null,
    });
  });
});
