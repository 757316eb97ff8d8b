/**
 * The demo provider's question bank: a few multiple-choice questions per test, copied into the
 * `demo_questions` table when a test is created (or first taken). Tests whose name is not here get
 * the general questions. `answer` is the index of the right choice.
 */
export interface BankQuestion {
  prompt: string;
  choices: readonly string[];
  answer: number;
}

const GENERAL: readonly BankQuestion[] = [
  { prompt: 'Which of these numbers is prime?', choices: ['21', '27', '29', '33'], answer: 2 },
  { prompt: 'What comes next: 2, 4, 8, 16, …?', choices: ['18', '24', '32', '64'], answer: 2 },
  { prompt: 'A meeting starts at 10:45 and lasts 50 minutes. When does it end?', choices: ['11:25', '11:35', '11:45', '11:30'], answer: 1 },
  { prompt: 'Which word does not belong?', choices: ['Apple', 'Pear', 'Carrot', 'Plum'], answer: 2 },
  { prompt: 'If all bloops are razzies and all razzies are lazzies, are all bloops lazzies?', choices: ['Yes', 'No', 'Cannot tell'], answer: 0 },
];

const BANK: Record<string, readonly BankQuestion[]> = {
  'JavaScript fundamentals': [
    { prompt: 'What does `typeof null` evaluate to?', choices: ['"null"', '"object"', '"undefined"', '"number"'], answer: 1 },
    { prompt: 'Which method adds an element to the end of an array?', choices: ['shift', 'unshift', 'push', 'concat'], answer: 2 },
    { prompt: 'What is `0.1 + 0.2 === 0.3`?', choices: ['true', 'false'], answer: 1 },
    { prompt: 'Which keyword declares a block-scoped variable that cannot be reassigned?', choices: ['var', 'let', 'const', 'static'], answer: 2 },
    { prompt: 'What does `[1, 2, 3].map((x) => x * 2)` return?', choices: ['[2, 4, 6]', '[1, 2, 3]', '12', 'undefined'], answer: 0 },
  ],
  'SQL basics': [
    { prompt: 'Which clause filters rows after grouping?', choices: ['WHERE', 'HAVING', 'ORDER BY', 'LIMIT'], answer: 1 },
    { prompt: 'Which join keeps every row of the left table?', choices: ['INNER JOIN', 'LEFT JOIN', 'CROSS JOIN'], answer: 1 },
    { prompt: 'What does `COUNT(*)` count?', choices: ['Non-null values', 'Rows', 'Distinct values'], answer: 1 },
    { prompt: 'Which statement removes a table and its data?', choices: ['DELETE', 'TRUNCATE', 'DROP TABLE', 'REMOVE'], answer: 2 },
  ],
  'Logical reasoning': GENERAL,
  'Personality profile': [
    { prompt: 'A colleague misses a deadline that affects you. What do you do first?', choices: ['Escalate to the manager', 'Ask them what happened', 'Redo their part quietly'], answer: 1 },
    { prompt: 'You are given a task with unclear goals. You…', choices: ['Wait for clarity', 'Ask the owner a few questions', 'Pick a goal yourself'], answer: 1 },
    { prompt: 'A customer is upset about something outside your control. You…', choices: ['Explain it is not your fault', 'Listen and find who can help', 'Offer a refund at once'], answer: 1 },
  ],
};

export function questionsFor(testName: string): readonly BankQuestion[] {
  return BANK[testName] ?? GENERAL;
}
