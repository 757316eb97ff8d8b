import type { Clock } from '../../../lib/clock.js';
import { isoAt } from '../../../lib/clock.js';
import type { PartnerKind } from '../../../contract/decisions.js';
import type { Db } from '../../../lib/db.js';
import { questionsFor } from './questions.js';

/** Adds tests to an account's demo catalog, each with its questions; used by the demo seed and the accounts CLI. */
export function addDemoTests(db: Db, clock: Clock, accountId: number, names: readonly string[]): { id: number; name: string }[] {
  const insert = db.prepare<[number, string, string], { id: number }>(
    'INSERT INTO tests (account_id, name, created_at) VALUES (?, ?, ?) RETURNING id',
  );
  const questions = demoQuestions(db);
  return db.transaction(() =>
    names.map((name) => {
      const { id } = insert.get(accountId, name, isoAt(clock.now()))!;
      questions.ensure(id, name);
      return { id, name };
    }),
  )();
}

export interface StoredQuestion {
  id: number;
  prompt: string;
  choices: string[];
  answer: number;
}

/** The `demo_questions` table. */
export function demoQuestions(db: Db) {
  const count = db.prepare<[number], number>('SELECT count(*) FROM demo_questions WHERE test_id = ?').pluck();
  const insert = db.prepare<[number, number, string, string, number]>(
    'INSERT OR IGNORE INTO demo_questions (test_id, position, prompt, choices, answer) VALUES (?, ?, ?, ?, ?)',
  );
  const ofTest = db.prepare<[number], { id: number; prompt: string; choices: string; answer: number }>(
    'SELECT id, prompt, choices, answer FROM demo_questions WHERE test_id = ? ORDER BY position',
  );
  const ensure = db.transaction((testId: number, testName: string) => {
    if (count.get(testId)! > 0) return;
    questionsFor(testName).forEach((q, i) => insert.run(testId, i + 1, q.prompt, JSON.stringify(q.choices), q.answer));
  });
  return {
    /** Gives a test the bank's questions unless it has some (tests created before questions existed). */
    ensure(testId: number, testName: string): void {
      ensure(testId, testName);
    },
    of(testId: number): StoredQuestion[] {
      return ofTest.all(testId).map((q) => ({ ...q, choices: JSON.parse(q.choices) as string[] }));
    },
  };
}

export const DEMO_TESTS = ['JavaScript fundamentals', 'SQL basics', 'Logical reasoning', 'Personality profile'] as const;

/** What the demo account offers, by kind: checks are not quizzes, so their catalog reads differently. */
export const DEMO_CATALOG: Record<PartnerKind, readonly string[]> = {
  assessment: DEMO_TESTS,
  background_check: ['Criminal record check', 'Employment history check'],
  reference_check: ['Two professional references', 'Three professional references'],
};
