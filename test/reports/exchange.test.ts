import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { flowHarness, sendBody, TEST_TIMEOUTS, type FlowHarness } from '../invitations/support.js';

/**
 * One delivery's exchange with the platform: bounded as a whole (connect, headers and body
 * timeouts added up), whatever the platform does within each, and abandoned when the worker stops.
 */

let h: FlowHarness | undefined;
let platform: { server: Server; sockets: Set<Socket> } | undefined;
afterEach(async () => {
  for (const socket of platform?.sockets ?? []) socket.destroy();
  await new Promise((resolve) => (platform ? platform.server.close(resolve) : resolve(undefined)));
  platform = undefined;
  await h?.close();
  h = undefined;
});

/** A platform that handles every report update with `handle`; the partner registered with it, one invitation sent and started. */
async function queuedFor(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handle);
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => (sockets.add(socket), socket.on('close', () => sockets.delete(socket))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  platform = { server, sockets };
  h = await flowHarness({ platform: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, codename: 'kit-delivery', secret: 'platform-secret' } });
  const c = await h.customer('Acme', ['SQL basics']);
  const body = sendBody(c.tests[0]!.id);
  expect((await h.send(c.token, body)).status).toBe(201);
  await h.starter.runOnce();
  return { h, reportId: body.report_id };
}

describe("a delivery's exchange with the platform", () => {
  it('when the platform sends its answer a byte at a time, each within the body timeout, then the exchange ends at the whole bound and is retried', async () => {
    const overallMs = TEST_TIMEOUTS.connectMs + TEST_TIMEOUTS.headersMs + TEST_TIMEOUTS.bodyMs;
    const { h, reportId } = await queuedFor((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => res.write(' '), TEST_TIMEOUTS.bodyMs / 4);
      res.on('close', () => clearInterval(drip));
    });
    const began = performance.now();

    expect(await h.worker.runOnce()).toMatchObject({ delivered: 0, retried: 1 });

    expect(performance.now() - began).toBeGreaterThanOrEqual(overallMs - 50);
    const [attempt] = await h.updates.attemptsOf(reportId);
    expect(attempt).toMatchObject({ outcome: 'retry', responseStatus: null, error: 'timed out' });
    expect((await h.updates.ofReport(reportId)).map((u) => [u.status, u.attempts])).toEqual([['pending', 1]]);
  });

  it('when the worker stops while a request is in flight, then the request is abandoned and its update stays pending, untouched', async () => {
    let arrived = () => {};
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    // Takes the request and never answers.
    const { h, reportId } = await queuedFor(() => arrived());

    const run = h.worker.runOnce();
    await inFlight;
    h.worker.stop();

    expect(await run).toMatchObject({ delivered: 0, retried: 0, dead: 0 });
    expect(await h.updates.attemptsOf(reportId)).toEqual([]);
    expect((await h.updates.ofReport(reportId)).map((u) => [u.status, u.attempts])).toEqual([['pending', 0]]);
  });
});
