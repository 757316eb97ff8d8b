import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { startPartnerProcess as startServer } from '../support/net.js';

describe('the server process', () => {
  let dir: string;
  let server: ReturnType<typeof startServer>;
  let port: number;
  let token: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'partner-proc-'));
    // On a fresh database of the project's engine; the demo token goes next to DATABASE_PATH either way.
    // TRUST_PROXY with nothing in front, as a developer may copy it from a deployment's settings.
    server = startServer({
      PORT: '0',
      ...(await freshDatabase(dir)),
      DATABASE_PATH: path.join(dir, 'db', 'partner.db'),
      DEMO_SEED: 'true',
      TRUST_PROXY: 'true',
    });
    port = await server.port;
    token = readFileSync(path.join(dir, 'db', 'partner.db.demo-token'), 'utf8').trim();
  });
  afterAll(() => {
    server.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('when started on a fresh path, then it creates the database, seeds the demo and answers /healthz', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
    const tests = await fetch(`http://127.0.0.1:${port}/callbacks/tests`, { headers: { Authorization: `Bearer ${token}` } });
    expect(((await tests.json()) as unknown[]).length).toBeGreaterThan(0);
  });

  it('when started without CANDIDATE_LINK_SECRET on a loopback address, then it warns that links are signed with the public development key', () => {
    const warning = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string })
      .find((line) => line.msg.includes('public development key'));
    expect(warning).toMatchObject({ level: 'warn' });
    expect(warning!.msg).toContain('CANDIDATE_LINK_SECRET');
  });

  it('when TRUST_PROXY is set and PUBLIC_URL is a loopback address, then it warns that clients could forge the forwarded headers', () => {
    const warning = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string })
      .find((line) => line.msg.startsWith('TRUST_PROXY is set'));
    expect(warning).toMatchObject({ level: 'warn' });
    expect(warning!.msg).toContain(`PUBLIC_URL (http://127.0.0.1:${port})`);
    expect(warning!.msg).toContain("a client's own X-Forwarded-Host passes the dashboard's host check");
  });

  it('when requests carry a token, then the token never appears in the logs', async () => {
    await fetch(`http://127.0.0.1:${port}/callbacks/validate_token?company_id=5`, { headers: { Authorization: `Bearer ${token}` } });
    await eventually(() => expect(server.output()).toContain('/callbacks/validate_token'), { what: 'the access log line' });
    expect(server.output()).not.toContain(token);
  });

  it('when SIGTERM arrives during a request, then that request still gets its answer and the process exits 0', async () => {
    const body = JSON.stringify({ company_id: 5 });
    const answered = new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          port,
          method: 'POST',
          path: '/callbacks/validate_token',
          headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      // Half the body now, SIGTERM, then the rest once the server says it is shutting down: the
      // request is in flight when shutdown starts.
      req.write(body.slice(0, 5));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        eventually(() => expect(server.output()).toContain('"msg":"shutting down"'), { what: 'shutdown to begin' }).then(
          () => req.end(body.slice(5)),
          reject,
        );
      }, 200);
    });
    expect(await answered).toBe(200);
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');
  });
});

// Two processes that stop before listening: they run at once.
describe.concurrent('a bad configuration', () => {
  it('when values are invalid, then the process stops with a message naming each variable', async ({ expect }) => {
    const s = startServer({ PORT: 'eighty', LOG_LEVEL: 'loud' });
    s.port.catch(() => undefined); // it never listens
    const code = await s.exited;
    expect(code).toBe(78);
    expect(s.output()).toContain('PORT');
    expect(s.output()).toContain('LOG_LEVEL');
  });

  it('when it would listen on every interface with the public development key, then the process stops naming CANDIDATE_LINK_SECRET', async ({ expect }) => {
    const s = startServer({ HOST: '0.0.0.0', PORT: '0', DATABASE_PATH: ':memory:' });
    // It must never listen; should it, it is stopped and the test fails.
    const listened = s.port.then(
      () => 'listening',
      () => undefined,
    );
    const code = await Promise.race([s.exited, listened]);
    if (code === 'listening') s.child.kill('SIGKILL');
    expect(code).toBe(78);
    expect(s.output()).toContain('CANDIDATE_LINK_SECRET');
    expect(s.output()).toContain('openssl rand -base64 48');
  });
});

/** What the process printed that is not a JSON log line: the one line a start-up error must be. */
const plainLines = (output: string) => output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('{'));

describe.concurrent('a start that cannot get what a setting names', { timeout: 60_000 }, () => {
  it('when PORT is taken, then the process exits 69 with one line naming PORT, no stack', async ({ expect }) => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(path.join(tmpdir(), 'partner-port-'));
    try {
      const port = (holder.address() as AddressInfo).port;
      const s = startServer({ ...(await freshDatabase(dir)), PORT: String(port), HOST: '127.0.0.1' });
      s.port.catch(() => undefined); // it never listens
      expect(await s.exited).toBe(69);
      expect(plainLines(s.output())).toEqual([expect.stringMatching(new RegExp(`127\\.0\\.0\\.1:${port} is already in use.*PORT`))]);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when DATABASE_PATH cannot be opened, then the process exits 78 with one line naming DATABASE_PATH', async ({ expect }) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'partner-path-'));
    try {
      // A file where the database's folder should be.
      writeFileSync(path.join(dir, 'not-a-folder'), '');
      const s = startServer({ DATABASE_PATH: path.join(dir, 'not-a-folder', 'partner.db'), DATABASE_URL: '' });
      s.port.catch(() => undefined); // it never listens
      expect(await s.exited).toBe(78);
      expect(plainLines(s.output())).toEqual([expect.stringContaining('DATABASE_PATH')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
