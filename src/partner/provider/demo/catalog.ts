import type { Clock } from '../../../lib/clock.js';
import { isoAt } from '../../../lib/clock.js';
import type { PartnerKind } from '../../../contract/decisions.js';
import type { Sql } from '../../../lib/sql.js';
import { questionsFor } from './questions.js';

/**
 * Adds tests to an account's demo catalog, each with its questions; used by the demo seed and the
 * accounts CLI. `tx`: the transaction that creates the account, so both are stored together.
 */
export async function addDemoTests(tx: Sql, clock: Clock, accountId: number, names: readonly string[]): Promise<{ id: number; name: string }[]> {
  const questions = demoQuestions(tx);
  const added = [];
  for (const name of names) {
    const { id } = (await tx.get<{ id: number }>('INSERT INTO tests (account_id, name, created_at) VALUES ($1, $2, $3) RETURNING id', [
      accountId,
      name,
      isoAt(clock.now()),
    ]))!;
    await questions.ensure(id, name, tx);
    added.push({ id, name });
  }
  return added;
}

export interface StoredQuestion {
  id: number;
  prompt: string;
  choices: string[];
  answer: number;
}

/** The `demo_questions` table. */
export function demoQuestions(sql: Sql) {
  return {
    /**
     * Gives a test the bank's questions unless it has some (tests created before questions
     * existed). Two first visits at once, on any instances: the unique (test, position) keeps one set.
     */
    async ensure(testId: number, testName: string, tx?: Sql): Promise<void> {
      const inside = async (t: Sql) => {
        const has = await t.get<{ n: number }>('SELECT count(*) AS n FROM demo_questions WHERE test_id = $1', [testId]);
        if (has!.n > 0) return;
        for (const [i, q] of questionsFor(testName).entries()) {
          await t.run(
            'INSERT INTO demo_questions (test_id, position, prompt, choices, answer) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (test_id, position) DO NOTHING',
            [testId, i + 1, q.prompt, JSON.stringify(q.choices), q.answer],
          );
        }
      };
      await (tx ? inside(tx) : sql.transaction(inside));
    },
    async of(testId: number): Promise<StoredQuestion[]> {
      const rows = await sql.all<{ id: number; prompt: string; choices: string; answer: number }>(
        'SELECT id, prompt, choices, answer FROM demo_questions WHERE test_id = $1 ORDER BY position',
        [testId],
      );
      return rows.map((q) => ({ ...q, choices: JSON.parse(q.choices) as string[] }));
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
