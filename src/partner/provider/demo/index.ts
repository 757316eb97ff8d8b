import { fileURLToPath } from 'node:url';
import type { Account } from '../../accounts/store.js';
import { isoAt } from '../../../lib/clock.js';
import type { PartnerKind } from '../../../contract/decisions.js';
import type { Sql } from '../../../lib/sql.js';
import type {
  CandidateTask,
  Decision,
  InvitationToStart,
  Provider,
  ProviderFactory,
  ProviderInvitation,
  ProviderKit,
  ProviderMigrations,
  ProviderResult,
  ProviderTest,
  ResultDetail,
  Submission,
} from '../types.js';
import { addDemoTests, DEMO_CATALOG, demoQuestions, type StoredQuestion } from './catalog.js';
import { demoSettings, type DemoSettings } from './settings.js';

/** The demo's own tables (demo_questions, demo_answers), applied after the kit's. */
export const DEMO_MIGRATIONS: ProviderMigrations = {
  dir: fileURLToPath(new URL('./migrations/', import.meta.url)),
  postgresDir: fileURLToPath(new URL('./migrations-postgres/', import.meta.url)),
  prefix: 'demo',
};

const UNAVAILABLE = 'This test is no longer offered. Please contact the recruiter.';

/** Check outcomes as the platform's badge shows them (at most 5 characters). */
const CHECK_SCORES: Record<Exclude<PartnerKind, 'assessment'>, Record<Decision, string>> = {
  background_check: { clear: 'Clear', adverse: 'Alert' },
  reference_check: { clear: 'Good', adverse: 'Poor' },
};

/**
 * The demo provider: tests live in the kit's own SQLite catalog (`tests`, `demo_questions`) and the
 * candidate takes them on the kit's own pages. Assessments are short multiple-choice quizzes scored
 * against the pass mark; the check kinds ask the candidate for consent and are decided by an
 * operator in the dashboard. It shows the shape of a provider; a vendor replaces it with one that
 * calls their product's API.
 *
 * Its settings (PASS_MARK) are read from the environment when the kit builds it, unless given
 * here; a bad value stops start-up like the kit's own settings do (README.md beside this file).
 */
export function demoProvider(settings?: Partial<DemoSettings>): ProviderFactory {
  return Object.assign((kit: ProviderKit) => createDemoProvider(kit, { ...demoSettings(process.env), ...settings }), {
    migrations: DEMO_MIGRATIONS,
  });
}

