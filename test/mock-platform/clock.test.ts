import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { Request, Response } from 'express';
import { isLoopback, loopbackOnly } from '../../src/mock-platform/clock/routes.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { webhookEndpoint, type WebhookEndpoint } from '../webhooks/mock-harness.js';

/**
 * `/_mock/clock` moves a running mock's clock, so the retry schedule, the rate limit and the
 * 30-day request log can be checked from outside in seconds.
 */

const ACME = 1;
const RILEY = 1;
const ADA = 17;
const BACKEND_OFFER = 101;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let mock: RunningMockPlatform | undefined;
let endpoint: WebhookEndpoint | undefined;
afterEach(async () => {
  await mock?.close();
  await endpoint?.close();
  mock = endpoint = undefined;
});

const now = async (url: string) => Date.parse((await request(url).get('/_mock/clock').expect(200)).body.now as string);

const waitFor = async (what: string, ok: () => boolean | Promise<boolean>, ms = 5_000) => {
  const until = performance.now() + ms;
  while (!(await ok())) {
    if (performance.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('/_mock/clock on a started mock', () => {
  it('GET answers the platform’s time; POST {advance} moves it and answers the new time', async () => {
    mock = await startMockPlatform({ logLevel: 'silent' });
    const before = await now(mock.url);
    expect(Math.abs(before - Date.now())).toBeLessThan(5_000);
    const res = await request(mock.url).post('/_mock/clock').send({ advance: '45m' }).expect(200);
    expect(Date.parse(res.body.now as string) - before).toBeGreaterThanOrEqual(45 * MINUTE);
    expect(Date.parse(res.body.now as string) - before).toBeLessThan(45 * MINUTE + 5_000);
    const after = await now(mock.url);
    expect(after - before).toBeGreaterThanOrEqual(45 * MINUTE);
    expect(res.body.now).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    // Every unit, and plain milliseconds.
    for (const [advance, ms] of [['30s', 30_000], ['2h', 2 * 60 * MINUTE], ['1d', DAY], [1500, 1500], ['0s', 0]] as const) {
      const t0 = await now(mock.url);
      const t1 = Date.parse((await request(mock.url).post('/_mock/clock').send({ advance }).expect(200)).body.now as string);
      expect(t1 - t0).toBeGreaterThanOrEqual(ms);
      expect(t1 - t0).toBeLessThan(ms + 5_000);
    }
  });

  it('a retry due after the advance goes out at once, as attempt 2', async () => {
    mock = await startMockPlatform({ logLevel: 'silent' });
    endpoint = await webhookEndpoint({ now: () => Date.now() });
    endpoint.answer(500, 'down');
    await request(mock.url)
      .post(`/api/webhooks/c/${ACME}/configurations`)
      .set('x-mock-user', String(RILEY))
      .send({ name: 'Failing', url: endpoint.url, events: ['candidate_moved'] })
      .expect(201);
    await request(mock.url).post(`/api/pipeline/c/${ACME}/candidates/${ADA}/placements/${BACKEND_OFFER}/disqualify`).send({ reason_id: 1 }).expect(200);
    await waitFor('the first attempt', () => endpoint!.events().length === 1);
    expect(endpoint.events()[0]!.body.attempt_count).toBe(1);
    const deliveries = async () =>
      (await request(mock!.url).get(`/api/webhooks/c/${ACME}/deliveries`).set('x-mock-user', String(RILEY)).expect(200)).body
        .deliveries as { attempt_count: number; next_attempt_at: string | null }[];
    await waitFor('the failure to be recorded', async () => (await deliveries())[0]?.next_attempt_at !== null);

    const t0 = await now(mock.url);
    await request(mock.url).post('/_mock/clock').send({ advance: '1m' }).expect(200);
    await waitFor('the retry', () => endpoint!.events().length === 2, 2_000);
    const [first, retry] = endpoint.events();
    expect(retry!.body).toMatchObject({ id: first!.body.id, created_at: first!.body.created_at, attempt_count: 2 });
    // The next retry is scheduled 3 minutes after this one failed, on the moved clock.
    await waitFor('the second failure to be recorded', async () => (await deliveries())[0]?.attempt_count === 2);
    const next = Date.parse((await deliveries())[0]!.next_attempt_at!);
    expect(next - t0).toBeGreaterThanOrEqual(4 * MINUTE);
    expect(await now(mock.url)).toBeGreaterThanOrEqual(t0 + MINUTE);
  });

  it('advancing past 30 days forgets the request log', async () => {
    mock = await startMockPlatform({ logLevel: 'silent' });
    endpoint = await webhookEndpoint({ now: () => Date.now() });
    await request(mock.url)
      .post(`/api/webhooks/c/${ACME}/configurations`)
      .set('x-mock-user', String(RILEY))
      .send({ name: 'Ok', url: endpoint.url, events: ['candidate_moved'] })
      .expect(201);
    const log = async () =>
      (await request(mock!.url).get(`/api/webhooks/c/${ACME}/requests`).set('x-mock-user', String(RILEY)).expect(200)).body.requests as unknown[];
    expect(await log()).toHaveLength(1);
    await request(mock.url).post('/_mock/clock').send({ advance: '31d' }).expect(200);
    await waitFor('the log to be pruned', async () => (await log()).length === 0, 3_000);
  });

  it.each([
    ['a missing advance', {}],
    ['a negative duration', { advance: '-5m' }],
    ['a negative number', { advance: -1 }],
    ['an unknown unit', { advance: '3w' }],
    ['text that is no duration', { advance: 'soon' }],
    ['a fraction of a millisecond', { advance: 1.5 }],
    ['more than a year', { advance: '400d' }],
    ['a boolean', { advance: true }],
  ])('answers 422 in the contract’s error shape for %s, and does not move', async (_what, body) => {
    mock = await startMockPlatform({ logLevel: 'silent' });
    const t0 = await now(mock.url);
    const res = await request(mock.url).post('/_mock/clock').send(body).expect(422);
    expect(typeof res.body.error).toBe('string');
    expect(Object.keys(res.body.errors)).toEqual(['advance']);
    expect((await now(mock.url)) - t0).toBeLessThan(5_000);
  });

  it('answers 415 for a body that is not JSON', async () => {
    mock = await startMockPlatform({ logLevel: 'silent' });
    await request(mock.url).post('/_mock/clock').set('content-type', 'text/plain').send('advance=1m').expect(415);
  });
});

describe('/_mock/clock is for this machine only', () => {
  it.each(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])('lets %s in', (address) => {
    expect(isLoopback(address)).toBe(true);
  });

  it.each(['10.0.0.5', '192.168.1.20', '::ffff:10.0.0.5', 'fe80::1', '2001:db8::1', '', undefined])('refuses %s with a 403', (address) => {
    expect(isLoopback(address)).toBe(false);
    let passed: unknown = 'not called';
    loopbackOnly({ socket: { remoteAddress: address } } as unknown as Request, {} as Response, (err?: unknown) => {
      passed = err;
    });
    expect(passed).toMatchObject({ status: 403 });
  });
});
