import type { Clock } from '../../clock.js';
import { isoAt } from '../../clock.js';
import type { Db } from '../../db/open.js';

/** Adds tests to an account's demo catalog; used by the demo seed and the accounts CLI. */
export function addDemoTests(db: Db, clock: Clock, accountId: number, names: readonly string[]): { id: number; name: string }[] {
  const insert = db.prepare<[number, string, string], { id: number }>(
    'INSERT INTO tests (account_id, name, created_at) VALUES (?, ?, ?) RETURNING id',
  );
  return db.transaction(() => names.map((name) => ({ id: insert.get(accountId, name, isoAt(clock.now()))!.id, name })))();
}

export const DEMO_TESTS = ['JavaScript fundamentals', 'SQL basics', 'Logical reasoning', 'Personality profile'] as const;