function createDemoProvider(kit: ProviderKit, settings: DemoSettings): Provider {
  const { sql, kind, clock } = kit;
  const { passMark } = settings;
  const questions = demoQuestions(sql);

  /** The test's questions; undefined when the test was removed from the account's catalog. */
  const questionsOf = async (invitation: ProviderInvitation): Promise<StoredQuestion[] | undefined> => {
    const test = /^\d{1,15}$/.test(invitation.testId)
      ? await sql.get<{ id: number; name: string }>('SELECT id, name FROM tests WHERE id = $1 AND account_id = $2', [Number(invitation.testId), invitation.accountId])
      : undefined;
    if (!test) return undefined;
    await questions.ensure(test.id, test.name);
    return questions.of(test.id);
  };

  const field = (q: StoredQuestion) => `q${q.id}`;

  return {
    kind,

    listTests(account: Account) {
      return sql.all<ProviderTest>('SELECT id, name FROM tests WHERE account_id = $1 ORDER BY id', [account.id]);
    },

    async findTest(account: Account, testId: string) {
      // Ids are listed as numbers and come back as strings, written as listed ("01" names no test).
      if (!/^[1-9]\d{0,14}$/.test(testId)) return undefined;
      return sql.get<ProviderTest>('SELECT id, name FROM tests WHERE id = $1 AND account_id = $2', [Number(testId), account.id]);
    },

    async startInvitation(invitation: InvitationToStart) {
      return { candidateUrl: kit.candidateUrl(invitation.reportId) };
    },

    async candidateTask(invitation: ProviderInvitation): Promise<CandidateTask> {
      if (kind !== 'assessment') {
        return {
          kind: 'consent',
          intro:
            kind === 'background_check'
              ? `The recruiter asked us to run a ${invitation.testName.toLowerCase()} on you. We need your consent first.`
              : `The recruiter asked us for ${invitation.testName.toLowerCase()}. We need your consent to contact your referees.`,
          statements:
            kind === 'background_check'
              ? ['I consent to this background check and confirm that the details the recruiter holds about me are correct.']
              : ['I consent to being contacted about my references and to the referees sharing their view of my work.'],
        };
      }
      const qs = await questionsOf(invitation);
      if (!qs) return { kind: 'unavailable', text: UNAVAILABLE };
      return {
        kind: 'quiz',
        intro: `Answer every question, then submit. You can take as long as you need; pass mark ${passMark}%.`,
        questions: qs.map((q) => ({
          field: field(q),
          prompt: q.prompt,
          choices: q.choices.map((label, i) => ({ value: String(i), label })),
        })),
      };
    },

    async submit(invitation: ProviderInvitation, form: Record<string, unknown>): Promise<Submission> {
      if (kind !== 'assessment') {
        return form.consent === 'yes'
          ? { outcome: 'pending' }
          : { outcome: 'invalid', errors: { consent: 'Tick the box to give your consent.' } };
      }
      const qs = await questionsOf(invitation);
      if (!qs) return { outcome: 'unavailable', text: UNAVAILABLE };
      const errors: Record<string, string> = {};
      const chosen: Record<string, number> = {};
      for (const q of qs) {
        const value = form[field(q)];
        const index = typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : -1;
        if (index < 0 || index >= q.choices.length) errors[field(q)] = 'Choose an answer.';
        else chosen[q.id] = index;
      }
      if (Object.keys(errors).length > 0) return { outcome: 'invalid', errors };

      const correct = qs.filter((q) => chosen[q.id] === q.answer).length;
      const total = qs.length;
      const percent = total === 0 ? 0 : Math.round((correct / total) * 100);
      const now = clock.now();
      await sql.run(
        'INSERT INTO demo_answers (report_id, answers, correct, total, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (report_id) DO NOTHING',
        [invitation.reportId, JSON.stringify(chosen), correct, total, isoAt(now)],
      );
      const properties = [
        { label: 'Correct answers', value: `${correct} of ${total}` },
        { label: 'Pass mark', value: `${passMark}%` },
      ];
      if (invitation.openedAt) {
        const minutes = Math.max(1, Math.round((now - Date.parse(invitation.openedAt)) / 60_000));
        properties.push({ label: 'Time taken', value: `${minutes} min` });
      }
      const result: ProviderResult = {
        status: percent >= passMark ? 'completed' : 'failed',
        // "100%" is the longest: within the badge's 5 characters.
        score: `${percent}%`,
        subtitle: `${invitation.testName}: ${correct} of ${total} correct`,
        properties,
      };
      return { outcome: 'result', result };
    },

    ...(kind !== 'assessment' && {
      async decide(_invitation: ProviderInvitation, decision: Decision): Promise<ProviderResult> {
        return {
          status: decision === 'clear' ? 'completed' : 'failed',
          score: CHECK_SCORES[kind][decision],
        };
      },
    }),

    catalog: {
      addTests: (accountId: number, names: readonly string[], tx: Sql) => addDemoTests(tx, clock, accountId, names),
      sampleTests: DEMO_CATALOG[kind],
      // listTests below is this table, by id: the kit lists it with the token in one statement.
      table: 'tests',
    },

    async resultDetails(invitation: ProviderInvitation): Promise<readonly ResultDetail[]> {
      if (kind !== 'assessment') return [];
      const row = await sql.get<{ answers: string }>('SELECT answers FROM demo_answers WHERE report_id = $1', [invitation.reportId]);
      if (!row) return [];
      const chosen = JSON.parse(row.answers) as Record<string, number>;
      return ((await questionsOf(invitation)) ?? []).map((q) => {
        const pick = chosen[q.id];
        return {
          label: q.prompt,
          value: pick === undefined ? '—' : (q.choices[pick] ?? '—'),
          ok: pick === q.answer,
        };
      });
    },
  };
}
