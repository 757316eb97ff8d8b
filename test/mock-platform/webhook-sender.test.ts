import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors, MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { signedRequest, webhookSender } from '../../src/mock-platform/webhooks/sender.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => (s.closeAllConnections(), s.close(resolve)))));
});

/** An endpoint that takes the request and never answers. */
async function silentEndpoint(): Promise<string> {
  const server = createServer(() => undefined);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const request = signedRequest('secret-0123456789', '{"event":"offer_updated"}');

describe("the mock platform's webhook sender", () => {
  it('reports an endpoint that never answers as timed out, after the limit', async () => {
    const outcome = await webhookSender({ timeoutMs: 300 })(await silentEndpoint(), request);
    expect(outcome).toMatchObject({ responseStatus: null, responseBody: null, error: 'timed out after 300 ms' });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
  });

  it.each([
    ['headers', new errors.HeadersTimeoutError()],
    ['body', new errors.BodyTimeoutError()],
  ])("reports undici's own %s timeout, set to the same limit, as timed out too: whichever timer fires first", async (_which, error) => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get('http://partner.example').intercept({ path: '/hook', method: 'POST' }).replyWithError(error);
    try {
      const outcome = await webhookSender({ timeoutMs: 10_000, dispatcher: agent })('http://partner.example/hook', request);
      expect(outcome).toMatchObject({ responseStatus: null, error: 'timed out after 10000 ms' });
    } finally {
      await agent.close();
    }
  });

  it('reports a refused connection as a connection error, with its code', async () => {
    const outcome = await webhookSender({ timeoutMs: 1_000 })('http://127.0.0.1:1/hook', request);
    expect(outcome.error).toMatch(/^connection error: ECONNREFUSED/);
  });
});
