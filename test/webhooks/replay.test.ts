import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WebhookHandler } from '../../src/partner/platforms/hiring-platform/webhooks/handlers/index.js';
import { COMPANY, envelope, partnerWebhooks, signed, type PartnerWebhooks } from './partner-harness.js';

// How many times copies of one event arrive side by side (32 requests in flight, shuffled) does
// not depend on the number of events: some 270 pairs of copies within 32 requests of each other
// for 300 events (185 events with such a pair), 300 for 1000. More events only lengthen the run.
const EVENTS = 300;
const COPIES = 10;

let partner: PartnerWebhooks;
let server: Server;
let agent: Agent;
const handledTimes = new Map<number, number>();

beforeEach(async () => {
  handledTimes.clear();
  const count: WebhookHandler = async (event) => {
    handledTimes.set(event.id, (handledTimes.get(event.id) ?? 0) + 1);
    // A handler that yields, so runs overlap with deliveries and with each other.
    await new Promise((resolve) => setImmediate(resolve));
    return 'counted';
  };
  partner = await partnerWebhooks({ handlers: { offer_published: count } });
  server = partner.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  agent = new Agent({ connections: 32 });
});
afterEach(async () => {
  await agent.close();
  await new Promise((resolve) => server.close(resolve));
  await partner.close();
});

describe('replayed deliveries', () => {
  it(`${EVENTS} events delivered ${COPIES} times each, partly at once, are handled exactly ${EVENTS} times`, async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/platform/${COMPANY}`;
    const deliveries: { body: string; headers: Record<string, string> }[] = [];
    for (let i = 1; i <= EVENTS; i++) {
      for (let attempt = 1; attempt <= COPIES; attempt++) {
        // Retries carry the same id with a higher attempt_count: other bytes, another signature.
        const body = envelope({ id: 50_000 + i, attempt_count: attempt });
        deliveries.push({ body, headers: signed(body) });
      }
    }
    // A fixed shuffle: copies of one event arrive spread out and side by side.
    let seed = 42;
    for (let i = deliveries.length - 1; i > 0; i--) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      const j = seed % (i + 1);
      [deliveries[i], deliveries[j]] = [deliveries[j]!, deliveries[i]!];
    }

    const statuses = new Map<number, number>();
    let next = 0;
    let backlog!: () => void;
    const backlogBuilt = new Promise<void>((resolve) => (backlog = resolve));
    const sender = async () => {
      while (next < deliveries.length) {
        const d = deliveries[next++]!;
        if (next >= deliveries.length / 3) backlog();
        const res = await request(url, { method: 'POST', headers: d.headers, body: d.body, dispatcher: agent });
        await res.body.dump();
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      }
    };
    // 32 requests in flight at any time; two processors at once start when a backlog has built
    // up, and keep running while deliveries (copies included) arrive; three drain what is left.
    const processors = (async () => {
      await backlogBuilt;
      while (next < deliveries.length) {
        await Promise.all([partner.processor.runOnce(), partner.processor.runOnce()]);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    await Promise.all([...Array.from({ length: 32 }, sender), processors]);
    await Promise.all([partner.processor.runOnce(), partner.processor.runOnce(), partner.processor.runOnce()]);
    expect(await partner.processor.runOnce()).toBe(0);

    expect(Object.fromEntries(statuses)).toEqual({ 200: EVENTS * COPIES });
    expect(handledTimes.size).toBe(EVENTS);
    expect([...handledTimes.values()].every((n) => n === 1)).toBe(true);
    expect(await partner.row("SELECT count(*) AS n, sum(duplicates) AS d FROM webhook_inbox WHERE status = 'handled'")).toEqual({
      n: EVENTS,
      d: EVENTS * (COPIES - 1),
    });
  });
});
