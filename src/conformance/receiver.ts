import { createServer, type IncomingHttpHeaders } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { ConformanceSetupError } from './run.js';

/**
 * The platform's server side, played by the checker for a run: an HTTP server of its own, on
 * loopback unless told another address (`--receiver-host`, `--receiver-port`), where the partner's
 * calls to the platform come — Greenhouse's PATCH to the `url` of a send, Ashby's
 * `assessment.update`, the API of a platform the partner reads orders from. It takes every request,
 * keeps what it was (method, path, headers, body) and answers as the platform's server does: by the
 * platform's `answer`, else `200` with no body. A platform says it has one in its plugin
 * (`receiver`), and the command line then offers it the receiver's options.
 */

/** A body larger than this is not read further: no platform call the checker receives is near it. */
const MAX_BODY_BYTES = 64 * 1024;

export interface ReceivedRequest {
  method: string;
  /** The path and query as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  /** How many body bytes came (up to MAX_BODY_BYTES). */
  bodyBytes: number;
  /** The body as UTF-8 text, up to MAX_BODY_BYTES. */
  body: string;
}

/** How the receiver answers one request: a status, headers, a body (an object is sent as JSON). */
export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string | object;
}

/** What a platform's plugin says of its receiver. */
export interface ReceiverSpec {
  /** What comes to it, for the usage and the messages: `the PATCH`, `assessment.update`. */
  for: string;
  /** What gives the partner its address, for the usage and the messages: `the url of each send`, `ASHBY_API_URL`. */
  namedBy: string;
  /** How the platform's server answers a request (default: 200, no body). */
  answer?: (request: ReceivedRequest) => ReceiverAnswer | Promise<ReceiverAnswer>;
}

export interface Receiver {
  /** The address it listens on (127.0.0.1 by default), which its urls name. */
  host: string;
  /** The port it listens on. */
  port: number;
  /** `http://<host>:<port>`, the host in brackets when it is IPv6. */
  origin: string;
  /** Every request it took, in order of arrival. */
  requests: readonly ReceivedRequest[];
  /** The URL of `path` on it. */
  url(path: string): string;
  /**
   * The first request (arrived already, or arriving within `timeoutMs`) that `match` takes, or
   * undefined once the time is up.
   */
  waitFor(match: (r: ReceivedRequest) => boolean, timeoutMs: number): Promise<ReceivedRequest | undefined>;
  close(): Promise<void>;
}

/** Where the receiver listens: by default 127.0.0.1, on a port the system picks. */
export interface ReceiverAddress {
  /** An IP address of this machine, which the urls the checker gives name. */
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

const hostInUrl = (host: string) => (isIP(host) === 6 ? `[${host}]` : host);

/** `127.0.0.1 (a free port)`, `127.0.0.1:4100`, `[::1]:4100`: where a run's receiver will listen, said before it runs. */
export function describeAddress(address: ReceiverAddress = {}): string {
  const host = hostInUrl(address.host ?? '127.0.0.1');
  return !address.port ? `${host} (a free port)` : `${host}:${address.port}`;
}

export async function startReceiver(address: ReceiverAddress = {}, answer?: ReceiverSpec['answer']): Promise<Receiver> {
  const host = address.host ?? '127.0.0.1';
  const requests: ReceivedRequest[] = [];
  /** The waits under way: each is told of every request, or ended (undefined) by `close`. */
  const waiting = new Set<{ notify: (r: ReceivedRequest) => void; end: () => void }>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let bodyBytes = 0;
    req.on('data', (chunk: Buffer) => {
      if (bodyBytes < MAX_BODY_BYTES) chunks.push(chunk.subarray(0, MAX_BODY_BYTES - bodyBytes));
      bodyBytes = Math.min(MAX_BODY_BYTES, bodyBytes + chunk.length);
      if (bodyBytes >= MAX_BODY_BYTES) req.destroy();
    });
    let taken = false;
    const done = () => {
      if (taken) return;
      taken = true;
      const received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, bodyBytes, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(received);
      for (const wait of waiting) wait.notify(received);
      void reply(received);
    };
    const reply = async (received: ReceivedRequest) => {
      let answered: ReceiverAnswer;
      try {
        answered = answer ? await answer(received) : { status: 200 };
      } catch (err) {
        // The platform's answer failed: a fault of the checker, said to the partner as a platform would.
        answered = { status: 500, body: { error: `the checker's receiver failed: ${(err as Error).message}` } };
      }
      if (res.headersSent || res.destroyed) return;
      const body = answered.body === undefined ? '' : typeof answered.body === 'string' ? answered.body : JSON.stringify(answered.body);
      const type = answered.body !== undefined && typeof answered.body !== 'string' ? { 'content-type': 'application/json' } : {};
      res.writeHead(answered.status, { ...type, ...answered.headers, 'content-length': String(Buffer.byteLength(body)) }).end(body);
    };
    req.once('end', done);
    req.once('error', () => {});
    req.once('close', () => {
      if (!req.complete) done();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(new ReceiverListenError(`${err.code ?? err.message} on ${hostInUrl(host)}:${address.port ?? 0}`, err.code));
    });
    server.listen(address.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${hostInUrl(host)}:${port}`;

  return {
    host,
    port,
    origin,
    requests,
    url: (path) => `${origin}${path}`,
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

/**
 * The platform's receiver for a run, listening where `address` says; when it cannot, a
 * ConformanceSetupError that says why and how to go on, before anything is sent.
 */
export async function openReceiver(spec: ReceiverSpec, address?: ReceiverAddress): Promise<Receiver> {
  try {
    return await startReceiver(address, spec.answer);
  } catch (err) {
    if (!(err instanceof ReceiverListenError)) throw err;
    const hint =
      err.code === 'EADDRINUSE'
        ? 'the port is taken: give another --receiver-port, or none for a free one'
        : err.code === 'EADDRNOTAVAIL'
          ? 'the address is not one of this machine: give --receiver-host one of its addresses'
          : err.code === 'EACCES'
            ? 'this user may not open that port: give another --receiver-port'
            : 'see --receiver-host and --receiver-port';
    throw new ConformanceSetupError(`The checker could not listen for ${spec.for} (${err.message}): ${hint}`);
  }
}
