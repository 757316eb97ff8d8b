import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../../src/db/checkpointer.js';
import { openDb } from '../../src/db/open.js';
import { createLogger } from '../../src/http/logger.js';

const logger = createLogger('silent');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDb() {
  const dir = mkdtempSync(path.join(tmpdir(), 'checkpointer-'));
  dirs.push(dir);
  const file = path.join(dir, 'partner.db');
  const db = openDb(file);
  db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
  return { db, file };
}

async function until(condition: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('WAL checkpointer', () => {
  it('copies committed pages into the database file from its own thread, not in the commits', async () => {
    const { db, file } = tempDb();
    const checkpoints = startCheckpointer(db, { logger, intervalMs: 20 });
    // The server's connection only checkpoints as a backstop, far beyond what this test writes.
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);

    const insert = db.prepare('INSERT INTO blobs (data) VALUES (?)');
    for (let i = 0; i < 3000; i++) insert.run(Buffer.alloc(1000, i % 256)); // ~3 MB, one commit each
    // Only a checkpoint moves pages from the -wal file into the database file.
    await until(() => statSync(file).size >= 3_000_000);

    await checkpoints.stop();
    db.close();
  });

  it('stops its thread and connection, and gives the server back SQLite’s default checkpointing', async () => {
    const { db, file } = tempDb();
    const checkpoints = startCheckpointer(db, { logger, intervalMs: 20 });
    db.prepare('INSERT INTO blobs (data) VALUES (?)').run(Buffer.alloc(10));

    await checkpoints.stop();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    // SQLite removes the -wal file when the last connection closes: the worker's is gone too.
    db.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(openDb(file).prepare('SELECT count(*) AS n FROM blobs').get()).toEqual({ n: 1 });
  });

  it('does nothing for an in-memory database', async () => {
    const db = openDb(':memory:');
    const checkpoints = startCheckpointer(db, { logger });
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await checkpoints.stop();
    db.close();
  });
});
