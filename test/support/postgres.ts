import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { postgresBinaries } from './binaries.js';

export interface RunningPostgres {
  /** postgres://kit@127.0.0.1:<port>/postgres — trust authentication (or kit:<password>@ when started with one), loopback only. */
  url: string;
  /** A fresh, empty database on this server; its URL. */
  createDatabase(name: string): Promise<string>;
  /** The server's processes (the postmaster and its children), to measure their CPU time. */
  pids(): number[];
  /**
   * `pg_ctl restart -m fast`, as an administrator or an upgrade does: every connection is ended,
   * and the server is down until it accepts connections again, when this resolves. The test's
   * process goes on meanwhile (its requests are in flight while the server goes away). With
   * `whileDown`, the server is stopped, then started again once `whileDown` has resolved: what
   * happens while it is down is the test's to choose, not a matter of timing.
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /**
   * Stops every process of the server (SIGSTOP), as a machine that hangs, a VM paused or a process
   * stuck in the kernel leaves it: its connections stay open and the system still accepts new ones,
   * but nothing is answered, and what the server itself would time out (`statement_timeout`) waits
   * with it. Returns `thaw`, which lets them run again (SIGCONT): call it in a `finally`.
   */
  freeze(): () => void;
  stop(): void;
}

/**
 * The user a PostgreSQL server runs as when the tests run as root, which PostgreSQL refuses (CI,
 * containers): `postgres`, the one Debian's package creates, created here as a system user where
 * the system's package never ran (the server is then npm's).
 */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (id('-u').status !== 0) execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
  return { uid: Number(id('-u').stdout), gid: Number(id('-g').stdout) };
}

/**
 * `bin` itself where the `postgres` user can run it; else a copy of its installation (bin, lib,
 * share: npm's keeps them side by side) in the temporary folder, made once per run. npm's binaries
 * sit in the checkout's node_modules, which a root-owned home folder (/root, mode 700) hides from
 * every other user.
 */
function readableByPostgres(bin: string, runuser: string): string {
  const server = path.join(bin, 'postgres');
  if (spawnSync(runuser, ['-u', 'postgres', '--', 'test', '-x', server]).status === 0) return bin;
  const installation = path.dirname(bin);
  const copy = path.join(tmpdir(), `kit-postgres-bin-${createHash('sha256').update(installation).digest('hex').slice(0, 12)}`);
  if (!existsSync(path.join(copy, path.basename(bin), 'postgres'))) {
    const partial = `${copy}.${process.pid}`;
    execFileSync('cp', ['-a', installation, partial]);
    execFileSync('chmod', ['-R', 'go+rX', partial]);
    // Another test process may have finished its copy meanwhile: either one will do.
    try {
      renameSync(partial, copy);
    } catch {
      rmSync(partial, { recursive: true, force: true });
    }
  }
  return path.join(copy, path.basename(bin));
}

/**
 * `runuser` (util-linux's), which runs the server's programs as the `postgres` user when the tests
 * run as root: where `searchPath` (PATH) has it. Else an error that says, in one line, what is
 * missing and what to do; without it each program's start failed with no output of its own, read
 * as "initdb failed: null", and vitest, its global setup failed, said "No test files found".
 */
export function runuserOn(searchPath: string | undefined): string {
  for (const dir of (searchPath ?? '').split(path.delimiter).filter((d) => d !== '')) {
    const file = path.join(dir, 'runuser');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not in this folder
    }
  }
  const offPath = ['/usr/sbin/runuser', '/sbin/runuser'].find((file) => existsSync(file));
  const why = 'The tests run as root, so their PostgreSQL must run as the postgres user, through runuser';
  throw new Error(
    offPath
      ? `${why}, which is at ${offPath} but not on PATH: add ${path.dirname(offPath)} to PATH, or run the tests as another user.`
      : `${why}, which is not on PATH: install util-linux (Debian and Ubuntu: apt-get install util-linux), or run the tests as another user.`,
  );
}

