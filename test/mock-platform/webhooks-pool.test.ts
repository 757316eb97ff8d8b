import { afterEach, describe, expect, it } from 'vitest';
import {
  ACME,
  BACKEND_OFFER,
  GLOBEX,
  GUS,
  RILEY,
  WAREHOUSE_OFFER,
  webhookEndpoint,
  webhookPlatform,
  type WebhookEndpoint,
  type WebhookPlatform,
} from '../webhooks/mock-harness.js';

/**
 * The delivery worker as `npm run mock` runs it (started, real time): an endpoint that never
 * answers must not hold up other endpoints' deliveries, whichever company they belong to.
 */

const TIMEOUT_MS = 1_000;

let platform: WebhookPlatform | undefined;
const endpoints: WebhookEndpoint[] = [];
afterEach(async () => {
  await platform?.webhooks.stop();
  platform = undefined;
  await Promise.all(endpoints.splice(0).map((e) => e.close()));
});

/**
 * An endpoint that answers the test request, then accepts every event and never answers it.
 * `held()` is each event's request, in order of arrival, with when it arrived and when it closed
 * (the worker gave up on it), both read on the endpoint's clock.
 */
async function blackHole() {
  const endpoint = await webhookEndpoint({ now: () => performance.now() });
  endpoints.push(endpoint);
  const held: { at: number; closedAt?: number }[] = [];
  endpoint.on((req, res) => {
    const request: { at: number; closedAt?: number } = { at: req.at };
    held.push(request);
    res.once('close', () => (request.closedAt = performance.now()));
  });
  return Object.assign(endpoint, { held: () => held });
}

async function healthy() {
  const endpoint = await webhookEndpoint({ now: () => performance.now() });
  endpoints.push(endpoint);
  return endpoint;
}

const retitle = async (p: WebhookPlatform, companyId: number, offerId: number, title: string) => {
  const res = await p.pipeline('patch', `${companyId}/offers/${offerId}`, { title });
  expect(res.status).toBe(200);
};

const waitFor = async (what: string, ok: () => boolean, ms = 8_000) => {
  const until = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('webhook delivery pool', () => {
  it('delivers a healthy endpoint’s events within a second of their due time while another endpoint times out', async () => {
    const p = (platform = webhookPlatform({ timeoutMs: TIMEOUT_MS }));
    const slow = await blackHole();
    const ok = await healthy();
    await p.configure(ACME, RILEY, { name: 'Slow', url: slow.url, events: ['offer_updated'] });
    await p.configure(GLOBEX, GUS, { name: 'Healthy', url: ok.url, events: ['offer_updated'] });
    p.webhooks.start(1_000);

    // Five events for the endpoint that never answers: more than its share of the pool.
    for (let i = 0; i < 5; i++) await retitle(p, ACME, BACKEND_OFFER, `Backend Engineer ${i}`);
    await waitFor('the slow endpoint to be called', () => slow.events().length >= 2);

    // While those hang, the other company's events become due one by one (its trial plan allows 5 a minute).
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const dueAt = performance.now();
      await retitle(p, GLOBEX, WAREHOUSE_OFFER, `Warehouse Operator ${i}`);
      await waitFor(`healthy event ${i}`, () => ok.events().length > i);
      delays.push(ok.events()[i]!.at - dueAt);
      await new Promise((r) => setTimeout(r, 150));
    }
    for (const delay of delays) expect(delay).toBeLessThan(1_000);

    // One endpoint never holds more than its share of the slots, and its requests time out.
    await waitFor('the slow deliveries to time out', () => {
      const requests = p.webhooks.store.requests(ACME, { kind: 'event' });
      return requests.length === 5 && requests.every((r) => r.finishedAt !== null);
    }, 4 * TIMEOUT_MS + 4_000);
    // Each of its requests hangs until the worker gives up on it, so with two at a time the third
    // arrives only once the first has closed — seen where they arrive, so the worker's own count is
    // not trusted. Both are read on the endpoint, so a busy machine delays them alike; the margin is
    // for a close and a new request handled in either order in the same turn of its event loop.
    // Without the limit, the third would arrive a whole timeout before the first closes.
    const held = slow.held();
    expect(held).toHaveLength(5);
    for (let i = 0; i + 2 < held.length; i++) expect(held[i + 2]!.at).toBeGreaterThan(held[i]!.closedAt! - 100);
    const slowRequests = p.webhooks.store.requests(ACME, { kind: 'event' });
    expect(slowRequests.map((r) => r.error)).toEqual(Array(5).fill(`timed out after ${TIMEOUT_MS} ms`));
    expect(p.webhooks.store.deliveries(ACME).map((d) => [d.status, d.attemptCount])).toEqual(Array(5).fill(['pending', 1]));
    expect(p.webhooks.store.deliveries(GLOBEX).map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
  });

  it('keeps at most two requests in flight per endpoint and starts each endpoint’s deliveries in due order', async () => {
    const p = (platform = webhookPlatform({ timeoutMs: 2_000 }));
    const endpoint = await healthy();
    let open = 0;
    let maxOpen = 0;
    endpoint.on((_req, res) => {
      open += 1;
      maxOpen = Math.max(maxOpen, open);
      setTimeout(() => {
        open -= 1;
        res.writeHead(200).end();
      }, 30);
    });
    await p.configure(ACME, RILEY, { url: endpoint.url, events: ['offer_updated'] });
    for (let i = 0; i < 8; i++) await retitle(p, ACME, BACKEND_OFFER, `Backend Engineer ${i}`);
    expect(await p.webhooks.deliverer.runOnce()).toBe(8);
    expect(maxOpen).toBe(2);
    // Claimed (and logged) oldest first.
    const started = p.webhooks.store.requests(ACME, { kind: 'event' }).reverse().map((r) => r.eventId!);
    expect(started).toEqual([...started].sort((a, b) => a - b));
    expect(p.webhooks.store.deliveries(ACME).every((d) => d.status === 'delivered')).toBe(true);
  });
});
