import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { appServer } from '../../src/lib/perf/app-server.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function listen(app: express.Express) {
  const { server, serve } = appServer();
  servers.push(server);
  // What the request listener is handed, before Express touches it.
  const seen: { reqProto: unknown; resProto: unknown }[] = [];
  server.prependListener('request', (req, res) => seen.push({ reqProto: Object.getPrototypeOf(req), resProto: Object.getPrototypeOf(res) }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serve(app);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('appServer', () => {
  it("creates each request and response with the app's own prototypes", async () => {
    const app = express();
    app.get('/x', (_req, res) => res.end());
    const { url, seen } = await listen(app);

    await fetch(`${url}/x`);
    await fetch(`${url}/x`);

    expect(seen).toHaveLength(2);
    for (const s of seen) {
      expect(s.reqProto).toBe(app.request);
      expect(s.resProto).toBe(app.response);
    }
  });

  it('serves an ordinary Express app: request helpers, locals, res.json, errors', async () => {
    const app = express();
    app.use((req, res, next) => {
      res.locals.who = req.get('x-who');
      next();
    });
    app.get('/hello', (req, res) => {
      res.status(201).json({ who: res.locals.who, q: req.query.q, path: req.path });
    });
    app.get('/boom', () => {
      throw new Error('boom');
    });
    app.use((_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ error: 'caught' });
    });
    const { url } = await listen(app);

    const hello = await fetch(`${url}/hello?q=1`, { headers: { 'x-who': 'ada' } });
    expect(hello.status).toBe(201);
    expect(hello.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await hello.json()).toEqual({ who: 'ada', q: '1', path: '/hello' });

    const boom = await fetch(`${url}/boom`);
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ error: 'caught' });
  });

  it('keeps two apps on two servers apart', async () => {
    const a = express();
    const b = express();
    a.get('/', (req, res) => res.json({ app: req.app === a }));
    b.get('/', (req, res) => res.json({ app: req.app === b }));
    const sa = await listen(a);
    const sb = await listen(b);

    expect(await (await fetch(sa.url)).json()).toEqual({ app: true });
    expect(await (await fetch(sb.url)).json()).toEqual({ app: true });
    expect(sa.seen[0]!.reqProto).toBe(a.request);
    expect(sb.seen[0]!.reqProto).toBe(b.request);
  });

  it('answers 503 with Retry-After to a request that arrives before the app is served, then serves the app', async () => {
    const { server, serve } = appServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
    // The partner listens before it has migrated its database and built its parts.
    const early = await fetch(url);
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(await early.json()).toEqual({ error: 'The server is starting' });
    const app = express();
    app.get('/healthz', (_req, res) => void res.json({ ok: true }));
    serve(app);
    const later = await fetch(url);
    expect(later.status).toBe(200);
    expect(await later.json()).toEqual({ ok: true });
  });
});
