import { spawn, type ChildProcess } from 'node:child_process';
import type { Server as HttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { inject } from 'vitest';

/**
 * A URL where nothing listens. Port 1 is privileged and unassigned, so the connection is refused;
 * a port picked free and closed again could be taken by another test in the meantime.
 */
export const REFUSED_URL = 'http://127.0.0.1:1';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * How a test runs one of the kit's entry points (`src/partner/server.ts`, `scripts/dev.ts`) as a
 * process: Node's arguments for its compiled copy (test/support/compiled-kit.ts), to run with the
 * project as the working directory. The kit is compiled once per run; tsx would compile it again
 * in every process.
 */
export function kitProcess(entry: string, args: string[] = []): string[] {
  return [path.join(inject('compiledKit'), entry.replace(/\.ts$/, '.js')), ...args];
}

export interface PartnerProcess {
  child: ChildProcess;
  /** The port the server reported in its "partner server listening" log line (it is started with PORT=0). */
  port: Promise<number>;
  exited: Promise<number | null>;
  output(): string;
}

/**
 * The partner server as `npm start` runs it, compiled, in its own process, on a port the system
 * picks (PORT=0 unless `env` says otherwise). `node`: Node's arguments for another entry point
 * that starts it (a fork's, as `['--import', 'tsx', 'examples/…/server.ts']`).
 */
export function startPartnerProcess(env: Record<string, string>, node: string[] = kitProcess('src/partner/server.ts')): PartnerProcess {
  const child = spawn(process.execPath, node, {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', PORT: '0', ...env },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = new Promise<number>((resolve, reject) => {
    const listening = () => {
      // One JSON line per log entry: {…,"port":43127,"publicUrl":…,"msg":"partner server listening"}
      const m = /"port":(\d+).*"msg":"partner server listening"/.exec(output);
      if (!m) return;
      // Found: a busy server logs megabytes, which must not all be searched again on every line.
      child.stdout.off('data', listening);
      resolve(Number(m[1]));
    };
    child.stdout.on('data', listening);
    child.once('exit', (code) => reject(new Error(`the partner exited (${code}) before listening:\n${output}`)));
  });
  return { child, port, exited, output: () => output };
}

/**
 * A TCP forwarder on a port of its own, to whichever port `to` is set to: one address for a
 * server that is restarted on another port, as a load balancer gives a redeployed service.
 */
export async function tcpForwarder() {
  let target: number | undefined;
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    if (target === undefined) return socket.destroy();
    const upstream = connect(target, '127.0.0.1');
    for (const s of [socket, upstream]) {
      open.add(s);
      s.once('close', () => open.delete(s));
    }
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    to(port: number) {
      target = port;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of open) s.destroy();
      }),
  };
}

/**
 * For a server in this process: a port of its own whose connections are handed to whichever HTTP
 * server `to` names, as if it had accepted them itself. One address for a server restarted on
 * another port, with nothing in between: a byte forwarder can lose what the server answered right
 * before it hung up (a 413 to a body it would not read), the forwarder's write of the rest of the
 * body failing before it reads the answer.
 */
export async function connectionHandOver() {
  let target: HttpServer | undefined;
  const server = createServer((socket) => {
    if (target === undefined || !target.listening) return socket.destroy();
    target.emit('connection', socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    to(next: HttpServer) {
      target = next;
    },
    /** Stops taking connections; those handed over belong to their server, which closes them. */
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A load balancer in front of several servers, as a TCP forwarder: each new connection goes to the
 * next port in turn, and to the one after when a port refuses it (a server that died), as nginx's
 * `proxy_next_upstream error` does. Connections already open stay with their server.
 */
export async function roundRobin() {
  let targets: number[] = [];
  let next = 0;
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    socket.pause();
    let upstream: Socket | undefined;
    socket.on('error', () => upstream?.destroy());
    const tryFrom = (tried: number) => {
      if (tried >= targets.length) return socket.destroy();
      const port = targets[next++ % targets.length]!;
      const attempt = connect(port, '127.0.0.1');
      let connected = false;
      attempt.on('error', () => (connected ? socket.destroy() : tryFrom(tried + 1)));
      attempt.once('connect', () => {
        connected = true;
        upstream = attempt;
        for (const s of [socket, attempt]) {
          open.add(s);
          s.once('close', () => open.delete(s));
        }
        socket.pipe(attempt).pipe(socket);
        socket.resume();
      });
    };
    tryFrom(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    to(ports: number[]) {
      targets = ports;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of open) s.destroy();
      }),
  };
}
