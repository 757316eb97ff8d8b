import type { Statement } from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AccountStore } from '../../src/partner/accounts/store.js';
import { createApp } from '../../src/partner/app.js';
import type { PartnerCore } from '../../src/partner/core.js';
import { buildProvider } from '../../src/partner/assemble.js';
import { partnerCore } from '../../src/partner/core.js';
import { systemClock, type Clock } from '../../src/lib/clock.js';
import type { PartnerKind } from '../../src/contract/decisions.js';
import type { Db } from '../../src/partner/db/open.js';
import type { Sql } from '../../src/lib/sql.js';
import { discardDatabase, freshDatabase, openTestDatabase, rowOf, rowsOf, sqliteOf } from './database.js';
import { createLogger } from '../../src/lib/http/logger.js';
import { loadConfig, settingsOf } from '../../src/partner/config.js';
import { invitationLinks } from '../../src/partner/invitations/links.js';
import { kitPlatforms } from '../../src/partner/platforms/index.js';
import type { InvitationStore } from '../../src/partner/invitations/store.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { demoProvider } from '../../src/partner/provider/demo/index.js';
import type { Provider } from '../../src/partner/provider/types.js';

/**
 * The demo provider on `db`, built as the server builds it (its tables migrated first), with a
 * candidate link that is only a name.
 */
export function demoOn(
  sql: Sql,
  options: { kind?: PartnerKind; clock?: Clock; candidateUrl?: (reportId: string) => string; passMark?: number } = {},
): Promise<Provider> {
  const kind = options.kind ?? 'assessment';
  const clock = options.clock ?? systemClock;
  return buildProvider(demoProvider(options.passMark === undefined ? {} : { passMark: options.passMark }), {
    sql,
    clock,
    kind,
    logger: createLogger('silent'),
    publicUrl: 'http://partner.test',
    candidateUrl: options.candidateUrl ?? ((id) => `http://partner.test/take/${id}`),
    reports: partnerCore(sql, clock, { kind }).results,
  });
}

/**
 * What `createApp` needs besides the core when a test builds the app by hand: the kit's platforms
 * (their routes: the callbacks, the webhooks) and its links, from the default settings.
 */
export function appPlatforms(core: Pick<PartnerCore, 'connections'>, sql: Sql, clock: Clock = systemClock, publicUrl = 'http://partner.test') {
  const config = loadConfig({});
  const { connections } = core;
  const logger = createLogger('silent');
  return {
    platforms: kitPlatforms().map((p) => p.create({ config, settings: settingsOf(config, p), publicUrl, connections, sql, clock, logger })),
    links: invitationLinks({ ...config.links, publicUrl, clock }),
  };
}

/** A clock tests move by hand. */
export function fakeClock(start = Date.parse('2026-11-01T09:00:00Z')): Clock & { advance(ms: number): void; set(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
    set(ms) {
      now = ms;
    },
  };
}

export interface PartnerHarness {
  app: ReturnType<typeof createApp>;
  sql: Sql;
  /** The SQLite connection (SQLite only: a test that reads it runs on SQLite only). */
  readonly db: Db;
  dbFile: string;
  clock: ReturnType<typeof fakeClock>;
  accounts: AccountStore;
  invitations: InvitationStore;
  /** The stores and lifecycle the app was built with. */
  core: PartnerCore;
  provider: Provider;
  /** A new account with tests; returns its token and the ids of its tests. */
  customer(name: string, tests?: string[], companyId?: number): Promise<{ accountId: number; token: string; testIds: number[] }>;
  /** One row of a query of the test's own (`?` placeholders), on whichever database. */
  row(text: string, ...params: unknown[]): Promise<Record<string, unknown> | undefined>;
  rows(text: string, ...params: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/**
 * A partner app over a fresh database: a SQLite file in a temp directory (a real file, as users
 * have), or a fresh PostgreSQL database in the `postgres` project (test/support/database.ts).
 */
export async function partnerHarness(
  options: {
    provider?: (sql: Sql) => Provider | Promise<Provider>;
    bodyLimitBytes?: number;
    /** Called with the database before the app is built on it (to watch its statements, say). */
    beforeApp?: (sql: Sql) => void;
    /** The query layer the provider, the core and the app are given, in place of the database's own (to count its statements). */
    sql?: (sql: Sql) => Sql;
  } = {},
): Promise<PartnerHarness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'partner-test-'));
  const settings = await freshDatabase(dir, options.provider ? 'kit' : 'demo');
  const database = await openTestDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL });
  const sql = options.sql ? options.sql(database.sql) : database.sql;
  const clock = fakeClock();
  options.beforeApp?.(sql);
  const provider = (await options.provider?.(sql)) ?? (await demoOn(sql, { clock }));
  const core = partnerCore(sql, clock, { kind: provider.kind });
  const app = createApp({
    config: { bodyLimitBytes: options.bodyLimitBytes ?? 64 * 1024, trustProxy: false },
    sql,
    logger: createLogger('silent'),
    clock,
    provider,
    core,
    ...appPlatforms(core, sql, clock),
  });
  const accounts: AccountStore = core.accounts;
  return {
    app,
    sql,
    get db() {
      return sqliteOf(sql);
    },
    dbFile: settings.DATABASE_PATH,
    clock,
    accounts,
    invitations: core.invitations,
    core,
    provider,
    async customer(name, tests = ['JavaScript', 'SQL'], companyId) {
      const { account, token } = await accounts.create(name);
      const added = await sql.transaction((tx) => addDemoTests(tx, clock, account.id, tests));
      if (companyId !== undefined) await accounts.bindCompany(account, companyId);
      return { accountId: account.id, token, testIds: added.map((t) => t.id) };
    },
    row: (text, ...params) => rowOf(sql, text, ...params),
    rows: (text, ...params) => rowsOf(sql, text, ...params),
    close: () => discardDatabase(database, settings, dir),
  };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

let reportCounter = 0;
/** A fresh report UUID per call. */
export function reportId(): string {
  reportCounter += 1;
  return `7d0c8f0e-0f6b-4c55-9a53-${reportCounter.toString(16).padStart(12, '0')}`;
}

export function candidateBody(overrides: Record<string, unknown> = {}) {
  return {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    candidate_id: 17,
    company_id: 3,
    report_id: reportId(),
    test_id: '1',
    test_name: 'JavaScript',
    ...overrides,
  };
}

/**
 * Puts an invitation in a status directly, as the arrangement of a test (say, a candidate who has
 * already finished). The app only changes status through the lifecycle, which also queues the
 * report update; this deliberately does not.
 */
export async function arrangeStatus(sql: Sql, reportId: string, status: 'sent' | 'completed' | 'failed' | 'canceled'): Promise<void> {
  await sql.run('UPDATE invitations SET status = $1 WHERE report_id = $2', [status, reportId]);
}

/**
 * Counts the runs of statements that read account_tokens, for stores created on `db` from now on:
 * `db.prepare` hands out statements whose get/all/iterate count themselves first.
 */
export function countTokenLookups(db: Db): { count: number } {
  const seen = { count: 0 };
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source) as Statement;
    if (!/\baccount_tokens\b/.test(source)) return statement;
    for (const method of ['get', 'all', 'iterate'] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        seen.count += 1;
        return original(...args);
      };
    }
    return statement;
  }) as Db['prepare'];
  return seen;
}
