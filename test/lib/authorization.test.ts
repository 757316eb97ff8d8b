import { describe, expect, it } from 'vitest';
import { bearerToken, parseAuthorization } from '../../src/lib/http/authorization.js';

describe('the Authorization header', () => {
  it.each([
    ['Bearer ptk_abc', { scheme: 'bearer', credentials: 'ptk_abc' }],
    ['bearer ptk_abc', { scheme: 'bearer', credentials: 'ptk_abc' }],
    ['BEARER ptk_abc', { scheme: 'bearer', credentials: 'ptk_abc' }],
    ['Bearer    ptk_abc  ', { scheme: 'bearer', credentials: 'ptk_abc' }],
    ['  bearer\tptk_abc', { scheme: 'bearer', credentials: 'ptk_abc' }],
    ['basic dXNlcjpwYXNz', { scheme: 'basic', credentials: 'dXNlcjpwYXNz' }],
    ['Bearer', { scheme: 'bearer', credentials: '' }],
    ['ptk_abc', { scheme: 'ptk_abc', credentials: '' }],
  ])('%j: the scheme in lower case and the credentials', (header, parsed) => {
    expect(parseAuthorization(header)).toEqual(parsed);
  });

  it.each([[undefined], [''], ['   '], [':abc token'], ['Bea"rer token']])('%j: nothing', (header) => {
    expect(parseAuthorization(header)).toBeUndefined();
  });

  it('a Bearer token whatever the case of the scheme; nothing for another scheme or none', () => {
    for (const header of ['Bearer t0k', 'bearer t0k', 'BEARER  t0k', 'bearer\tt0k']) expect(bearerToken(header)).toBe('t0k');
    for (const header of [undefined, 'Basic t0k', 'Bearer', 'Bearer   ', 't0k', 'Bearert0k']) expect(bearerToken(header)).toBeUndefined();
  });
});
