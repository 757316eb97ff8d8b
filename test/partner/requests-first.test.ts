import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { requestsFirst, type Pause } from '../../src/lib/perf/requests-first.js';

/*
 * The pauses are measured on a fake clock (performance.now, setTimeout, setImmediate), moved by
 * the test one millisecond at a time: the numbers are exact, however loaded the machine is. The
 * requests are real, and the test waits for the server's events (a request arrived, a response
 * closed), never for an amount of time.
 */
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
  // A server that has been up a while: its clock is not at zero.
  vi.advanceTimersByTime(60_000);
});
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** A server whose requests wait until the test answers them. */
async function heldServer() {
  const held: ServerResponse[] = [];
  const arrivals: (() => void)[] = [];
  const server = createServer((_req, res) => {
    held.push(res);
    arrivals.splice(0).forEach((wake) => wake());
  });
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
  /** Resolves once `n` requests have reached the handler. */
  const arrived = async (n: number) => {
    while (held.length < n) await new Promise<void>((resolve) => arrivals.push(resolve));
  };
  /** Resolves once the server has seen the response close (answered, or the client went away). */
  const closed = (res: ServerResponse) => new Promise<void>((resolve) => (res.closed ? resolve() : res.once('close', () => resolve())));
  return { held, send, arrived, closed, pause };
}

/** How many fake milliseconds each pause took, the clock moved 1 ms at a time. */
async function waited(pauses: Promise<void>[]): Promise<number[]> {
  const start = performance.now();
  const took: (number | undefined)[] = pauses.map(() => undefined);
  pauses.forEach((p, i) => void p.then(() => (took[i] = performance.now() - start)));
  await vi.advanceTimersByTimeAsync(0);
  while (took.some((t) => t === undefined)) {
    if (performance.now() - start > 10_000) throw new Error('a pause never ended');
    await vi.advanceTimersByTimeAsync(1);
  }
  return took as number[];
}
const waitedOne = async (pause: Pause) => (await waited([pause()]))[0]!;

describe('requestsFirst', () => {
  it('pauses background work while a request is being answered, and not once it is answered', async () => {
    const s = await heldServer();
    expect(await waitedOne(s.pause)).toBe(0);

    s.send();
    await s.arrived(1);
    expect(await waitedOne(s.pause)).toBe(40);

    s.held[0]!.end('ok');
    await s.closed(s.held[0]!);
    vi.advanceTimersByTime(10);
    expect(await waitedOne(s.pause)).toBe(0);
  });

  it('shares its slots between every loop that pauses on it: two loops get one slot each, in turn', async () => {
    const s = await heldServer();
    s.send();
    await s.arrived(1);
    expect(await waited([s.pause(), s.pause()])).toEqual([40, 80]);
  });

  it('counts the server busy until no request has been in flight for quietMs: the next ones may be on their way', async () => {
    const s = await heldServer();
    s.send();
    await s.arrived(1);
    s.held[0]!.end('ok');
    await s.closed(s.held[0]!);
    vi.advanceTimersByTime(9);
    expect(await waitedOne(s.pause)).toBe(40);
    // That pause took the server past quietMs without a request: idle now.
    expect(await waitedOne(s.pause)).toBe(0);
  });

  it('stops counting a request whose client went away before the answer', async () => {
    const s = await heldServer();
    const req = s.send();
    await s.arrived(1);
    req.destroy();
    await s.closed(s.held[0]!);
    vi.advanceTimersByTime(10);
    expect(await waitedOne(s.pause)).toBe(0);
  });
});
