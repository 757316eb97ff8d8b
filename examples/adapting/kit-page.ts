// examples/adapting/kit-page.ts — the candidate takes the test on the kit's own page (/take).
import type { Provider, ProviderKit } from '../../src/partner/index.js';

const QUESTION = {
  field: 'q1',
  prompt: 'What does SQL stand for?',
  choices: [
    { value: 'a', label: 'Structured Query Language' },
    { value: 'b', label: 'Simple Question List' },
  ],
};

const myQuiz = (kit: ProviderKit): Provider => ({
  kind: kit.kind,
  listTests: async () => [{ id: 'sql', name: 'SQL basics' }],
  // Invite the candidate to the kit's page, which shows candidateTask and hands the form to submit.
  startInvitation: async (invitation) => ({ candidateUrl: kit.candidateUrl(invitation.reportId) }),
  candidateTask: async () => ({ kind: 'quiz', intro: 'One question.', questions: [QUESTION] }),
  submit: async (_invitation, form) => {
    if (form.q1 !== 'a' && form.q1 !== 'b') return { outcome: 'invalid', errors: { q1: 'Choose an answer.' } };
    const passed = form.q1 === 'a';
    return { outcome: 'result', result: { status: passed ? 'completed' : 'failed', score: passed ? '100%' : '0%' } };
  },
});

export default myQuiz;
