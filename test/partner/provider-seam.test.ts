import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildProvider } from '../../src/partner/assemble.js';
import { partnerCore } from '../../src/partner/core.js';
import { systemClock } from '../../src/lib/clock.js';
import { ConfigError } from '../../src/partner/config.js';
import { openPartnerDatabase, type PartnerDatabase } from '../../src/partner/db/open.js';
import { createLogger } from '../../src/lib/http/logger.js';
import { demoProvider } from '../../src/partner/provider/demo/index.js';
import type { PartnerKind } from '../../src/contract/decisions.js';
import type { ProviderFactory } from '../../src/partner/provider/types.js';
import { freshDatabase, ON_POSTGRES, rowsOf, sqliteOf } from '../support/database.js';

describe('a provider brought in by the kit', () => {
  let dir: string;
  let database: PartnerDatabase;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'provider-seam-'));
    const settings = await freshDatabase(dir);
    database = await openPartnerDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL });
  });
  afterEach(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const kit = (kind: PartnerKind = 'assessment') => ({
    sql: database.sql,
    clock: systemClock,
    kind,
    logger: createLogger('silent'),
    publicUrl: 'http://partner.test',
    candidateUrl: (id: string) => `http://partner.test/take/${id}`,
    reports: partnerCore(database.sql, systemClock, { kind }).results,
  });
  /** The names a query's rows hold in their `name` column. */
  const names = async (text: string) => (await rowsOf(database.sql, text)).map((r) => r.name as string);
  const tables = () =>
    names(
      ON_POSTGRES
        ? 'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name'
        : "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
    );

  it('the kit alone has none of the demo\'s tables; building the demo applies its migrations once, tracked by name', async () => {
    expect((await tables()).filter((t) => t.startsWith('demo_'))).toEqual([]);
    await buildProvider(demoProvider(), kit());
    await buildProvider(demoProvider(), kit());
    expect(await tables()).toEqual(expect.arrayContaining(['demo_answers', 'demo_questions', 'schema_migrations']));
    expect(await names("SELECT name FROM schema_migrations WHERE name NOT LIKE 'kit/%'")).toEqual(['demo/001_demo_tables.sql']);
    // The kit's own sequence is still counted as before (SQLite: by user_version, its newest file;
    // PostgreSQL: as kit/ names), untouched by the provider's.
    if (ON_POSTGRES) {
      const kitFiles = readdirSync(new URL('../../src/partner/db/migrations-postgres/', import.meta.url)).filter((f) => f.endsWith('.sql'));
      expect(await names("SELECT name FROM schema_migrations WHERE name LIKE 'kit/%' ORDER BY name")).toEqual(kitFiles.sort().map((f) => `kit/${f}`));
    } else {
      const kitLatest = Math.max(...readdirSync(new URL('../../src/partner/db/migrations/', import.meta.url)).map((f) => Number.parseInt(f, 10)));
      expect(sqliteOf(database.sql).pragma('user_version', { simple: true })).toBe(kitLatest);
    }
  });

  // The kit's old first migration, which made the demo's tables, was SQLite's: no PostgreSQL database has them from it.
  it.skipIf(ON_POSTGRES)('a database whose demo tables came with the kit\'s old first migration keeps them and their rows', async () => {
    await database.sql.exec('CREATE TABLE demo_questions (id INTEGER PRIMARY KEY, test_id INTEGER, position INTEGER, prompt TEXT, choices TEXT, answer INTEGER)');
    await database.sql.exec("INSERT INTO demo_questions (test_id, position, prompt, choices, answer) VALUES (1, 1, 'kept?', '[]', 0)");
    await buildProvider(demoProvider(), kit());
    expect((await rowsOf(database.sql, 'SELECT prompt FROM demo_questions')).map((r) => r.prompt)).toEqual(['kept?']);
  });

  it('a provider\'s migrations apply in order, a new one on the next start only', async () => {
    const migrations = path.join(dir, 'migrations');
    mkdirSync(migrations);
    writeFileSync(path.join(migrations, '001_products.sql'), 'CREATE TABLE my_products (id TEXT PRIMARY KEY);');
    const factory: ProviderFactory = Object.assign(
      (k: ReturnType<typeof kit>) => ({ kind: k.kind, listTests: async () => [], startInvitation: async () => ({ candidateUrl: 'x' }) }),
      // Their SQL is the same on both databases: one folder serves both.
      { migrations: { dir: migrations, postgresDir: migrations, prefix: 'mine' } },
    );
    await buildProvider(factory, kit());
    writeFileSync(path.join(migrations, '002_more.sql'), "INSERT INTO my_products (id) VALUES ('a');");
    await buildProvider(factory, kit());
    await buildProvider(factory, kit());
    expect((await rowsOf(database.sql, 'SELECT id FROM my_products')).map((r) => r.id)).toEqual(['a']);
    expect(await names("SELECT name FROM schema_migrations WHERE name NOT LIKE 'kit/%' ORDER BY name")).toEqual(['mine/001_products.sql', 'mine/002_more.sql']);
  });

  it('a provider whose migrations are written for SQLite only runs there, and on PostgreSQL stops start-up saying what to add', async () => {
    const migrations = path.join(dir, 'migrations');
    mkdirSync(migrations);
    writeFileSync(path.join(migrations, '001_products.sql'), 'CREATE TABLE my_products (id TEXT PRIMARY KEY);');
    const sqliteOnly: ProviderFactory = Object.assign(
      (k: ReturnType<typeof kit>) => ({ kind: k.kind, listTests: async () => [], startInvitation: async () => ({ candidateUrl: 'x' }) }),
      { migrations: { dir: migrations, prefix: 'mine' } },
    );
    const built = buildProvider(sqliteOnly, kit());
    if (ON_POSTGRES) {
      await expect(built).rejects.toThrow(/"mine"\) are written for SQLite only: give them a postgresDir/);
      expect(await names("SELECT name FROM schema_migrations WHERE name LIKE 'mine/%'")).toEqual([]);
    } else {
      await built;
      expect(await names("SELECT name FROM schema_migrations WHERE name LIKE 'mine/%'")).toEqual(['mine/001_products.sql']);
    }
  });

  it('a provider of another kind than PARTNER_KIND stops start-up with a ConfigError naming it', async () => {
    const checks = { kind: 'background_check' as const, listTests: async () => [], startInvitation: async () => ({ candidateUrl: 'x' }) };
    await expect(buildProvider(checks, kit('assessment'))).rejects.toThrow(ConfigError);
    await expect(buildProvider(checks, kit('assessment'))).rejects.toThrow(/PARTNER_KIND: is assessment, but the provider is a background_check provider/);
    expect((await buildProvider(checks, kit('background_check'))).kind).toBe('background_check');
  });
});
