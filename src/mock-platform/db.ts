import { fileURLToPath } from 'node:url';
import { openSqlite, type Db } from '../lib/db.js';
import { migratePlugins } from './platforms/assemble.js';
import { mockPlatforms } from './platforms/index.js';
import type { PlatformPlugin } from './platforms/plugin.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** The bytes of an in-memory database with every migration applied and nothing else, by plugin list. */
const migrated = new Map<string, Buffer>();

/**
 * The mock platform's own SQLite database: in memory by default (a fresh platform per start), a
 * file when configured. The mock's migrations are numbered by area so parallel work never collides:
 * 001–099 core (companies, users, partners, reports, marketplace), 100–199 careers site, 200–299
 * webhooks. Then each platform plugin's own (platforms/<name>/migrations/), tracked by name in
 * `schema_migrations` as `<name>/NNN_name.sql`: `plugins`, the registry's by default.
 */
export function openMockDb(file = ':memory:', plugins: readonly PlatformPlugin[] = mockPlatforms()): Db {
  if (file !== ':memory:') {
    const db = openSqlite(file, MIGRATIONS_DIR);
    migratePlugins(db, plugins);
    return db;
  }
  // In memory, a copy of one migrated once per process: applying the migrations cost every new
  // platform (each test's) a few milliseconds of CPU.
  const key = plugins.map((p) => `${p.name}:${p.migrations ?? ''}`).join('\n');
  let bytes = migrated.get(key);
  if (!bytes) {
    const db = openSqlite(':memory:', MIGRATIONS_DIR);
    migratePlugins(db, plugins);
    bytes = db.serialize();
    migrated.set(key, bytes);
    db.close();
  }
  return openSqlite(bytes, MIGRATIONS_DIR);
}
