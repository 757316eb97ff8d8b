import fc from 'fast-check';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { jsonSchemaOf, NOT_BLANK_PATTERN } from '../../src/contract/openapi/document.js';
import { digitsUpTo, IntegerId, SAFE_INTEGER_DIGITS } from '../../src/contract/schemas.js';

/**
 * The two rules the documents' edges rest on: the digits of an id up to a bound, and the
 * not-blank pattern the builder gives a string its server trims before its minimum.
 */

it('digitsUpTo(max) takes exactly the decimal integers 1…max, without leading zeros', () => {
  for (const max of [1, 5, 9, 10, 11, 19, 99, 100, 101, 907, 1000, 2026, 9999]) {
    const re = digitsUpTo(max);
    for (let n = 0; n <= 2 * max + 10; n++) expect(re.test(String(n)), `${re} on ${n}`).toBe(n >= 1 && n <= max);
    expect(re.test(`0${max}`)).toBe(false);
  }
});

it('the id pattern stops at 2^53 − 1, as the number it stands for does', () => {
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 10n ** 17n }), (n) => {
      expect(SAFE_INTEGER_DIGITS.test(String(n))).toBe(n >= 1n && n <= max);
    }),
  );
  for (const n of [max - 1n, max, max + 1n, max + 2n, 10n ** 16n - 1n]) {
    expect(SAFE_INTEGER_DIGITS.test(String(n))).toBe(n <= max);
    expect(IntegerId.safeParse(String(n)).success).toBe(n <= max);
  }
});

it('a string trimmed before its minimum is documented not blank; one that is not trimmed, or trimmed after, is not', () => {
  const input = (schema: z.ZodType) => jsonSchemaOf(schema, 'input');
  expect(input(z.string().trim().min(1).max(10))).toMatchObject({ minLength: 1, pattern: NOT_BLANK_PATTERN });
  expect(input(z.string().trim().min(1).regex(/^[a-z ]+$/))).toMatchObject({
    allOf: [{ pattern: '^[a-z ]+$' }, { pattern: NOT_BLANK_PATTERN }],
  });
  expect(input(z.string().min(1))).not.toHaveProperty('pattern');
  expect(input(z.string().min(1).trim())).not.toHaveProperty('pattern');
  expect(input(z.string().trim().max(10))).not.toHaveProperty('pattern');
  // Answers are described as the server writes them: nothing to trim.
  expect(jsonSchemaOf(z.string().trim().min(1), 'output')).not.toHaveProperty('pattern');
});
