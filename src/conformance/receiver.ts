import { createServer, type IncomingHttpHeaders } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { PATCH_PATH } from './wire.js';

/**
 * Greenhouse's side of the PATCH (docs/greenhouse.md §3): an HTTP server of the checker's own, on
 * loopback unless told another address (`--receiver-host`, `--receiver-port`), that takes every request, keeps what it was (method, path, headers, body size) and
 * answers `200` with no body, as Greenhouse answers with a status code only. The `url` the checker
 * sends is on it, so the PATCH the partner sends there is seen, and so is any request a partner
 * makes to a `url` it refused (the checker sends one that reaches this server too).
 */

/** A body larger than this is not read further: the PATCH has none. */
const MAX_BODY_BYTES = 64 * 1024;

export interface ReceivedRequest {
  method: string;
  /** The path and query as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  /** How many body bytes came (up to MAX_BODY_BYTES). */
  bodyBytes: number;
}

export interface PatchReceiver {
  /** The address it listens on (127.0.0.1 by default), which its urls name. */
  host: string;
  /** The port it listens on. */
  port: number;
  /** Every request it took, in order of arrival. */
  requests: readonly ReceivedRequest[];
  /** `http://<host>:<port>/integrations/testing_partners/take_home_tests/<n>`. */
  url(n: number): string;
  /**
   * The first request (arrived already, or arriving within `timeoutMs`) that `match` takes, or
   * undefined once the time is up.
   */
  waitFor(match: (r: ReceivedRequest) => boolean, timeoutMs: number): Promise<ReceivedRequest | undefined>;
  close(): Promise<void>;
}

/** Where the receiver listens: by default 127.0.0.1, on a port the system picks. */
export interface ReceiverAddress {
  /** An IP address of this machine, which the urls the checker sends name. */
  host?: string;
  /** 0 or absent: a free port. */
  port?: number;
}

/** The receiver could not listen where it was asked to (the port is taken, the address is not this machine's). */
export class ReceiverListenError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'ReceiverListenError';
  }
}

export async function startPatchReceiver(address: ReceiverAddress = {}): Promise<PatchReceiver> {
  const host = address.host ?? '127.0.0.1';
  const requests: ReceivedRequest[] = [];
  /** The waits under way: each is told of every request, or ended (undefined) by `close`. */
  const waiting = new Set<{ notify: (r: ReceivedRequest) => void; end: () => void }>();

  const server = createServer((req, res) => {
    let bodyBytes = 0;
    req.on('data', (chunk: Buffer) => {
      bodyBytes = Math.min(MAX_BODY_BYTES, bodyBytes + chunk.length);
      if (bodyBytes >= MAX_BODY_BYTES) req.destroy();
    });
    const done = () => {
      const received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, bodyBytes };
      requests.push(received);
      for (const wait of waiting) wait.notify(received);
      if (!res.headersSent) res.writeHead(200, { 'content-length': '0' }).end();
    };
    req.once('end', done);
    req.once('error', () => {});
    req.once('close', () => {
      if (!req.complete) done();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const where = `${isIP(host) === 6 ? `[${host}]` : host}:${address.port ?? 0}`;
      reject(new ReceiverListenError(`${err.code ?? err.message} on ${where}`, err.code));
    });
    server.listen(address.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;

  return {
    host,
    port,
    requests,
    url: (n) => `${origin}${PATCH_PATH}/${n}`,
    waitFor: (match, timeoutMs) => {
      const already = requests.find(match);
      if (already) return Promise.resolve(already);
      return new Promise((resolve) => {
        const finish = (r: ReceivedRequest | undefined) => {
          clearTimeout(timer);
          waiting.delete(wait);
          resolve(r);
        };
        const timer = setTimeout(() => finish(undefined), timeoutMs);
        const wait = { notify: (r: ReceivedRequest) => match(r) && finish(r), end: () => finish(undefined) };
        waiting.add(wait);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const wait of waiting) wait.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
