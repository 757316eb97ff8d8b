import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import request from 'supertest';
import { Agent, type Dispatcher } from 'undici';
import { loadConfig, type Config } from '../../src/partner/config.js';
import type { PartnerKind } from '../../src/contract/decisions.js';
import type { Db } from '../../src/partner/db/open.js';
import type { Sql } from '../../src/lib/sql.js';
import { discardDatabase, freshDatabase, openTestDatabase, rowOf, rowsOf, sqliteOf } from '../support/database.js';
import { createLogger, type Logger } from '../../src/lib/http/logger.js';
import { createMailer, type Mailer } from '../../src/partner/mail/transport.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import type { DeliveryTimeouts } from '../../src/partner/updates/worker.js';
import type { ProviderSource } from '../../src/partner/provider/types.js';
import { assemble } from '../../src/partner/assemble.js';
import { demoProvider } from '../../src/partner/provider/demo/index.js';
import { fakeClock } from '../support/partner.js';
import { platformsOf, type PlatformDefinition } from '../../src/partner/platforms/index.js';

export const ADMIN = { username: 'operator', password: 'tulip ledger orbit 31' } as const;
export const LINK_SECRET = 'test-link-secret-0123456789abcdefghijklmnop';
/** Short enough that a test waiting for a timeout is quick, long enough for a loaded CI machine. */
export const TEST_TIMEOUTS: DeliveryTimeouts = { connectMs: 1000, headersMs: 400, bodyMs: 400 };

export interface PlatformTarget {
  url: string;
  codename: string;
  secret?: string;
}

export interface FlowOptions {
  kind?: PartnerKind;
  /**
   * The platform the worker delivers to; unset: a URL nothing listens on. A function is called with
   * the partner's URL once it listens (to register the partner there first).
   */
  platform?: PlatformTarget | ((partnerUrl: string) => Promise<PlatformTarget>);
  /** Listen on a port (the mock calls the partner's callbacks); otherwise supertest only. */
  listen?: boolean;
  /** Reopen an existing partner database (a restart): the `database` of the harness before. */
  database?: { DATABASE_PATH: string; DATABASE_URL?: string };
  env?: Record<string, string>;
  dispatcher?: Dispatcher;
  random?: () => number;
  /** Wraps the configured mailer, to watch or slow down what it sends. */
  mailer?: (configured: Mailer) => Mailer;
  /** The vendor's product; the demo provider when not given. */
  provider?: ProviderSource;
  /** Where the partner logs (silent when not given). */
  logger?: Logger;
  /** Platforms besides the kit's, as a fork's `src/provider/index.ts` exports them. */
  platforms?: readonly PlatformDefinition[];
}

/**
 * The partner as `server.ts` assembles it, over a real SQLite file and the JSON mail transport, with a
 * fake clock and the workers driven by hand (`runOnce`), so retry schedules run instantly.
 */
