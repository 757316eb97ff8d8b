import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { apply, ENCODINGS, file, withAnswer, type AnswerSpec, type ApplicationSpec } from './client.js';
import { careersHarness, type CareersHarness } from './harness.js';

/**
 * Every question kind of platform-contract.md §7.3, answered validly and invalidly, in each encoding a client may
 * use. The offer is "Senior Backend Engineer", which asks one question of each kind.
 */

const APPLY = '/careers/acme/api/offers/senior-backend-engineer/candidates';

const BASE: ApplicationSpec = {
  name: 'Ada Applicant',
  email: 'ada.applicant@example.com',
  cv: file('cv.pdf', 'application/pdf', '%PDF-1.4 a CV'),
  location_ids: [12],
  answers: [
    { open_question_id: 1001, content: 'Staff engineer' },
    { open_question_id: 1003, flag: true },
    { open_question_id: 1004, content: '5002' },
    { open_question_id: 1006, content: '2027-01-15' },
    { open_question_id: 1012, flag: true },
  ],
};

interface ValidCase {
  kind: string;
  answer: AnswerSpec;
  /** The answer as the created candidate shows it. */
  shown: Record<string, unknown>;
}

const VALID: ValidCase[] = [
  { kind: 'string', answer: { open_question_id: 1001, content: '  Staff engineer ' }, shown: { content: 'Staff engineer' } },
  { kind: 'text', answer: { open_question_id: 1002, content: 'Line one\nLine two' }, shown: { content: 'Line one\nLine two' } },
  { kind: 'boolean', answer: { open_question_id: 1003, flag: false }, shown: { flag: false } },
  { kind: 'single_choice (by option id)', answer: { open_question_id: 1004, content: '5002' }, shown: { content: '2 to 5' } },
  { kind: 'single_choice (by option body)', answer: { open_question_id: 1004, content: 'More than 5' }, shown: { content: 'More than 5' } },
  {
    kind: 'multi_choice (bodies and ids)',
    answer: { open_question_id: 1005, multi_content: ['PostgreSQL', '5007'] },
    shown: { multi_content: ['PostgreSQL', 'Redis'] },
  },
  { kind: 'date', answer: { open_question_id: 1006, content: '2027-02-28' }, shown: { content: '2027-02-28' } },
  { kind: 'number', answer: { open_question_id: 1007, content: '-2.5' }, shown: { content: '-2.5' } },
  { kind: 'salary', answer: { open_question_id: 1008, content: '85000.50' }, shown: { content: '85000.50' } },
  {
    kind: 'video',
    answer: { open_question_id: 1009, file: file('intro.mp4', 'video/mp4', 'not really a video') },
    shown: { file: expect.objectContaining({ name: 'intro.mp4', content_type: 'video/mp4', size: 18 }) },
  },
  {
    kind: 'file',
    answer: { open_question_id: 1010, file: file('sample.zip', 'application/zip', 'PK...') },
    shown: { file: expect.objectContaining({ name: 'sample.zip', content_type: 'application/zip', size: 5 }) },
  },
  { kind: 'legal', answer: { open_question_id: 1012, flag: 'true' }, shown: { flag: true } },
];

interface InvalidCase {
  kind: string;
  answer: AnswerSpec;
  message: string;
}