/**
 * A throwaway PostgreSQL server for the tests: a new cluster in a temporary folder (a copy of
 * `initialised`'s, unless it asks for a password), on a free loopback port, stopped by `stop` (and
 * its folder deleted just after, by its guardian); the system's or npm's (test/support/binaries.ts).
 * PostgreSQL refuses to run as root; as root (CI, containers) it runs as the `postgres` user.
 */
export async function startPostgres(options: { durable?: boolean; password?: string } = {}): Promise<RunningPostgres> {
  const asRoot = userInfo().uid === 0;
  const runuser = asRoot ? runuserOn(process.env.PATH) : undefined;
  const bin = runuser ? readableByPostgres(postgresBinaries().bin, runuser) : postgresBinaries().bin;
  /** A new folder of the temporary folder, the server's user's. */
  const folder = (prefix: string) => {
    const made = mkdtempSync(prefix);
    if (asRoot) {
      const { uid, gid } = postgresUser();
      chownSync(made, uid, gid);
    }
    return made;
  };
  const dir = folder(path.join(tmpdir(), 'kit-postgres-'));
  const command = (tool: string, args: string[]): [string, string[]] =>
    runuser ? [runuser, ['-u', 'postgres', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
  const run = (tool: string, args: string[]) => {
    const [cmd, argv] = command(tool, args);
    const result = spawnSync(cmd, argv, { encoding: 'utf8', cwd: dir });
    if (result.error) throw new Error(`${tool} could not be started (${cmd}): ${result.error.message}`);
    if (result.status !== 0) throw new Error(`${tool} failed (${result.signal ?? `exit code ${result.status}`}): ${result.stderr || result.stdout}`);
  };
  const initdb = (data: string, auth: string[]) => run('initdb', ['-D', data, ...auth, '-U', 'kit', '--no-sync', '-E', 'UTF8']);
  const data = path.join(dir, 'data');
  const port = await freePort();
  // With a password: the server asks for it (SCRAM), as a deployed one does.
  if (options.password === undefined) execFileSync('cp', ['-a', initialised(bin, folder, (into) => initdb(into, ['-A', 'trust'])), data]);
  else initdb(data, ['-A', 'scram-sha-256', `--pwfile=${passwordFile(dir, options.password)}`]);
  const startArgs = [
    '-D', data, '-w', '-l', path.join(dir, 'log'),
    // Tests: nothing synced (the cluster is thrown away). Durable (the bench): synced as SQLite's WAL
    // with synchronous=NORMAL is, so a crash of the process loses nothing and one of the machine at
    // most the last commits.
    '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c synchronous_commit=off ${options.durable ? '' : '-c fsync=off -c full_page_writes=off'}`,
    'start',
  ];
  run('pg_ctl', startArgs);
  const url = `postgres://kit${options.password === undefined ? '' : `:${encodeURIComponent(options.password)}`}@127.0.0.1:${port}/postgres`;
  const stopArgs = ['-D', data, '-m', 'immediate', 'stop'];
  const guardian = guard(command('pg_ctl', stopArgs), dir);
  const pids = (): number[] => {
    const postmaster = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === postmaster;
        } catch {
          return false; // gone meanwhile
        }
      })
      .map(Number);
    return [postmaster, ...children];
  };
  return {
    url,
    createDatabase: (name) => createDatabaseOn(url, name),
    pids,
    freeze() {
      /** `signal` to `pid`, unless it has exited meanwhile (a backend whose client left). */
      const send = (pid: number, signal: NodeJS.Signals) => {
        try {
          process.kill(pid, signal);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
        }
      };
      // The postmaster first, so that it forks no process after its children were listed.
      const [postmaster] = pids();
      send(postmaster!, 'SIGSTOP');
      const frozen = pids();
      for (const pid of frozen.slice(1)) send(pid, 'SIGSTOP');
      return () => frozen.forEach((pid) => send(pid, 'SIGCONT'));
    },
    async restart(whileDown) {
      /** pg_ctl with `args`, in a process of its own: the test's process goes on meanwhile. */
      const pgCtl = (args: string[]) => {
        const [cmd, argv] = command('pg_ctl', args);
        const child = spawn(cmd, argv, { cwd: dir, stdio: 'ignore' });
        return new Promise<void>((resolve, reject) => {
          child.once('error', reject);
          child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl ${args.at(-1)} exited ${code}: see ${path.join(dir, 'log')}`))));
        });
      };
      // -w: until it accepts connections; -l: the server's output to its log, not to a pipe held open.
      if (!whileDown) return pgCtl(['-D', data, '-w', '-l', path.join(dir, 'log'), '-m', 'fast', 'restart']);
      await pgCtl(['-D', data, '-w', '-m', 'fast', 'stop']);
      try {
        await whileDown();
      } finally {
        await pgCtl(startArgs);
      }
    },
    stop() {
      try {
        run('pg_ctl', stopArgs);
      } finally {
        // The guardian deletes the folder: seconds, for a cluster of a whole run's databases, that
        // need not hold up the end of the run.
        (guardian.stdin as Socket).end();
      }
    },
  };
}

/**
 * What `guard` runs: waits for its stdin to close, then stops the cluster (`argv[1]`, the pg_ctl
 * command as JSON) and deletes its folder (`argv[2]`).
 */
const GUARDIAN = `
const { spawnSync } = require('node:child_process');
const { rmSync } = require('node:fs');
const [cmd, args] = JSON.parse(process.argv[1]);
process.stdin.on('close', () => {
  spawnSync(cmd, args, { stdio: 'ignore' });
  rmSync(process.argv[2], { recursive: true, force: true });
});
process.stdin.resume();
`;

/**
 * Stops the cluster and deletes its folder if this process ends without `stop`: a run interrupted
 * with Ctrl-C, a hook that timed out, a worker killed. Left running, each would keep its processes
 * and, on a RAM disk, some 140 MB of memory until the machine restarts. A process of its own reads
 * a pipe from this one, which the system closes however this process ends; neither holds the other
 * open. `stop` closes the pipe itself once the server is stopped.
 */
function guard(stopCommand: [string, string[]], dir: string): ChildProcess {
  const guardian = spawn(process.execPath, ['-e', GUARDIAN, JSON.stringify(stopCommand), dir], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  guardian.unref();
  (guardian.stdin as Socket).unref();
  return guardian;
}

/** initdb's --pwfile: the password in a file of the cluster's folder, readable by the server's user. */
function passwordFile(dir: string, password: string): string {
  const file = path.join(dir, 'password');
  writeFileSync(file, `${password}\n`, { mode: 0o644 });
  return file;
}

/**
 * A cluster as `initdb` makes it for these servers (trust authentication), made once for the
 * binaries in `bin` and copied for each server after: `initdb` took 1.4 s here, where a copy takes
 * a tenth of that. It is kept in the temporary folder (some 40 MB) for the next run.
 */
function initialised(bin: string, folder: (prefix: string) => string, initdb: (data: string) => void): string {
  const server = statSync(path.join(bin, 'postgres'));
  const key = createHash('sha256').update(`${bin} ${server.size} ${server.mtimeMs}`).digest('hex').slice(0, 12);
  const cluster = path.join(tmpdir(), `kit-postgres-initdb-${key}`);
  if (!existsSync(path.join(cluster, 'PG_VERSION'))) {
    const partial = folder(`${cluster}.`);
    initdb(path.join(partial, 'data'));
    // Another test process may have made one meanwhile: either one will do.
    try {
      renameSync(path.join(partial, 'data'), cluster);
    } catch {
      // kept theirs
    }
    rmSync(partial, { recursive: true, force: true });
  }
  return cluster;
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

/**
 * A fresh database named `name` on the server at `serverUrl`; its URL. Empty, or a copy of
 * `template` (a database nobody is connected to), copied file by file: with the server's fsync off
 * that takes some 30 ms, where building one (WAL_LOG, PostgreSQL 15's default) and migrating it took
 * 300–500.
 */
export async function createDatabaseOn(serverUrl: string, name: string, template?: string): Promise<string> {
  for (const each of [name, template ?? 'template1']) if (!/^[a-z][a-z0-9_]{0,62}$/.test(each)) throw new Error(`not a database name: ${each}`);
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY FILE_COPY` : `CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
