import { describe, expect, it } from 'vitest';
import { isEmptyUpdate, mergeUpdates, withoutFieldsSetBy } from '../../src/partner/updates/body.js';
import { backoffMs } from '../../src/partner/jobs/backoff.js';
import { DELIVERY_RETRY, outcomeOf, retryAfterMs } from '../../src/partner/updates/policy.js';

describe('what an answer means for a report update', () => {
  it('2xx is delivered; 408, 425, 429 and 5xx are retried; every other status is a dead letter at once', () => {
    expect([200, 201, 204].map(outcomeOf)).toEqual(['delivered', 'delivered', 'delivered']);
    expect([500, 502, 503, 504, 429, 408, 425].map(outcomeOf)).toEqual(Array(7).fill('retry'));
    expect([400, 401, 403, 404, 422, 409, 410, 413, 301, 302].map(outcomeOf)).toEqual(Array(10).fill('dead'));
  });
});

describe('backoff', () => {
  it('doubles from the base with 50–100% jitter, and stops growing at the cap', () => {
    const base = DELIVERY_RETRY.baseMs;
    expect([1, 2, 3, 4].map((n) => backoffMs(n, DELIVERY_RETRY, () => 1))).toEqual([base, 2 * base, 4 * base, 8 * base]);
    expect([1, 2, 3].map((n) => backoffMs(n, DELIVERY_RETRY, () => 0))).toEqual([base / 2, base, 2 * base]);
    expect(backoffMs(40, DELIVERY_RETRY, () => 1)).toBe(DELIVERY_RETRY.maxMs);
    expect(backoffMs(40, DELIVERY_RETRY, () => 0)).toBe(DELIVERY_RETRY.maxMs / 2);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-01T09:00:00Z');
  it('reads delay-seconds and HTTP dates', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Sun, 01 Nov 2026 09:05:00 GMT', now)).toBe(300_000);
  });
  it('is clamped: never below a second (no spinning), never beyond the cap; a date in the past means "soon"', () => {
    expect(retryAfterMs('0', now)).toBe(DELIVERY_RETRY.minRetryAfterMs);
    expect(retryAfterMs('Sun, 01 Nov 2026 08:00:00 GMT', now)).toBe(DELIVERY_RETRY.minRetryAfterMs);
    expect(retryAfterMs('99999999', now)).toBe(DELIVERY_RETRY.maxRetryAfterMs);
  });
  it('is ignored when absent or unreadable (the backoff applies)', () => {
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs('', now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-5', now)).toBeUndefined();
  });
});

describe('merging queued updates of one report', () => {
  it('later fields win, urls merge key by key', () => {
    expect(
      mergeUpdates([
        { urls: { show: 'https://p/show/1', cancel: 'https://p/cancel' } },
        { status: 'completed', score: '80%', urls: { show: 'https://p/show/2' } },
      ]),
    ).toEqual({ status: 'completed', score: '80%', urls: { show: 'https://p/show/2', cancel: 'https://p/cancel' } });
  });

  it('an old update loses what newer delivered updates set, and may end up empty', () => {
    const old = { status: 'completed' as const, score: '80%', urls: { show: 'https://p/1', cancel: 'https://p/c' } };
    expect(withoutFieldsSetBy(old, [{ status: 'canceled' }, { urls: { show: 'https://p/2' } }])).toEqual({
      score: '80%',
      urls: { cancel: 'https://p/c' },
    });
    const emptied = withoutFieldsSetBy({ urls: { show: 'https://p/1' } }, [{ urls: { show: 'https://p/2' } }]);
    expect(isEmptyUpdate(emptied)).toBe(true);
  });
});