const INVALID: InvalidCase[] = [
  { kind: 'string too long', answer: { open_question_id: 1001, content: 'x'.repeat(1001) }, message: 'must be at most 1000 characters' },
  { kind: 'text too long', answer: { open_question_id: 1002, content: 'x'.repeat(20_001) }, message: 'must be at most 20000 characters' },
  { kind: 'boolean not true/false', answer: { open_question_id: 1003, flag: 'maybe' }, message: 'must be true or false' },
  { kind: 'boolean answered with content', answer: { open_question_id: 1003, content: 'true' }, message: 'must be answered with flag' },
  {
    kind: 'single_choice not an option',
    answer: { open_question_id: 1004, content: 'Cobol' },
    message: '"Cobol" is not one of the options (Less than 2, 2 to 5, More than 5)',
  },
  {
    kind: "single_choice with another question's option id",
    answer: { open_question_id: 1004, content: '5004' },
    message: '"5004" is not one of the options',
  },
  {
    kind: 'multi_choice with one choice not an option',
    answer: { open_question_id: 1005, multi_content: ['PostgreSQL', 'Oracle'] },
    message: '"Oracle" is not one of the options',
  },
  { kind: 'date in another format', answer: { open_question_id: 1006, content: '15/01/2027' }, message: 'must be a date as YYYY-MM-DD' },
  { kind: 'date not in the calendar', answer: { open_question_id: 1006, content: '2027-02-30' }, message: 'is not a date in the calendar' },
  { kind: 'number in words', answer: { open_question_id: 1007, content: 'twelve' }, message: 'must be a number' },
  { kind: 'number with a decimal comma', answer: { open_question_id: 1007, content: '1,5' }, message: 'must be a number' },
  { kind: 'salary below zero', answer: { open_question_id: 1008, content: '-100' }, message: 'must be a number of zero or more' },
  { kind: 'salary not a number', answer: { open_question_id: 1008, content: 'lots' }, message: 'must be a number of zero or more' },
  { kind: 'video as text', answer: { open_question_id: 1009, file: 'intro.mp4' }, message: 'must be a file upload' },
  { kind: 'file as text', answer: { open_question_id: 1010, file: 'sample.zip' }, message: 'must be a file upload' },
  { kind: 'infobox answered', answer: { open_question_id: 1011, content: 'Noted' }, message: 'takes no answer' },
  { kind: 'required legal declined', answer: { open_question_id: 1012, flag: false }, message: 'must be accepted' },
  { kind: 'legal not true/false', answer: { open_question_id: 1012, flag: 'yes please' }, message: 'must be true or false' },
];

let h: CareersHarness;
beforeEach(() => {
  h = careersHarness();
});
afterEach(() => h.close());

