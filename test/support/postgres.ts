import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface RunningPostgres {
  /** postgres://kit@127.0.0.1:<port>/postgres — trust authentication, loopback only. */
  url: string;
  /** A fresh, empty database on this server; its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): void;
}

/** Where Debian's postgresql packages put the server binaries, newest first; PG_BIN overrides. */
function binDir(): string {
  const candidates = [process.env.PG_BIN, ...['17', '16', '15'].map((v) => `/usr/lib/postgresql/${v}/bin`), '/usr/local/bin'];
  const found = candidates.find((dir) => dir && existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl')));
  if (!found) {
    throw new Error(
      'PostgreSQL is not installed here: the PostgreSQL half of the tests cannot run. ' +
        'Install it (Debian: apt-get install postgresql) or point PG_BIN at the folder holding initdb and pg_ctl.',
    );
  }
  return found;
}

/**
 * A throwaway PostgreSQL server for the tests: a new cluster in a temporary folder, on a free
 * loopback port, stopped and deleted by `stop`. PostgreSQL refuses to run as root; as root (CI,
 * containers) it runs as the `postgres` user the Debian package creates.
 */
export async function startPostgres(): Promise<RunningPostgres> {
  const bin = binDir();
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-postgres-'));
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })));
  const run = (tool: string, args: string[]) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
    const result = spawnSync(cmd, argv, { encoding: 'utf8', cwd: dir });
    if (result.status !== 0) throw new Error(`${tool} failed: ${result.stderr || result.stdout}`);
  };
  const data = path.join(dir, 'data');
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'kit', '--no-sync', '-E', 'UTF8']);
  run('pg_ctl', [
    '-D', data, '-w', '-l', path.join(dir, 'log'),
    '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
    'start',
  ]);
  const url = `postgres://kit@127.0.0.1:${port}/postgres`;
  return {
    url,
    async createDatabase(name) {
      if (!/^[a-z][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a database name: ${name}`);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://kit@127.0.0.1:${port}/${name}`;
    },
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A loopback port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });
}
