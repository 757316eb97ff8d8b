import Database from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type Db = Database.Database;

/**
 * Opens (creating if needed) the SQLite database at `file` — `:memory:` works too, and so does a
 * database's bytes (`db.serialize()`), opened in memory as a copy — and brings its schema up to date
 * from `migrationsDir`: `NNN_name.sql` files applied in order, each in its own
 * transaction; `PRAGMA user_version` records the last one applied. Both servers open theirs here.
 *
 * The database holds candidates' personal data and customers' token hashes, so only its owner may
 * read it: a folder it creates is 0700, and the database, its WAL and its shared-memory file are
 * 0600 whatever the umask (SQLite would create them 0644).
 */
export function openSqlite(file: string | Buffer, migrationsDir: string): Db {
  if (typeof file === 'string' && file !== ':memory:') ownerOnly(path.resolve(file));
  const db = new Database(file);
  // First: another process opening the same new database at the same moment holds its lock while it
  // migrates; this one waits for it instead of failing.
  db.pragma('busy_timeout = 5000');
  walMode(db);
  // NORMAL is durable across process crashes in WAL mode; only an OS crash can lose the last commits.
  db.pragma('synchronous = NORMAL');
  // Performance (docs/performance.md): a 64 MB page cache instead of SQLite's 2 MB keeps the random
  // report-id indexes' pages in memory; checkpoints every 500 WAL pages instead of 1,000 halve each
  // checkpoint's stall of the event loop.
  db.pragma('cache_size = -65536');
  db.pragma('wal_autocheckpoint = 500');
  db.pragma('foreign_keys = ON');
  migrate(db, migrationsDir);
  return db;
}

/**
 * Switches the database's journal to WAL (a setting the file keeps). The switch needs the database
 * to itself, and SQLite answers SQLITE_BUSY at once instead of waiting when another process is
 * opening it at the same moment: tried again every 10 ms, for as long as busy_timeout would wait.
 */
function walMode(db: Db): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; ; waited += 10) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || waited >= 5000) throw err;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}

/**
 * Creates the folder (0700) and an empty database file (0600; SQLite takes an empty file for a new
 * database) unless they exist, and makes an existing database and its WAL and shared-memory files
 * 0600: one created by an older version was readable by everyone. SQLite gives the WAL and
 * shared-memory files it creates the database file's mode, so they are 0600 from then on.
 */
function ownerOnly(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(f, 0o600);
    } catch (err) {
      // Not there yet (SQLite creates it 0600), or another user's file: its owner chose its mode.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'EPERM') throw err;
    }
  }
}

/** `NNN_name.sql` files of `dir`, in the order they apply. */
function migrationFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort();
}

export function migrate(db: Db, dir: string): void {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  const current = version();
  const pending = migrationFiles(dir).filter((f) => Number.parseInt(f, 10) > current);
  applyEach(db, dir, pending, {
    // Another process opening the same database at the same moment may have applied it meanwhile.
    skip: (file) => version() >= Number.parseInt(file, 10),
    done: (file) => db.pragma(`user_version = ${Number.parseInt(file, 10)}`),
  });
}

/**
 * Applies the `NNN_name.sql` files of `dir` that the `schema_migrations` table does not list yet
 * under `prefix` (as `prefix/NNN_name.sql`), in order, each in its own transaction with its row.
 * For a second sequence of migrations in a database whose `user_version` already counts another
 * (the partner's provider, whose tables are its own): SQLite has one `user_version` only.
 */
export function migrateNamed(db: Db, dir: string, prefix: string): void {
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(prefix)) throw new Error(`Migration prefix "${prefix}" must be a short lowercase name`);
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL) WITHOUT ROWID');
  const isApplied = db.prepare<[string], number>('SELECT count(*) FROM schema_migrations WHERE name = ?').pluck();
  const pending = migrationFiles(dir).filter((f) => isApplied.get(`${prefix}/${f}`) === 0);
  const record = db.prepare<[string, string]>('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)');
  applyEach(db, dir, pending, {
    // Another process (the accounts CLI beside the server) may have applied it meanwhile.
    skip: (file) => isApplied.get(`${prefix}/${file}`) !== 0,
    done: (file) => record.run(`${prefix}/${file}`, new Date().toISOString()),
  });
}

function applyEach(
  db: Db,
  dir: string,
  pending: readonly string[],
  on: { done: (file: string) => void; skip?: (file: string) => boolean },
): void {
  if (pending.length === 0) return;
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
  try {
    for (const file of pending) {
      const sql = readFileSync(path.join(dir, file), 'utf8');
      // A migration may rebuild a table that others reference (create the new one, copy, drop the
      // old, rename: SQLite's way to change a table's shape). With foreign keys on, dropping the old
      // table would cascade to the rows that reference it; so for a migration that drops a table
      // they are off, as SQLite's documentation prescribes, and the whole database is checked
      // before it commits: a rebuild reads its tables anyway. Any other migration runs with them on,
      // so SQLite checks each row it writes as it writes it: a check of the whole database after
      // each would read every table, a million invitations' worth, to apply an index.
      const rebuilds = /\bDROP\s+TABLE\b/i.test(sql);
      db.pragma(`foreign_keys = ${rebuilds ? 'OFF' : 'ON'}`);
      try {
        db.transaction(() => {
          if (on.skip?.(file)) return;
          db.exec(sql);
          const broken = rebuilds ? (db.pragma('foreign_key_check') as unknown[]) : [];
          if (broken.length > 0) throw new Error(`Migration ${file} would leave ${broken.length} rows whose foreign key points nowhere`);
          on.done(file);
        }).immediate();
      } catch (err) {
        // Refused by SQLite as it wrote the row (rolled back with the rest of the migration).
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new Error(`Migration ${file} would leave a row whose foreign key points nowhere`, { cause: err });
        throw err;
      }
    }
  } finally {
    db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
    // What the migrations read stays in the page cache (up to 64 MB) until the pages are needed
    // again, which most of a large database's never are: given back now.
    db.pragma('shrink_memory');
  }
}
