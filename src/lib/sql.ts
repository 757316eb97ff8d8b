import { createRequire } from 'node:module';
import type pg from 'pg';
import type { Db } from './db.js';
import { CALLBACK_TIMEOUT_MS } from '../contract/decisions.js';
import { AppError } from './errors.js';

/**
 * One way for the stores to speak to either database. Every query is written once, with
 * PostgreSQL's `$1, $2…` placeholders (SQLite reads them as `?1, ?2…`), and prepared once per text
 * (a query builder that prepares on every call costs a catalog read 45–75 µs where a prepared
 * statement costs 25: docs/performance.md).
 */
export interface Sql {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * On SQLite, the better-sqlite3 connection underneath, for what only SQLite has (the read
   * cache's change counter, read synchronously). Never for queries: they go through `Sql`.
   */
  readonly sqlite?: Db;
  all<T>(text: string, params?: readonly unknown[]): Promise<T[]>;
  get<T>(text: string, params?: readonly unknown[]): Promise<T | undefined>;
  /** A statement without rows to read; how many rows it changed. */
  run(text: string, params?: readonly unknown[]): Promise<{ changes: number }>;
  /** Several statements without parameters, run as they are (a migration file). */
  exec(text: string): Promise<void>;
  /**
   * `fn`'s queries, through the `tx` it is given, in one transaction: committed when `fn` resolves,
   * rolled back when it throws. Inside a transaction, `tx.transaction` is a savepoint. Inside,
   * every query goes through `tx`: on SQLite a query through the outer `Sql` waits for the
   * transaction to end, so it would wait forever. On PostgreSQL `fn` runs again (up to 5 times)
   * when the database ends it as a deadlock or serialization victim, so it must do nothing but
   * queries: side effects (waking a worker, logging) belong after it resolves.
   */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

/**
 * `INDEXED BY index` on SQLite, whose planner has no statistics and must be told the plan where a
 * wrong guess reads a whole backlog (see where it is used); nothing on PostgreSQL, which plans by
 * its statistics.
 */
export function indexedBy(sql: Pick<Sql, 'dialect'>, index: string): string {
  return sql.dialect === 'sqlite' ? `INDEXED BY ${index}` : '';
}

/**
 * Writes that must commit with the next statement, on PostgreSQL: CTEs (`name AS (…), …`, their
 * parameters from $1) put in front of that statement, which then does both in one round trip and
 * as atomically as a transaction would, with no BEGIN and COMMIT around it. (SQLite's CTEs cannot
 * write: there the writes are statements of their own in a transaction.)
 */
export interface Prelude {
  ctes: string;
  params: readonly unknown[];
}

/**
 * `text` with `prelude`'s CTEs in front, its parameters renumbered after the prelude's; as it is
 * without one. The kit's statements have `$` in their parameters only, so renumbering every `$n`
 * is exact.
 */
export function withPrelude(prelude: Prelude | undefined, text: string, params: readonly unknown[]): [string, unknown[]] {
  if (!prelude) return [text, [...params]];
  const shifted = text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + prelude.params.length}`);
  const leadingWith = /^\s*WITH\s/i;
  const joined = leadingWith.test(shifted) ? shifted.replace(leadingWith, `WITH ${prelude.ctes}, `) : `WITH ${prelude.ctes} ${shifted}`;
  return [joined, [...prelude.params, ...params]];
}

/**
 * SQLite through better-sqlite3: each query runs at once, synchronously, behind a resolved promise.
 * One connection serves every request, so a transaction that awaits between its queries holds the
 * connection until it ends: other queries, and other transactions, wait for it rather than land
 * inside it.
 */
export function sqliteSql(db: Db): Sql {
  /**
   * Each text prepared once: `$n` becomes `?`, with the order the parameters bind in ($2 may come
   * twice). Where they bind as given ($1, $2… each once, nearly every query), the parameters are
   * bound as they are, with nothing allocated per query.
   */
  const statements = new Map<string, { prepared: ReturnType<typeof db.prepare<unknown[]>>; order: number[]; asGiven: boolean }>();
  const statement = (text: string, params: readonly unknown[]) => {
    let s = statements.get(text);
    if (!s) {
      const order: number[] = [];
      const prepared = db.prepare<unknown[]>(text.replace(/\$(\d+)/g, (_, n: string) => (order.push(Number(n) - 1), '?')));
      statements.set(text, (s = { prepared, order, asGiven: order.every((n, i) => n === i) }));
    }
    return { run: s.prepared, args: s.asGiven && params.length === s.order.length ? params : s.order.map((i) => params[i]) };
  };
  /** The open transaction, while there is one: everything else waits for it to end. */
  let open: Promise<unknown> | undefined;
  const idle = async () => {
    while (open) await open.catch(() => undefined);
  };
  /**
   * BEGIN IMMEDIATE, waiting for another process's write (the accounts CLI's) without holding the
   * event loop: SQLite's own wait (busy_timeout) is a sleep of the thread, and the transaction
   * that holds the lock may be this process's own, on a second connection, waiting for a turn of
   * the loop to commit. Tried every 5 ms, for as long as busy_timeout would have waited.
   */
  // (A pragma takes effect when it is prepared: each is run afresh, not kept as a statement.)
  const busyTimeoutMs = db.pragma('busy_timeout', { simple: true }) as number;
  const begin = db.prepare('BEGIN IMMEDIATE');
  const beginImmediate = async () => {
    for (let waited = 0; ; waited += 5) {
      db.pragma('busy_timeout = 0');
      try {
        begin.run();
        return;
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_BUSY' || waited >= busyTimeoutMs) throw err;
      } finally {
        db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  const direct = (savepoints: { depth: number }): Sql => ({
    dialect: 'sqlite',
    all: async <T>(text: string, params: readonly unknown[] = []) => {
      const { run, args } = statement(text, params);
      return run.all(...args) as T[];
    },
    get: async <T>(text: string, params: readonly unknown[] = []) => {
      const { run, args } = statement(text, params);
      return run.get(...args) as T | undefined;
    },
    run: async (text, params = []) => {
      const { run, args } = statement(text, params);
      return { changes: run.run(...args).changes };
    },
    exec: async (text) => void db.exec(text),
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      const name = `sp${++savepoints.depth}`;
      db.exec(`SAVEPOINT ${name}`);
      try {
        const result = await fn(this);
        db.exec(`RELEASE ${name}`);
        return result;
      } catch (err) {
        db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
        throw err;
      } finally {
        savepoints.depth -= 1;
      }
    },
  });

  const inside = direct({ depth: 0 });
  return {
    dialect: 'sqlite',
    sqlite: db,
    // At once when no transaction is open (nearly always): the callbacks' queries wait for nothing.
    all: (text, params) => (open ? idle().then(() => inside.all(text, params)) : inside.all(text, params)),
    get: (text, params) => (open ? idle().then(() => inside.get(text, params)) : inside.get(text, params)),
    run: (text, params) => (open ? idle().then(() => inside.run(text, params)) : inside.run(text, params)),
    exec: (text) => (open ? idle().then(() => inside.exec(text)) : inside.exec(text)),
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      // Checked again after every wait, and nothing awaited between the last check and `open`
      // being set: two transactions asked for in one turn run one after the other.
      while (open) await open.catch(() => undefined);
      const tx = direct({ depth: 0 });
      const done = (async () => {
        await beginImmediate();
        try {
          const result = await fn(tx);
          db.exec('COMMIT');
          return result;
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      })();
      open = done;
      try {
        return await done;
      } finally {
        if (open === done) open = undefined;
      }
    },
  };
}

/** PostgreSQL chose this transaction to end, to break a deadlock or keep transactions serializable: run it again. */
function isRetryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * The database could not be reached, or the connection broke under a query (PostgreSQL restarted,
 * an administrator ended it, the network dropped): nothing the client sent is wrong, and the same
 * request may succeed in a moment. Answered 503 in the contract's shape; `cause` is what the
 * driver said, for the log.
 */
export class DatabaseUnavailable extends AppError {
  constructor(cause: unknown) {
    super(503, 'database_unavailable', 'The database is unavailable: try again shortly');
    this.name = 'DatabaseUnavailable';
    this.cause = cause;
  }
}

/**
 * [kit decision] How long one call to PostgreSQL may take by default (DATABASE_TIMEOUT_SECONDS): a
 * query, or a transaction with all its queries, from asking the pool for a connection to the
 * answer. Past it the call rejects as `DatabaseUnavailable` (a 503), whatever the database does:
 * down, frozen, unreachable behind a firewall that drops packets, or slow behind a lock another
 * instance holds. With a second for the rest of a callback, a request whose database does not
 * answer is answered within half the platform's callback timeout (`CALLBACK_TIMEOUT_MS`, 10 s):
 * the 5 s docs/configuration.md promises.
 */
export const DEFAULT_DATABASE_TIMEOUT_MS = CALLBACK_TIMEOUT_MS / 2 - 1_000;

/**
 * A statement PostgreSQL did not answer before its call's deadline (`DATABASE_TIMEOUT_SECONDS`).
 * Its connection is dropped, never given back: the statement may still be running there, and an
 * answer that came later would be read as the next statement's.
 */
export class DatabaseTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`PostgreSQL did not answer within ${timeoutMs / 1000} s (DATABASE_TIMEOUT_SECONDS)`);
    this.name = 'DatabaseTimeout';
  }
}

/**
 * SQLSTATEs that end a connection rather than a statement: class 08 (connection exception), the
 * server shutting down, crashing or still starting (57P01–57P03), too many connections (53300).
 */
function endsConnection(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300');
}

/**
 * A pool for DATABASE_URL. 64-bit integers (ids, `count(*)`) come back as numbers, as SQLite's do,
 * not as strings: the kit's ids stay far below 2^53.
 *
 * A connection is waited for at most `timeoutMs` (`DEFAULT_DATABASE_TIMEOUT_MS`): to open one (a
 * server that accepts the TCP connection and never answers would otherwise hold it forever) or for
 * one of the pool's to come free. Give `postgresSql` the same: its calls count that wait in their
 * own. Its connections' sockets send TCP keepalives, so one whose server went away without a word
 * (a host powered off, a network partition) is found dead while it idles, not by the next query.
 *
 * A connection that breaks while idle in the pool (the database restarted, an administrator ended
 * it) is dropped and told to `onError`; the next query opens another. Without a listener, `pg`
 * would throw it as an unhandled error and end the process. (One that breaks while a query or a
 * transaction holds it is `postgresSql`'s: see `checkedOut`.)
 */
export function postgresPool(url: string, options: { max?: number; timeoutMs?: number; onError?: (err: Error) => void } = {}): pg.Pool {
  const { Pool, types } = loadPg();
  const pool = new Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    // Idle connections do not keep a process alive (a CLI that forgot to close, a test worker).
    allowExitOnIdle: true,
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === types.builtins.INT8 ? Number : types.getTypeParser(oid, format))) as typeof types.getTypeParser },
  });
  pool.on('error', (err) => options.onError?.(err));
  return pool;
}

/**
 * The `pg` driver, loaded with the first pool rather than as this module loads: a partner on
 * SQLite never needs it, and loading it cost 3–4 MB of memory and 100–300 ms of start-up
 * (docs/performance.md). It is CommonJS, so `require` loads it synchronously.
 */
function loadPg(): typeof pg {
  return createRequire(import.meta.url)('pg') as typeof pg;
}

/** How long a connection idles before its socket's first keepalive probe. */
const KEEPALIVE_IDLE_MS = 10_000;

/** A statement with what is left of its call's time: `query_timeout` is pg's own timer for it. */
type Statement = pg.QueryConfig & { query_timeout?: number };

/** What pg rejects a statement with when its `query_timeout` ran out. */
const PG_QUERY_TIMEOUT = 'Query read timeout';

/** A connection out of the pool for one call: its statements share the call's deadline. */
interface Session {
  query(statement: Statement): Promise<pg.QueryResult>;
  /** The connection must not be given back (a ROLLBACK that failed left it in a state nobody knows). */
  discard(err: Error): void;
}

/**
 * `use` with a connection of the pool, given back afterwards, every statement of it answered
 * before `deadline` (a `performance.now()` time; Infinity for none) or rejected as a
 * `DatabaseTimeout` of `timeoutMs`: each is sent with what is left as its `query_timeout`, pg's
 * client-side timer, which holds where a server-side `statement_timeout` would not (a server
 * frozen, or gone from the network, enforces nothing). The wait for the connection is the pool's
 * (`postgresPool`'s `timeoutMs`), counted in the deadline.
 *
 * While it is out of the pool the connection's errors are heard here (`pg` would otherwise throw
 * a broken connection's error as unhandled, ending the process, as the pool's listener is off
 * while a connection is checked out), and a connection that broke, or whose statement ran out of
 * time, is dropped rather than given back: an answer that came late would be read as the next
 * statement's. A connection that could not be had, that broke under `use`, or that ran out of
 * time rejects as `DatabaseUnavailable`; anything else as it was thrown. A transaction whose
 * connection broke or ran out of time is not run again: its COMMIT may have landed, or may yet
 * land (a server that was only frozen runs what it had read once it runs again): the calls the
 * platform retries are idempotent for that (send_candidate on its report_id).
 */
async function checkedOut<T>(pool: pg.Pool, deadline: number, timeoutMs: number, use: (session: Session) => Promise<T>): Promise<T> {
  let connection: pg.PoolClient;
  try {
    connection = await pool.connect();
  } catch (err) {
    throw new DatabaseUnavailable(err);
  }
  let broken: Error | undefined;
  const onError = (err: Error) => void (broken ??= err);
  connection.on('error', onError);
  const session: Session = {
    async query(statement) {
      if (deadline !== Infinity) {
        const left = Math.ceil(deadline - performance.now());
        if (left <= 0) throw new DatabaseTimeout(timeoutMs);
        statement.query_timeout = left;
      }
      try {
        return await connection.query(statement);
      } catch (err) {
        if (deadline !== Infinity && (err as Error | null)?.message === PG_QUERY_TIMEOUT) throw new DatabaseTimeout(timeoutMs);
        throw err;
      }
    },
    discard: (err) => void (broken ??= err),
  };
  try {
    return await use(session);
  } catch (err) {
    if (broken || err instanceof DatabaseTimeout || endsConnection(err)) {
      broken ??= err as Error;
      throw new DatabaseUnavailable(err);
    }
    throw err;
  } finally {
    connection.removeListener('error', onError);
    connection.release(broken);
  }
}

/**
 * Each statement's name, one per text for the whole process: a connection prepares a name once and
 * refuses it for another text, so every `postgresSql` over one pool must agree on them.
 */
const statementNames = new Map<string, string>();
const named = (text: string) => {
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, (name = `q${statementNames.size + 1}`));
  return name;
};

/**
 * PostgreSQL through a `pg` pool: each query on whichever connection is free, each transaction on
 * one connection of its own. Statements are named after their text, so each connection prepares
 * each once. A database that cannot be reached, a connection that breaks under a query, or a call
 * not answered within `timeoutMs` (`DEFAULT_DATABASE_TIMEOUT_MS`; Infinity for none: the
 * migrations, which may rightly wait for another instance's) rejects as `DatabaseUnavailable` (a
 * 503 at the HTTP edge). A call is a query, or a transaction with all its queries (and its runs
 * again as a deadlock victim), from asking for a connection to the answer.
 */
export function postgresSql(pool: pg.Pool, options: { timeoutMs?: number } = {}): Sql {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  const statement = (text: string, params: readonly unknown[]): Statement => ({ name: named(text), text, values: [...params] });
  /** `statement` in `session` (a transaction's), or as a call of its own on any free connection of the pool. */
  const query = (session: Session | undefined, s: Statement) =>
    session ? session.query(s) : checkedOut(pool, performance.now() + timeoutMs, timeoutMs, (own) => own.query(s));
  const on = (session: Session | undefined, savepoints: { depth: number }): Sql => ({
    dialect: 'postgres',
    all: async <T>(text: string, params: readonly unknown[] = []) => (await query(session, statement(text, params))).rows as T[],
    get: async <T>(text: string, params: readonly unknown[] = []) => (await query(session, statement(text, params))).rows[0] as T | undefined,
    run: async (text, params = []) => ({ changes: (await query(session, statement(text, params))).rowCount ?? 0 }),
    exec: async (text) => void (await query(session, { text })),
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      if (!session) {
        const deadline = performance.now() + timeoutMs;
        for (let attempt = 1; ; attempt++) {
          try {
            return await checkedOut(pool, deadline, timeoutMs, async (own) => {
              await own.query({ text: 'BEGIN' });
              try {
                const result = await fn(on(own, { depth: 0 }));
                await own.query({ text: 'COMMIT' });
                return result;
              } catch (err) {
                // Past the deadline the connection is dropped, which ends the transaction as well.
                if (!(err instanceof DatabaseTimeout)) await own.query({ text: 'ROLLBACK' }).catch((failed: Error) => own.discard(failed));
                throw err;
              }
            });
          } catch (err) {
            if (!(attempt < 5 && isRetryable(err))) throw err;
          }
        }
      }
      const name = `sp${++savepoints.depth}`;
      await session.query({ text: `SAVEPOINT ${name}` });
      try {
        const result = await fn(this);
        await session.query({ text: `RELEASE SAVEPOINT ${name}` });
        return result;
      } catch (err) {
        if (!(err instanceof DatabaseTimeout)) await session.query({ text: `ROLLBACK TO SAVEPOINT ${name}` });
        throw err;
      } finally {
        savepoints.depth -= 1;
      }
    },
  });
  return on(undefined, { depth: 0 });
}

/** `$1, $2, … $n` (from `$first`): the placeholders of an `IN (…)` list of `n` values. */
export function placeholders(n: number, first = 1): string {
  return Array.from({ length: n }, (_, i) => `$${first + i}`).join(', ');
}

/**
 * Inside a transaction: waits until no other transaction holds `name`, and holds it until this one
 * ends. For check-then-write steps that no unique key guards (seeding one demo account). SQLite
 * writes one transaction at a time already (BEGIN IMMEDIATE); PostgreSQL takes an advisory lock.
 */
export async function inTurn(tx: Sql, name: string): Promise<void> {
  if (tx.dialect === 'postgres') await tx.get('SELECT pg_advisory_xact_lock(hashtext($1))', [name]);
}

/**
 * `sql`, counting in `counter.statements` what it sends to the database: each query, and each
 * transaction's BEGIN and COMMIT (or a savepoint's SAVEPOINT and RELEASE). On PostgreSQL each is a
 * round trip. For the bench, which turns it on to count a callback's round trips
 * (`MainOverrides.sql`); nothing else goes through it.
 */
export function countingStatements(sql: Sql, counter: { statements: number }): Sql {
  return {
    dialect: sql.dialect,
    ...(sql.sqlite && { sqlite: sql.sqlite }),
    all: (text, params) => (counter.statements++, sql.all(text, params)),
    get: (text, params) => (counter.statements++, sql.get(text, params)),
    run: (text, params) => (counter.statements++, sql.run(text, params)),
    exec: (text) => (counter.statements++, sql.exec(text)),
    transaction: (fn) => ((counter.statements += 2), sql.transaction((tx) => fn(countingStatements(tx, counter)))),
  };
}
