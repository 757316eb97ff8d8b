import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function startServer(env: Record<string, string>) {
  // node itself, not the tsx wrapper: a signal must reach the server process, not a parent of it.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/partner/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const port = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /"port":(\d+).*partner server listening/.exec(output);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, port, exited, output: () => output };
}

describe('the server process', () => {
  let dir: string;
  let server: ReturnType<typeof startServer>;
  let port: number;
  let token: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'partner-proc-'));
    server = startServer({ PORT: '0', DATABASE_PATH: path.join(dir, 'db', 'partner.db'), DEMO_SEED: 'true' });
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

  it('when requests carry a token, then the token never appears in the logs', async () => {
    await fetch(`http://127.0.0.1:${port}/callbacks/validate_token?company_id=5`, { headers: { Authorization: `Bearer ${token}` } });
    await expect.poll(() => server.output()).toContain('/callbacks/validate_token');
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
      // Half the body now, SIGTERM, then the rest: the request is in flight when shutdown starts.
      req.write(body.slice(0, 5));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 300);
      }, 200);
    });
    expect(await answered).toBe(200);
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');
  });
});

describe('a bad configuration', () => {
  it('when values are invalid, then the process stops with a message naming each variable', async () => {
    const s = startServer({ PORT: 'eighty', LOG_LEVEL: 'loud' });
    s.port.catch(() => undefined); // it never listens
    const code = await s.exited;
    expect(code).toBe(78);
    expect(s.output()).toContain('PORT');
    expect(s.output()).toContain('LOG_LEVEL');
  });
});
