import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { migrateProvider, openDb } from '../../src/partner/db/open.js';
import { StartupError, EX_CONFIG } from '../../src/lib/cli.js';
import { sqliteSql } from '../../src/lib/sql.js';
import { DEMO_MIGRATIONS } from '../../src/partner/provider/demo/index.js';

const MIGRATIONS = new URL('../../src/partner/db/migrations/', import.meta.url);
const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'db-open-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('openDb', () => {
  it('creates the file and its folder, and opens it in WAL mode, crash-safe, with foreign keys, a lock wait, a 64 MB cache, checkpoints every 500 pages and every migration', () => {
    const db = openDb(path.join(tempDir(), 'nested', 'partner.db'));
    const pragma = (name: string) => db.pragma(name, { simple: true });
    expect({
      journal: pragma('journal_mode'),
      synchronous: pragma('synchronous'),
      foreignKeys: pragma('foreign_keys'),
      busyTimeoutMs: pragma('busy_timeout'),
      cacheKiB: pragma('cache_size'),
      checkpointAfterPages: pragma('wal_autocheckpoint'),
    }).toEqual({ journal: 'wal', synchronous: 1, foreignKeys: 1, busyTimeoutMs: 5000, cacheKiB: -65536, checkpointAfterPages: 500 });
    const latest = Math.max(...readdirSync(MIGRATIONS).map((f) => Number.parseInt(f, 10)));
    expect(pragma('user_version')).toBe(latest);
    db.close();
  });

  it('under the usual 022 umask, then the folder it creates is 0700 and the database, its WAL and shared-memory file 0600', () => {
    const previous = process.umask(0o022);
    try {
      const dir = path.join(tempDir(), 'data');
      const file = path.join(dir, 'partner.db');
      const db = openDb(file);
      db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('Ada Lovelace, ada@example.com')");
      const mode = (f: string) => statSync(f).mode & 0o777;
      expect(existsSync(`${file}-wal`)).toBe(true);
      expect({ folder: mode(dir), db: mode(file), wal: mode(`${file}-wal`), shm: mode(`${file}-shm`) }).toEqual({
        folder: 0o700,
        db: 0o600,
        wal: 0o600,
        shm: 0o600,
      });
      db.close();
    } finally {
      process.umask(previous);
    }
  });

  it('when a database from an older version is readable by everyone, then opening it makes it and its WAL 0600; an existing folder is left alone', () => {
    const previous = process.umask(0o022);
    try {
      const dir = tempDir();
      chmodSync(dir, 0o755);
      const file = path.join(dir, 'partner.db');
      const old = new Database(file);
      old.pragma('journal_mode = WAL');
      old.exec('CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES (1)');
      // A second connection keeps the WAL and shared-memory files in place when the first closes.
      const reader = new Database(file);
      reader.prepare('SELECT count(*) FROM notes').get();
      old.close();
      const mode = (f: string) => statSync(f).mode & 0o777;
      expect(mode(file)).toBe(0o644);
      expect(mode(`${file}-wal`)).toBe(0o644);

      const db = openDb(file);
      db.exec('INSERT INTO notes VALUES (2)');
      expect({ folder: mode(dir), db: mode(file), wal: mode(`${file}-wal`), shm: mode(`${file}-shm`) }).toEqual({
        folder: 0o755,
        db: 0o600,
        wal: 0o600,
        shm: 0o600,
      });
      db.close();
      reader.close();
    } finally {
      process.umask(previous);
    }
  });

  it('when the migrations of a provider or a platform are not where it says (a path of src/ the build lacks), then start-up stops on one line naming the folder, exit 78, and no table of it is made', async () => {
    const dir = tempDir();
    const missing = path.join(dir, 'dist', 'src', 'provider', 'acme-ats', 'sql', 'sqlite');
    const refusal = { name: 'StartupError', exitCode: EX_CONFIG, message: expect.stringContaining(`The migrations of "acme-ats" are not where its definition says: ${missing} does not exist.`) };
    expect(() => openDb(path.join(dir, 'a.db'), { provider: { dir: missing, prefix: 'acme-ats' } })).toThrow(StartupError);
    const db = openDb(path.join(dir, 'b.db'));
    try {
      await expect(migrateProvider(sqliteSql(db), { dir: missing, postgresDir: missing, prefix: 'acme-ats' })).rejects.toMatchObject(refusal);
      // Refused before anything of it was applied or recorded.
      expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'schema_migrations'").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  /** A database at version 1 (a parent and a child table), and its migrations' folder, where each test writes its 002. */
  function parentAndChild() {
    const dir = tempDir();
    const migrations = path.join(dir, 'migrations');
    mkdirSync(migrations);
    writeFileSync(path.join(migrations, '001_parent.sql'), 'CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (parent_id INTEGER REFERENCES parent(id));');
    const file = path.join(dir, 'test.db');
    openDb(file, { migrationsDir: migrations }).close();
    const migration = (sql: string) => writeFileSync(path.join(migrations, '002_next.sql'), sql);
    /** Its version, its tables and the children's parent ids, read without migrating it. */
    const state = () => {
      const db = new Database(file, { readonly: true });
      try {
        return {
          version: db.pragma('user_version', { simple: true }),
          tables: db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((t) => t.name),
          children: db.prepare<[], { parent_id: number }>('SELECT parent_id FROM child ORDER BY parent_id').all().map((c) => c.parent_id),
        };
      } finally {
        db.close();
      }
    };
    return { file, migrations, migration, state };
  }

  it('when a migration writes a row whose foreign key points nowhere, then it is refused and changes nothing', () => {
    const { file, migrations, migration, state } = parentAndChild();
    migration('CREATE TABLE other (id INTEGER PRIMARY KEY); INSERT INTO parent (id) VALUES (1); INSERT INTO child (parent_id) VALUES (42);');
    expect(() => openDb(file, { migrationsDir: migrations })).toThrow(/002_next\.sql would leave a row whose foreign key points nowhere/);
    expect(state()).toEqual({ version: 1, tables: ['child', 'parent'], children: [] });
  });

  it('when a migration that rebuilds a table leaves a row whose foreign key points nowhere, then it is refused and changes nothing', () => {
    const { file, migrations, migration, state } = parentAndChild();
    const db = new Database(file);
    db.exec('INSERT INTO parent (id) VALUES (1); INSERT INTO child (parent_id) VALUES (1);');
    db.close();
    // SQLite's way to change a table's shape: a new table, the rows copied, the old one dropped.
    migration(
      'CREATE TABLE child_new (parent_id INTEGER NOT NULL REFERENCES parent(id)); INSERT INTO child_new SELECT parent_id FROM child; ' +
        'INSERT INTO child_new (parent_id) VALUES (42); DROP TABLE child; ALTER TABLE child_new RENAME TO child;',
    );
    expect(() => openDb(file, { migrationsDir: migrations })).toThrow(/002_next\.sql would leave 1 rows whose foreign key points nowhere/);
    expect(state()).toEqual({ version: 1, tables: ['child', 'parent'], children: [1] });
  });

  it('when a table that others reference is rebuilt, then the rows referencing it are kept', () => {
    const { file, migrations, migration, state } = parentAndChild();
    const db = new Database(file);
    db.exec('INSERT INTO parent (id) VALUES (1), (2); INSERT INTO child (parent_id) VALUES (1), (2);');
    db.close();
    migration('CREATE TABLE parent_new (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO parent_new (id) SELECT id FROM parent; DROP TABLE parent; ALTER TABLE parent_new RENAME TO parent;');
    openDb(file, { migrationsDir: migrations }).close();
    expect(state()).toEqual({ version: 2, tables: ['child', 'parent'], children: [1, 2] });
  });

  it('when a migration writes nothing that points nowhere, then it applies without reading the rest of the database (a row left dangling before it does not stop it)', () => {
    const { file, migrations, migration, state } = parentAndChild();
    // Written with foreign keys off (a tool that did not turn them on): the migration did not write it.
    const db = new Database(file);
    db.pragma('foreign_keys = OFF');
    db.exec('INSERT INTO child (parent_id) VALUES (7);');
    db.close();
    migration('CREATE INDEX child_by_parent ON child (parent_id); INSERT INTO parent (id) VALUES (1); INSERT INTO child (parent_id) VALUES (1);');
    openDb(file, { migrationsDir: migrations }).close();
    expect(state()).toEqual({ version: 2, tables: ['child', 'parent'], children: [1, 7] });
  });

  it('when six processes open the same new database at the same moment (the server, the accounts CLI, a second instance), then each opens it, and each migration is applied once', async () => {
    const file = path.join(tempDir(), 'partner.db');
    // Each process loads the kit (compiled: test/support/compiled-kit.ts), says so, and opens the
    // database when told: once all six are ready, they are told at once.
    const compiled = (entry: string) => JSON.stringify(pathToFileURL(path.join(inject('compiledKit'), entry)).href);
    const script = `
      import { openDb } from ${compiled('src/partner/db/open.js')};
      import { DEMO_MIGRATIONS } from ${compiled('src/partner/provider/demo/index.js')};
      process.stdin.once('data', () => {
        openDb(${JSON.stringify(file)}, { provider: DEMO_MIGRATIONS }).close();
        process.exit(0);
      });
      process.stdout.write('ready\\n');
    `;
    const children = Array.from({ length: 6 }, () => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
      // Ready, or gone without being ready (its exit code and stderr tell why).
      const ready = Promise.race([once(child.stdout, 'data'), exited]);
      return { child, exited, ready };
    });
    await Promise.all(children.map((c) => c.ready));
    for (const { child } of children) child.stdin.end('go\n');
    const runs = await Promise.all(children.map((c) => c.exited));
    expect(runs.map((r) => (r.code === 0 ? 'opened' : r.stderr))).toEqual(Array(6).fill('opened'));

    const db = new Database(file, { readonly: true });
    const latest = Math.max(...readdirSync(MIGRATIONS).map((f) => Number.parseInt(f, 10)));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(latest);
    const applied = db.prepare<[], { name: string }>("SELECT name FROM schema_migrations WHERE name LIKE 'demo/%' ORDER BY name").all();
    expect(applied.length).toBeGreaterThan(0);
    expect(applied.map((r) => r.name)).toEqual(readdirSync(DEMO_MIGRATIONS.dir).filter((f) => /^\d+_.+\.sql$/.test(f)).sort().map((f) => `demo/${f}`));
    db.close();
  });
});
