import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startPartnerProcess } from '../support/net.js';
import { startPostgres, type RunningPostgres } from '../support/postgres.js';

const PASSWORD = 'start-up-password-9f3c';

/** What the process printed that is not a JSON log line: the one line a start-up error must be. */
const plainLines = (output: string) => output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('{'));

// The processes stop before listening: they run at once.
// Generous limits: each test waits on a process's exit, on a shared machine.
describe.concurrent('the partner started against a PostgreSQL it cannot use', { timeout: 60_000 }, () => {
  let postgres: RunningPostgres;
  let silent: Server;
  const held: Socket[] = [];
  let dir: string;
  beforeAll(async () => {
    // A server of its own, which asks for a password, as a deployed one does.
    postgres = await startPostgres({ password: PASSWORD });
    // Accepts the connection and never answers: a firewall that drops, a server hung.
    silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    dir = mkdtempSync(path.join(tmpdir(), 'start-up-errors-'));
  }, 60_000);
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (databaseUrl: string) => {
    const partner = startPartnerProcess({ DATABASE_URL: databaseUrl, DATABASE_PATH: path.join(dir, 'partner.db') });
    partner.port.catch(() => undefined); // it must never listen; should it, `exited` never comes and the test fails
    return partner;
  };

  it('when it accepts connections and never answers, then the process exits 69 within 15 s, in one line naming DATABASE_URL without the password', async ({ expect }) => {
    const url = `postgres://kit:${PASSWORD}@127.0.0.1:${(silent.address() as AddressInfo).port}/partner`;
    const partner = start(url);
    // Timed from the process's first line: how long Node takes to load the kit on a busy machine is not the partner's wait.
    const firstLine = await new Promise<number>((resolve) => partner.child.stdout!.once('data', () => resolve(performance.now())));
    const code = await partner.exited;
    expect(performance.now() - firstLine).toBeLessThan(15_000);
    expect(code).toBe(69);
    expect(plainLines(partner.output())).toEqual([expect.stringContaining('DATABASE_URL')]);
    expect(partner.output()).toContain(`127.0.0.1:${(silent.address() as AddressInfo).port}/partner`);
    expect(partner.output()).not.toContain(PASSWORD);
  });

  it('when nothing listens at its address, then the process exits 69 in one line naming DATABASE_URL', async ({ expect }) => {
    const partner = start(`postgres://kit:${PASSWORD}@127.0.0.1:1/partner`);
    expect(await partner.exited).toBe(69);
    expect(plainLines(partner.output())).toEqual([expect.stringMatching(/DATABASE_URL.*ECONNREFUSED/)]);
    expect(partner.output()).not.toContain(PASSWORD);
  });

  it('when it refuses the password, then the process exits 78 in one line naming DATABASE_URL, without the password', async ({ expect }) => {
    const url = new URL(await postgres.createDatabase('partner'));
    url.password = 'not-the-password';
    const partner = start(url.toString());
    expect(await partner.exited).toBe(78);
    expect(plainLines(partner.output())).toEqual([expect.stringMatching(/DATABASE_URL.*password authentication failed/)]);
    expect(partner.output()).not.toContain('not-the-password');
  });
});
