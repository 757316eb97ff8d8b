import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/lib/errors.js';
import { parseOr422 } from '../../../src/lib/http/validate.js';
import { greetingName } from '../../../src/partner/platforms/greenhouse/routes.js';
import { SendTestBody } from '../../../src/partner/platforms/greenhouse/wire.js';
import { HARRY_POTTER } from '../../support/greenhouse-candidate.js';

/** send_test's body, field by field as the table of docs/greenhouse.md §2 says. */
const harry = {
  partner_test_id: '12345',
  candidate: { ...HARRY_POTTER, preferred_name: 'The Chosen One' },
  sent_by: 'test_sender@example.org',
  url: 'https://app.greenhouse.io/integrations/testing_partners/take_home_tests/12345',
};
type Body = typeof harry;
const withCandidate = (fields: Record<string, unknown>) => ({ ...harry, candidate: { ...harry.candidate, ...fields } });

/** The 422's `errors`, or undefined when the body is accepted. */
const errorsOf = (body: unknown): Record<string, string[]> | undefined => {
  try {
    parseOr422(SendTestBody, body);
    return undefined;
  } catch (err) {
    if (err instanceof AppError && err.status === 422) return err.fields;
    throw err;
  }
};

describe('send_test', () => {
  it("reads Greenhouse's example as it is", () => {
    expect(parseOr422(SendTestBody, harry)).toEqual(harry);
  });

  it('reads a numeric partner_test_id as its decimal string', () => {
    expect(parseOr422(SendTestBody, { ...harry, partner_test_id: 12345 }).partner_test_id).toBe('12345');
  });

  it('takes null, or nothing, for the properties without a value', () => {
    const parsed = parseOr422(SendTestBody, {
      ...withCandidate({ preferred_name: null, phone_number: null, resume_url: undefined }),
      sent_by: null,
    } satisfies Omit<Body, 'candidate' | 'sent_by'> & Record<string, unknown>);
    expect(parsed.candidate).toMatchObject({ preferred_name: null, phone_number: null, resume_url: null });
    expect(parsed.sent_by).toBeNull();
  });

  it('ignores fields it does not know', () => {
    const parsed = parseOr422(SendTestBody, { ...withCandidate({ pronouns: 'he/him' }), interview_kit: 7 });
    expect(parsed).toEqual(harry);
  });

  it.each([
    ['no partner_test_id', { ...harry, partner_test_id: undefined }, 'partner_test_id', 'is required'],
    ['no candidate', { ...harry, candidate: undefined }, 'candidate', 'is required'],
    ['a blank first name', withCandidate({ first_name: '  ' }), 'candidate.first_name', 'is required'],
    ['a last name of 201 characters', withCandidate({ last_name: 'x'.repeat(201) }), 'candidate.last_name', 'must be at most 200 characters'],
    ['no e-mail address', withCandidate({ email: undefined }), 'candidate.email', 'is required'],
    ['an e-mail address that is not one', withCandidate({ email: 'harry at hogwarts' }), 'candidate.email', 'must be a valid e-mail address'],
    ['no profile URL', withCandidate({ greenhouse_profile_url: undefined }), 'candidate.greenhouse_profile_url', 'is required'],
    ['a relative profile URL', withCandidate({ greenhouse_profile_url: '/people/1' }), 'candidate.greenhouse_profile_url', 'must be an absolute http(s) URL'],
    ['a resume URL that is not http(s)', withCandidate({ resume_url: 'javascript:alert(1)' }), 'candidate.resume_url', 'must be an absolute http(s) URL'],
    ['a NUL in a name', withCandidate({ first_name: 'Ha\u0000rry' }), 'candidate.first_name', 'must not contain NUL characters'],
    ['no url', { ...harry, url: undefined }, 'url', 'is required'],
  ])('refuses %s, naming the field', (_what, body, field, message) => {
    expect(errorsOf(body)?.[field]).toEqual([message]);
  });
});

describe('the greeting', () => {
  it.each([
    ['Hal', 'Hal'],
    ['The Chosen One', 'The Chosen One'],
    ["D'Arcy", "D'Arcy"],
    ['Jean-Luc', 'Jean-Luc'],
    ['Zoë', 'Zoë'],
    ['李小龙', '李小龙'],
    ['  Hal  ', 'Hal'],
    [null, 'Harry'],
    ['', 'Harry'],
    ['Click https://evil.example', 'Harry'],
    ['hal@example.com', 'Harry'],
    ['Hal9000', 'Harry'],
    ['<b>Hal</b>', 'Harry'],
    ['Hal  Jordan', 'Harry'],
    ['x'.repeat(51), 'Harry'],
  ])('for the preferred name %j is %j', (preferred, greeting) => {
    expect(greetingName({ first_name: 'Harry', preferred_name: preferred })).toBe(greeting);
  });
});