export async function flowHarness(options: FlowOptions = {}) {
  // A restart reopens the folder of the harness before, and deletes it unless it keeps the files too.
  const dir = options.database ? path.dirname(options.database.DATABASE_PATH) : mkdtempSync(path.join(tmpdir(), 'partner-flow-'));
  const settings = options.database ?? (await freshDatabase(dir, options.provider ? 'kit' : 'demo'));
  const dbFile = settings.DATABASE_PATH;
  const clock = fakeClock();
  let server: Server | undefined;
  let publicUrl = 'http://partner.test';
  if (options.listen) {
    server = createServer();
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    publicUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }
  const platform = typeof options.platform === 'function' ? await options.platform(publicUrl) : options.platform;
  const config: Config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    ...settings,
    PUBLIC_URL: publicUrl,
    CANDIDATE_LINK_SECRET: LINK_SECRET,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    PARTNER_KIND: options.kind ?? 'assessment',
    PLATFORM_URL: platform?.url ?? 'http://127.0.0.1:9',
    PARTNER_CODENAME: platform?.codename ?? 'demo-assessments',
    ...(platform?.secret !== undefined && { PARTNER_SECRET: platform.secret }),
    ...options.env,
  }, platformsOf({ platforms: options.platforms }));
  const ownAgent = options.dispatcher
    ? undefined
    : new Agent({ connect: { timeout: TEST_TIMEOUTS.connectMs }, headersTimeout: TEST_TIMEOUTS.headersMs, bodyTimeout: TEST_TIMEOUTS.bodyMs });
  let wakes = 0;
  const mailer = (options.mailer ?? ((m: Mailer) => m))(createMailer(config.mail));
  const database = await openTestDatabase(config);
  const { sql } = database;
  const parts = await assemble(config, {
    sql,
    logger: options.logger ?? createLogger('silent'),
    clock,
    publicUrl,
    mailer,
    dispatcher: options.dispatcher ?? ownAgent!,
    provider: options.provider ?? demoProvider(),
    platforms: platformsOf({ platforms: options.platforms }),
    deliveryTimeouts: TEST_TIMEOUTS,
    random: options.random ?? (() => 1),
    wake: () => {
      wakes += 1;
    },
  });
  server?.on('request', parts.app);
  const { accounts } = parts;

  const h = {
    ...parts,
    sql,
    /** The SQLite connection (SQLite only: a test that reads it runs on SQLite only). */
    get db(): Db {
      return sqliteOf(sql);
    },
    /** Where this partner's data is: a restart passes it as `database`. */
    database: settings,
    dbFile,
    dir,
    clock,
    config,
    publicUrl,
    accounts,
    wakes: () => wakes,
    /** Requests as a browser at PUBLIC_URL sends them: `Host` is the public URL's (the dashboard checks it). */
    http: () => request.agent(parts.app).set('Host', new URL(publicUrl).host),

    /** A customer account with tests, bound to `companyId` (null: not connected yet). */
    async customer(name = 'Acme', tests: string[] = ['JavaScript fundamentals'], companyId: number | null = 3) {
      const { account, token } = await accounts.create(name);
      const added = await sql.transaction((tx) => addDemoTests(tx, clock, account.id, tests));
      if (companyId !== null) await accounts.bindCompany(account, companyId);
      return { accountId: account.id, token, tests: added };
    },

    /** send_candidate as the platform calls it. */
    send(token: string, body: Record<string, unknown>) {
      return request(parts.app).post('/callbacks/send_candidate').set('Authorization', `Bearer ${token}`).send(body);
    },

    /**
     * Starts what is due and sends the e-mails that may go. An invitation e-mail waits until the
     * platform has accepted the report's first update: with a `platform`, the delivery worker gets
     * it there (`deliverUntilIdle`), so this sends none of the new ones; without one, the platform
     * is stood in for, and accepts every started report (`platformAccepts`).
     */
    async startAndMail() {
      await parts.starter.runOnce();
      if (!platform) await h.platformAccepts();
      return parts.sender.runOnce();
    },

    /**
     * For a harness with no platform: what the delivery worker records when the platform answers
     * 2xx to a report's first update, for every started report it has not accepted yet.
     */
    async platformAccepts() {
      const started = await sql.all<{ report_id: string }>(
        'SELECT report_id FROM invitations WHERE started_at IS NOT NULL AND platform_accepted_at IS NULL ORDER BY id',
      );
      await sql.transaction(async (tx) => {
        for (const { report_id } of started) await parts.lifecycle.platformAnswered(tx, report_id, { accepted: true });
      });
    },

    /**
     * Runs the delivery worker until nothing is pending, moving the fake clock to each next due
     * time (as the real loop would wait). Returns the clock times at which it ran.
     */
    async deliverUntilIdle(maxRounds = 200): Promise<number[]> {
      const rounds: number[] = [];
      for (let i = 0; i < maxRounds; i++) {
        rounds.push(clock.now());
        await parts.worker.runOnce();
        const next = await parts.worker.nextDueAt();
        if (next === undefined) return rounds;
        clock.set(Math.max(clock.now(), Date.parse(next)));
      }
      throw new Error(`deliveries still pending after ${maxRounds} rounds`);
    },

    /** The e-mails the JSON transport rendered, as stored in the database's mail outbox, oldest first. */
    mails(): Promise<StoredMail[]> {
      return storedMails(sql);
    },

    /** One row of a query of the test's own (`?` placeholders), on whichever database. */
    row(text: string, ...params: unknown[]) {
      return rowOf(sql, text, ...params);
    },
    rows(text: string, ...params: unknown[]) {
      return rowsOf(sql, text, ...params);
    },

    async close(options: { keepFiles?: boolean } = {}) {
      if (server) await new Promise((resolve) => server!.close(resolve));
      mailer.close();
      await ownAgent?.close();
      if (options.keepFiles) await database.close();
      else await discardDatabase(database, settings, dir);
    },
  };
  return h;
}
export type FlowHarness = Awaited<ReturnType<typeof flowHarness>>;

/**
 * The e-mails the JSON transport rendered, read from the mail outbox of a partner database (an open
 * connection or the file's path), oldest first, parsed as nodemailer renders them.
 */
export interface StoredMail {
  from: { address: string; name?: string };
  to: { address: string; name?: string }[];
  subject: string;
  text: string;
  html: string;
}

export async function storedMails(from: Sql | string): Promise<StoredMail[]> {
  const query = 'SELECT message FROM mail_outbox WHERE message IS NOT NULL ORDER BY id';
  if (typeof from !== 'string') return (await from.all<{ message: string }>(query)).map((r) => JSON.parse(r.message));
  const db = new Database(from, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(query).pluck().all() as string[]).map((m) => JSON.parse(m));
  } finally {
    db.close();
  }
}

/** The candidate link in an e-mail's text. */
export function linkIn(text: string): string {
  const m = /(https?:\/\/\S+\/take\?token=[\w.-]+)/.exec(text);
  if (!m) throw new Error(`no candidate link in:\n${text}`);
  return m[1]!;
}

/** The path and query of a URL, for supertest. */
export const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

let n = 0;
export function sendBody(testId: number | string, overrides: Record<string, unknown> = {}) {
  n += 1;
  return {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    candidate_id: 17,
    company_id: 3,
    report_id: `5e1f0c2a-0000-4000-8000-${(Date.now() % 1e6).toString(16).padStart(6, '0')}${n.toString(16).padStart(6, '0')}`,
    test_id: String(testId),
    test_name: 'whatever the platform calls it',
    ...overrides,
  };
}
