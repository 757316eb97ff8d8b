import { expect, it } from 'vitest';
import { ANSWER_CHECKS } from '../../src/conformance/platforms/hiring-platform/callback-checks.js';
import type { Exchange } from '../../src/conformance/probe.js';
import { runConformance } from '../../src/conformance/platforms/hiring-platform/run.js';
import { callbackTargets } from '../../src/conformance/platforms/hiring-platform/wire.js';
import { REFUSED_URL } from '../support/net.js';

/** The checks over every answer of a run, on answers made up for them. */

const [errorsShape, timing] = ANSWER_CHECKS;
const answer = (label: string, status: number, json: unknown, durationMs = 5): Exchange => ({ label, status, json, durationMs });

it('errors.shape: a 4xx without {"error": "<message>"} fails, naming it; other statuses do not count', () => {
  expect(errorsShape.run([answer('a', 401, { error: 'Invalid token' }), answer('b', 500, undefined), answer('c', 200, [])], 10_000)).toEqual({
    ok: true,
    detail: '1 answer 4xx, each with a message',
  });
  const verdict = errorsShape.run(
    [answer('tests GET (no token)', 401, { message: 'no' }), { ...answer('x POST', 413, undefined), contentType: 'text/html' }, answer('y', 403, { error: '' })],
    10_000,
  );
  expect(verdict.ok).toBe(false);
  expect(verdict.detail).toBe('3 of 3 lack it: tests GET (no token) → 401 no content type; x POST → 413 text/html; y → 403 no content type');
});

it('timing.timeout: names the slowest answer, and fails for one past the timeout or timed out', () => {
  const fast = [answer('a', 200, {}, 12), answer('send_candidate POST', 201, {}, 480)];
  expect(timing.run(fast, 10_000)).toEqual({ ok: true, detail: '2 answers, slowest 480 ms: send_candidate POST' });
  expect(timing.run([...fast, { label: 'tests GET', durationMs: 10_001, error: 'timed out after 10000 ms', timedOut: true }], 10_000)).toEqual({
    ok: false,
    detail: '1 not within 10 s (tests GET); slowest 480 ms: send_candidate POST',
  });
});

it('a partner that is not running fails every check, none by throwing', async () => {
  const run = await runConformance({ targets: callbackTargets(`${REFUSED_URL}/callbacks`), tokens: { a: 'a', b: 'b' } });
  expect(run.results.every((r) => !r.ok)).toBe(true);
  expect(run.results.find((r) => r.id === 'validate_token.bind')!.detail).toMatch(/^no answer: connection error: ECONNREFUSED/);
  expect(run.results.filter((r) => r.detail.startsWith('the check could not run'))).toEqual([]);
});