describe.each(ENCODINGS)('answers sent as %s', (encoding) => {
  test.each(VALID)('a valid $kind answer is stored and shown', async ({ answer, shown }) => {
    const res = await apply(h.app, encoding, `${APPLY}?async=true`, withAnswer(BASE, answer)).expect(201);
    const answers = res.body.candidate.open_question_answers as Record<string, unknown>[];
    expect(answers.find((a) => a.open_question_id === Number(answer.open_question_id))).toEqual({
      open_question_id: Number(answer.open_question_id),
      kind: expect.any(String),
      ...shown,
    });
    expect(h.count('open_question_answers')).toBe(answers.length);
  });

  test.each(INVALID)('an invalid answer ($kind) is a 422 naming the question, and nothing is stored', async ({ answer, message }) => {
    const candidates = h.count('candidates');
    const res = await apply(h.app, encoding, APPLY, withAnswer(BASE, answer)).expect(422);
    const key = `open_questions.${answer.open_question_id}`;
    expect(res.body.errors[key]).toEqual([expect.stringContaining(message)]);
    expect(res.body.error).toContain(`question ${answer.open_question_id}`);
    expect(h.count('candidates')).toBe(candidates);
    expect(h.count('open_question_answers')).toBe(0);
    expect(h.filesOnDisk()).toEqual([]);
    expect(h.mail.list()).toEqual([]);
    expect(h.events).toEqual([]);
  });

  test('an infobox sent with only its id is accepted and stores no answer', async () => {
    const res = await apply(h.app, encoding, APPLY, withAnswer(BASE, { open_question_id: 1011 })).expect(201);
    const ids = (res.body.candidate.open_question_answers as { open_question_id: number }[]).map((a) => a.open_question_id);
    expect(ids).not.toContain(1011);
  });

  test('required questions sent empty are a 422 naming each of them', async () => {
    const spec: ApplicationSpec = {
      ...BASE,
      answers: [
        { open_question_id: 1001, content: null },
        { open_question_id: 1003, flag: '' },
        { open_question_id: 1004, content: '' },
        { open_question_id: 1005, multi_content: [''] },
        { open_question_id: 1006, content: '   ' },
        { open_question_id: 1012, flag: null },
      ],
    };
    const res = await apply(h.app, encoding, APPLY, spec).expect(422);
    expect(res.body.errors).toEqual({
      'open_questions.1001': ['is required'],
      'open_questions.1003': ['is required'],
      'open_questions.1004': ['is required'],
      'open_questions.1006': ['is required'],
      'open_questions.1012': ['is required'],
    });
    expect(res.body.error).toBe(
      'question 1001 ("What is your current job title?") is required; ' +
        'question 1003 ("Are you allowed to work in the EU?") is required; ' +
        'question 1004 ("How many years of TypeScript experience do you have?") is required; ' +
        'question 1006 ("When could you start?") is required; ' +
        'question 1012 ("I agree that Acme stores my application for 12 months, as...") is required',
    );
    expect(h.count('candidates')).toBe(4);
  });

  test('optional questions sent empty are skipped', async () => {
    const spec = withAnswer(withAnswer(BASE, { open_question_id: 1002, content: '' }), { open_question_id: 1005, multi_content: [] });
    const res = await apply(h.app, encoding, APPLY, spec).expect(201);
    const ids = (res.body.candidate.open_question_answers as { open_question_id: number }[]).map((a) => a.open_question_id);
    expect(ids).not.toContain(1002);
    expect(ids).not.toContain(1005);
  });

  test('required questions may be left out altogether', async () => {
    const res = await apply(h.app, encoding, APPLY, { ...BASE, answers: [] }).expect(201);
    expect(res.body.candidate.open_question_answers).toEqual([]);
  });

  test('an answer to a question of another offer is a 422', async () => {
    const res = await apply(h.app, encoding, APPLY, withAnswer(BASE, { open_question_id: 2001, flag: true })).expect(422);
    expect(res.body.errors).toEqual({ 'open_questions.2001': ['is not a question of this offer'] });
  });

  test('the same question answered twice is a 422', async () => {
    const spec = { ...BASE, answers: [...BASE.answers!, { open_question_id: 1001, content: 'Again' }] };
    const res = await apply(h.app, encoding, APPLY, spec).expect(422);
    expect(res.body.errors).toEqual({ 'open_questions.1001': ['is answered more than once'] });
  });

  test('an answer without open_question_id is a 422', async () => {
    const res = await apply(h.app, encoding, APPLY, withAnswer(BASE, { open_question_id: '', content: 'x' })).expect(422);
    expect(res.body.errors).toEqual({ 'candidate.open_question_answers_attributes.5.open_question_id': ['is required'] });
  });
});

describe('JSON-only answer values', () => {
  test('numbers and booleans may be sent as JSON numbers and booleans', async () => {
    const spec = withAnswer(withAnswer(BASE, { open_question_id: 1007, content: 4 }), { open_question_id: 1004, content: 5003 });
    const res = await apply(h.app, 'json', APPLY, spec).expect(201);
    const answers = res.body.candidate.open_question_answers as Record<string, unknown>[];
    expect(answers.find((a) => a.open_question_id === 1007)).toMatchObject({ content: '4' });
    expect(answers.find((a) => a.open_question_id === 1004)).toMatchObject({ content: 'More than 5' });
    expect(answers.find((a) => a.open_question_id === 1003)).toMatchObject({ flag: true });
  });

  test('values of the wrong JSON type are a 422', async () => {
    const spec = withAnswer(withAnswer(BASE, { open_question_id: 1001, content: { text: 'x' } }), { open_question_id: 1003, flag: 1 });
    const res = await apply(h.app, 'json', APPLY, spec).expect(422);
    expect(res.body.errors).toEqual({
      'open_questions.1001': ['must be text'],
      'open_questions.1003': ['must be true or false'],
    });
  });
});
