import { fileURLToPath } from 'node:url';
import { openSqlite, type Db } from '../lib/db.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/**
 * The mock platform's own SQLite database: in memory by default (a fresh platform per start), a
 * file when configured. Migrations are numbered by area so parallel work never collides:
 * 001–099 core (companies, users, partners, reports, marketplace), 100–199 careers site,
 * 200–299 webhooks, 300–399 the Greenhouse side (greenhouse/).
 */
export function openMockDb(file = ':memory:'): Db {
  return openSqlite(file, MIGRATIONS_DIR);
}
