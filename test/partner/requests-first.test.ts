import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { requestsFirst } from '../../src/partner/invitations/background.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** A server whose requests wait until the test answers them. */
async function heldServer() {
  const held: ServerResponse[] = [];
  const server = createServer((_req, res) => void held.push(res));
  const pause = requestsFirst(server, { busyPauseMs: 40, quietMs: 10 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  const port = (server.address() as AddressInfo).port;
  const send = () => {
    const req = request({ port, host: '127.0.0.1', path: '/' });
    req.on('error', () => {});
    req.end();
    return req;
  };
  const arrived = async (n: number) => {
    while (held.length < n) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  const timed = async () => {
    const t = performance.now();
    await pause();
    return performance.now() - t;
  };
  return { held, send, arrived, timed };
}

describe('requestsFirst', () => {
  it('pauses background work while a request is being answered, and not once it is answered', async () => {
    const s = await heldServer();
    expect(await s.timed()).toBeLessThan(20);

    s.send();
    await s.arrived(1);
    expect(await s.timed()).toBeGreaterThanOrEqual(38);

    s.held[0]!.end('ok');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await s.timed()).toBeLessThan(20);
  });

  it('shares its slots between every loop that pauses on it: two loops get one slot each, in turn', async () => {
    const s = await heldServer();
    s.send();
    await s.arrived(1);
    const waits = (await Promise.all([s.timed(), s.timed()])).sort((a, b) => a - b);
    expect(waits[0]).toBeGreaterThanOrEqual(38);
    expect(waits[0]).toBeLessThan(78);
    expect(waits[1]).toBeGreaterThanOrEqual(78);
  });

  it('counts the server busy until no request has been in flight for quietMs: the next ones may be on their way', async () => {
    const s = await heldServer();
    s.send();
    await s.arrived(1);
    s.held[0]!.end('ok');
    await new Promise((resolve) => setTimeout(resolve, 2));
    expect(await s.timed()).toBeGreaterThanOrEqual(38);
    await new Promise((resolve) => setTimeout(resolve, 15));
    expect(await s.timed()).toBeLessThan(20);
  });

  it('stops counting a request whose client went away before the answer', async () => {
    const s = await heldServer();
    const req = s.send();
    await s.arrived(1);
    req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await s.timed()).toBeLessThan(20);
  });
});
