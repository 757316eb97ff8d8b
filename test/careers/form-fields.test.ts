import { describe, expect, test } from 'vitest';
import { AppError } from '../../src/lib/errors.js';
import { nestFields } from '../../src/mock-platform/careers/form-fields.js';
import { IncomingFile } from '../../src/mock-platform/careers/uploads.js';

const FORM_FIELDS: [string, unknown][] = [
  ['candidate[name]', 'Ada'],
  ['candidate[open_question_answers_attributes][0][open_question_id]', '1001'],
  ['candidate[open_question_answers_attributes][0][content]', 'Engineer'],
  ['candidate[open_question_answers_attributes][1][open_question_id]', '1005'],
  ['candidate[open_question_answers_attributes][1][multi_content][0]', 'PostgreSQL'],
  ['candidate[open_question_answers_attributes][1][multi_content][1]', 'Redis'],
];
const NESTED = {
  candidate: {
    name: 'Ada',
    open_question_answers_attributes: [
      { open_question_id: '1001', content: 'Engineer' },
      { open_question_id: '1005', multi_content: ['PostgreSQL', 'Redis'] },
    ],
  },
};
const escape = (name: string) => name.replaceAll('[', '%5B').replaceAll(']', '%5D');

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an error');
}

describe('nestFields', () => {
  test('bracketed form names become the nested object a JSON client sends', () => {
    expect(nestFields(FORM_FIELDS)).toEqual(NESTED);
  });

  test('names escaped as %5B/%5D (either case) read the same as raw brackets', () => {
    expect(nestFields(FORM_FIELDS.map(([n, v]) => [escape(n), v]))).toEqual(NESTED);
    expect(nestFields([['candidate%5bname%5d', 'Ada']])).toEqual({ candidate: { name: 'Ada' } });
    expect(nestFields([['candidate%5Bname]', 'Ada']])).toEqual({ candidate: { name: 'Ada' } });
  });

  test('a JSON body passes through unchanged, and index-keyed objects become arrays', () => {
    expect(nestFields(Object.entries(NESTED))).toEqual(NESTED);
    const indexed = {
      candidate: {
        name: 'Ada',
        open_question_answers_attributes: {
          '1': { open_question_id: 1005, multi_content: { '0': 'PostgreSQL', '1': 'Redis' } },
          '0': { open_question_id: 1001, content: 'Engineer' },
        },
      },
    };
    expect(nestFields(Object.entries(indexed))).toEqual({
      candidate: {
        name: 'Ada',
        open_question_answers_attributes: [
          { open_question_id: 1001, content: 'Engineer' },
          { open_question_id: 1005, multi_content: ['PostgreSQL', 'Redis'] },
        ],
      },
    });
  });

  test('indices are ordered numerically and gaps are closed', () => {
    expect(nestFields([['a[10]', 'ten'], ['a[2]', 'two'], ['a[0]', 'zero']])).toEqual({ a: ['zero', 'two', 'ten'] });
  });

  test('[] appends, and a name sent twice collects its values', () => {
    expect(nestFields([['ids[]', '1'], ['ids[]', '2']])).toEqual({ ids: ['1', '2'] });
    expect(nestFields([['tag', 'a'], ['tag', 'b']])).toEqual({ tag: ['a', 'b'] });
  });

  test('bracketed keys merge into JSON objects sent alongside them', () => {
    expect(nestFields([['candidate', { name: 'Ada' }], ['candidate[email]', 'ada@example.com']])).toEqual({
      candidate: { name: 'Ada', email: 'ada@example.com' },
    });
  });

  test('files stay in place as values', () => {
    const file = new IncomingFile('cv.pdf', 'application/pdf', 3, { data: Buffer.from('pdf') });
    const nested = nestFields([['candidate[cv]', file]]) as { candidate: { cv: unknown } };
    expect(nested.candidate.cv).toBe(file);
  });

  test.each([
    ['a[b', 'Malformed field name'],
    ['a]b', 'Malformed field name'],
    ['a[b]c', 'Malformed field name'],
    ['[a]', 'Malformed field name'],
    ['a[][b]', '"[]" may only end a name'],
    ['a[b][c][d][e][f][g][h][i]', 'nested too deeply'],
  ])('a malformed name (%s) is a 400 that names it', (name, message) => {
    const err = errorOf(() => nestFields([[name, 'x']]));
    expect(err.status).toBe(400);
    expect(err.message).toContain(message);
  });

  test('a name used both as a value and as a group is a 400', () => {
    const err = errorOf(() => nestFields([['candidate', 'x'], ['candidate[name]', 'Ada']]));
    expect(err.status).toBe(400);
    expect(err.message).toContain('both as a value and as a group');
  });

  test('names that would reach Object.prototype are refused', () => {
    for (const name of ['__proto__[polluted]', 'a[__proto__][polluted]', 'a[constructor][prototype]']) {
      expect(errorOf(() => nestFields([[name, 'yes']])).status).toBe(400);
    }
    expect(errorOf(() => nestFields(Object.entries(JSON.parse('{"a": {"__proto__": {"polluted": 1}}}')))).status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
