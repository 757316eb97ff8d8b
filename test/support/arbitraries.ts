import fc from 'fast-check';

/** Any code point, lone surrogates included: the characters of fast-check's `unit: 'binary'`. */
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((codePoint) => String.fromCodePoint(codePoint));

/**
 * Strings of any code points, as `fc.string({ unit: 'binary' })` draws them, without the 1.4 s of
 * CPU that one spends indexing every code point (once per process, in each test worker) to find its
 * built-in tricky strings among them. Those are what fast-check adds; a test here that wants such
 * strings names them.
 */
export const anyString = (constraints: Omit<fc.StringConstraints, 'unit'> = {}) => fc.string({ ...constraints, unit: anyCodePoint });
