import { describe, expect, it } from 'vitest';
import { testStatus, type StatusSource } from '../../../src/partner/platforms/greenhouse/status.js';
import { scoreNumber } from '../../../src/partner/invitations/score.js';
import { TestStatusAnswer } from '../../../src/partner/platforms/greenhouse/wire.js';

/** test_status in Greenhouse's words: the table of docs/greenhouse.md §5, row by row. */
const PROFILE = 'https://partner.example/results?token=abc';
const sent: StatusSource = {
  status: 'sent',
  openedAt: null,
  submittedAt: null,
  score: null,
  subtitle: null,
  properties: [],
  canceledBy: null,
  cancelReason: null,
};
const answer = (invitation: Partial<StatusSource>, progress: ('opened' | 'started' | 'in_review')[] = []) => {
  const result = testStatus({ ...sent, ...invitation }, progress, () => PROFILE);
  expect(TestStatusAnswer.strict().parse(result)).toEqual(result);
  return result;
};

describe('test_status', () => {
  it('is sent before the candidate starts, with nothing else', () => {
    expect(answer({})).toEqual({ partner_status: 'sent' });
  });

  it('is in_progress once the candidate opened, started or submitted', () => {
    expect(answer({ openedAt: '2026-11-25T10:00:00.000Z' })).toEqual({ partner_status: 'in_progress' });
    expect(answer({}, ['started'])).toEqual({ partner_status: 'in_progress' });
    expect(answer({ submittedAt: '2026-11-25T10:00:00.000Z' })).toEqual({ partner_status: 'in_progress' });
  });

  it('is complete for a completed test: the profile URL, the score as a number, the result as flat string metadata', () => {
    expect(
      answer({
        status: 'completed',
        score: '80%',
        subtitle: 'Strong on recursion',
        properties: [
          { label: 'Time spent', value: '42 min' },
          { label: 'Score', value: '16/20' },
          { label: 'Score', value: 'top 10%' },
        ],
      }),
    ).toEqual({
      partner_status: 'complete',
      partner_profile_url: PROFILE,
      partner_score: 80,
      metadata: { Result: 'passed', Score: '80%', Summary: 'Strong on recursion', 'Time spent': '42 min', 'Score (2)': '16/20', 'Score (3)': 'top 10%' },
    });
  });

  it('is complete for a failed test too, its result "failed"; a score that is no number is left out', () => {
    expect(answer({ status: 'failed', score: 'E' })).toEqual({
      partner_status: 'complete',
      partner_profile_url: PROFILE,
      metadata: { Result: 'failed', Score: 'E' },
    });
  });

  it('keeps a property labelled __proto__ as a key like any other', () => {
    const { metadata } = testStatus({ ...sent, status: 'completed', properties: [{ label: '__proto__', value: 'x' }] }, [], () => PROFILE);
    expect(Object.keys(metadata!)).toEqual(['Result', '__proto__']);
    expect(JSON.parse(JSON.stringify(metadata))).toEqual({ Result: 'passed', ['__proto__']: 'x' });
  });

  it('is canceled, saying by whom and why', () => {
    expect(answer({ status: 'canceled', canceledBy: 'vendor', cancelReason: null })).toEqual({
      partner_status: 'canceled',
      metadata: { 'Canceled by': 'vendor' },
    });
    expect(answer({ status: 'canceled', canceledBy: 'platform', cancelReason: 'the platform does not know the report' })).toEqual({
      partner_status: 'canceled',
      metadata: { 'Canceled by': 'platform', Reason: 'the platform does not know the report' },
    });
  });

  it.each([
    ['80', 80],
    ['80%', 80],
    ['4.5', 4.5],
    ['-2', -2],
    [' 7 ', 7],
    ['A+', undefined],
    ['1e3', undefined],
    ['4,5', undefined],
    ['', undefined],
    [null, undefined],
  ])('reads the score %j as %j', (score, number) => {
    expect(scoreNumber(score)).toBe(number);
  });
});
