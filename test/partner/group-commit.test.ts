import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { groupCommit } from '../../src/lib/perf/group-commit.js';
import { sqliteSql } from '../../src/lib/sql.js';
import { openDb, type Db } from '../../src/partner/db/open.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A database file with one table, and a grouped write into it that refuses the body 'boom'.
 * `busyTimeoutMs`, when given, replaces the connection's busy timeout before the writes read it.
 */
function setup(busyTimeoutMs?: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'group-commit-'));
  dirs.push(dir);
  const file = path.join(dir, 'test.db');
  const db = openDb(file);
  if (busyTimeoutMs !== undefined) db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  db.exec('CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
  const insert = 'INSERT INTO notes (id, body) VALUES ($1, $2)';
  const write = groupCommit(sqliteSql(db), async (tx, note: { id: string; body: string }) => {
    if (note.body === 'boom') {
      await tx.run(insert, [note.id, note.body]); // written, then rolled back with its savepoint
      throw new Error(`refused ${note.id}`);
    }
    return (await tx.run(insert, [note.id, note.body])).changes;
  });
  // What another connection (another process) sees: only committed rows.
  const other = new Database(file, { readonly: true });
  const committed = () => other.prepare<[], { id: string }>('SELECT id FROM notes ORDER BY id').all().map((r) => r.id);
  return { db, write, committed, close: () => (other.close(), db.close()) };
}

/**
 * The WAL frames `fn`'s writes appended: every commit appends each page it changed once, so a
 * group of writes to the same pages in one commit costs what a single write does.
 */
async function framesWritten(db: Db, fn: () => Promise<unknown>): Promise<number> {
  db.pragma('wal_checkpoint(TRUNCATE)');
  await fn();
  return (db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
}

describe('groupCommit', () => {
  it('writes asked for in the same turn are committed together, and every caller learns its own result', async () => {
    const { db, write, committed, close } = setup();
    const results = await Promise.all([write({ id: 'a', body: '1' }), write({ id: 'b', body: '2' }), write({ id: 'c', body: '3' })]);
    expect(results).toEqual([1, 1, 1]);
    expect(committed()).toEqual(['a', 'b', 'c']);
    expect(db.inTransaction).toBe(false);
    close();
  });

  it('one commit for a turn, one more for the next turn', async () => {
    const { db, write, close } = setup();
    const one = await framesWritten(db, () => write({ id: 'a', body: '1' }));
    const sameTurn = await framesWritten(db, () => Promise.all([write({ id: 'b', body: '2' }), write({ id: 'c', body: '3' })]));
    const twoTurns = await framesWritten(db, async () => {
      await write({ id: 'd', body: '4' });
      await write({ id: 'e', body: '5' });
    });
    expect(one).toBeGreaterThan(0);
    expect({ sameTurn, twoTurns }).toEqual({ sameTurn: one, twoTurns: 2 * one });
    close();
  });

  it('a write that throws is rolled back alone: its caller gets the error, the others are stored', async () => {
    const { write, committed, close } = setup();
    const outcomes = await Promise.allSettled([write({ id: 'a', body: '1' }), write({ id: 'b', body: 'boom' }), write({ id: 'c', body: '3' })]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('refused b'));
    expect(committed()).toEqual(['a', 'c']);
    close();
  });

  it('writes in one group see each other in the order they were asked for', async () => {
    const { write, committed, close } = setup();
    const outcomes = await Promise.allSettled([write({ id: 'a', body: '1' }), write({ id: 'a', body: '2' })]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 1 });
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(committed()).toEqual(['a']);
    close();
  });

  it('when the commit cannot happen, every caller of the group gets the error and nothing is stored', async () => {
    // Another connection holds the write lock past the busy timeout (none: the first refusal is final).
    const { db, write, committed, close } = setup(0);
    const blocker = new Database(db.name, { timeout: 0 });
    blocker.exec('BEGIN IMMEDIATE');
    const outcomes = await Promise.allSettled([write({ id: 'a', body: '1' }), write({ id: 'b', body: '2' })]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    blocker.exec('ROLLBACK');
    blocker.close();
    expect(committed()).toEqual([]);
    // The next turn's group works again.
    await write({ id: 'c', body: '3' });
    expect(committed()).toEqual(['c']);
    close();
  });
});
