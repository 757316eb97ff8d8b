import { fileURLToPath } from 'node:url';
import { openSqlite, type Db } from '../lib/db.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** The bytes of an in-memory database with every migration applied and nothing else. */
let migrated: Buffer | undefined;

/**
 * The mock platform's own SQLite database: in memory by default (a fresh platform per start), a
 * file when configured. Migrations are numbered by area so parallel work never collides:
 * 001–099 core (companies, users, partners, reports, marketplace), 100–199 careers site,
 * 200–299 webhooks, 300–399 the Greenhouse side (greenhouse/).
 */
export function openMockDb(file = ':memory:'): Db {
  if (file !== ':memory:') return openSqlite(file, MIGRATIONS_DIR);
  // In memory, a copy of one migrated once per process: applying the migrations cost every new
  // platform (each test's) a few milliseconds of CPU.
  if (!migrated) {
    const db = openSqlite(':memory:', MIGRATIONS_DIR);
    migrated = db.serialize();
    db.close();
  }
  return openSqlite(migrated, MIGRATIONS_DIR);
}
