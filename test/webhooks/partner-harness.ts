import { DEFAULT_JOB_LEASE_MS } from '../../src/partner/jobs/lease.js';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { accountStore, type AccountStore } from '../../src/partner/accounts/store.js';
import { signWebhookBody } from '../../src/contract/signature.js';
import type { Db } from '../../src/partner/db/open.js';
import type { Sql } from '../../src/lib/sql.js';
import { discardDatabase, freshDatabase, openTestDatabase, rowOf, rowsOf, sqliteOf } from '../support/database.js';
import { errorHandler, notFoundHandler } from '../../src/lib/http/error-handler.js';
import { createLogger, type Logger } from '../../src/lib/http/logger.js';
import { invitationLifecycle } from '../../src/partner/invitations/lifecycle.js';
import { invitationStore, type InvitationStore } from '../../src/partner/invitations/store.js';
import { mailOutbox } from '../../src/partner/mail/outbox.js';
import { updateOutbox, type UpdateOutbox } from '../../src/partner/updates/outbox.js';
import type { WebhookHandler } from '../../src/partner/platforms/hiring-platform/webhooks/handlers/index.js';
import { webhookProcessor, type WebhookProcessor } from '../../src/partner/platforms/hiring-platform/webhooks/processor.js';
import { registerWebhookReceiver } from '../../src/partner/platforms/hiring-platform/webhooks/receiver.js';
import { fakeClock, type FakeClock } from './mock-harness.js';

export const COMPANY = 1;
export const SECRET = 'partner-side-secret-0123456789';
export const PREVIOUS_SECRET = 'previous-secret-before-rotation';

export interface PartnerWebhooks {
  app: Express;
  sql: Sql;
  /** The SQLite connection (SQLite only: a test that reads it runs on SQLite only). */
  readonly db: Db;
  /** One row of a query of the test's own (`?` placeholders), on whichever database. */
  row(text: string, ...params: unknown[]): Promise<Record<string, unknown> | undefined>;
  rows(text: string, ...params: unknown[]): Promise<Record<string, unknown>[]>;
  clock: FakeClock;
  accounts: AccountStore;
  invitations: InvitationStore;
  updates: UpdateOutbox;
  processor: WebhookProcessor;
  /** The secrets the receiver uses, by company; tests change them (a rotation). */
  secrets: Map<number, string[]>;
  /** Events the receiver stored, counted by the onStored hook. */
  stored: () => number;
  /** An account bound to `companyId` with a pending invitation for each candidate id; returns the report ids. */
  invite(companyId: number, candidateIds: number[], accountName?: string): Promise<string[]>;
  close(): Promise<void>;
}

let reportCounter = 0;
const nextReportId = () => `00000000-0000-4000-8000-${(++reportCounter).toString(16).padStart(12, '0')}`;

/**
 * The partner's webhook half on a fresh SQLite file: the receiver on an Express app as the
 * partner's createApp would mount it, and the processor wired to the kit's real cancel
 * (`invitationLifecycle.cancel`, which queues the report update).
 */
export async function partnerWebhooks(
  options: { handlers?: Record<string, WebhookHandler>; bodyLimitBytes?: number; logger?: Logger } = {},
): Promise<PartnerWebhooks> {
  const dir = mkdtempSync(path.join(tmpdir(), 'partner-webhooks-'));
  const settings = await freshDatabase(dir);
  const database = await openTestDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL });
  const { sql } = database;
  const clock = fakeClock(Date.parse('2026-03-02T08:00:00.000Z'));
  const logger = options.logger ?? createLogger('silent');
  const accounts = accountStore(sql, clock);
  const invitations = invitationStore(sql, clock);
  const updates = updateOutbox(sql, clock);
  const lifecycle = invitationLifecycle({ sql, clock, updates, mail: mailOutbox(sql, clock) });
  const secrets = new Map<number, string[]>([[COMPANY, [SECRET]]]);
  let stored = 0;

  const app = express();
  app.use(helmet());
  registerWebhookReceiver(app, {
    sql,
    clock,
    logger,
    secrets: (companyId) => secrets.get(companyId) ?? [],
    bodyLimitBytes: options.bodyLimitBytes ?? 256 * 1024,
    onStored: () => void (stored += 1),
  });
  app.use(notFoundHandler);
  app.use(errorHandler(logger));

  const processor = webhookProcessor({
    sql,
    clock,
    logger,
    handlers: options.handlers,
    cancelInvitation: (reportId) => lifecycle.cancel(reportId, 'platform'),
    leaseMs: DEFAULT_JOB_LEASE_MS,
  });

  return {
    app,
    sql,
    get db() {
      return sqliteOf(sql);
    },
    row: (text, ...params) => rowOf(sql, text, ...params),
    rows: (text, ...params) => rowsOf(sql, text, ...params),
    clock,
    accounts,
    invitations,
    updates,
    processor,
    secrets,
    stored: () => stored,
    async invite(companyId, candidateIds, accountName = `Customer of company ${companyId}`) {
      const { account } = await accounts.create(accountName);
      await accounts.bindCompany(account, companyId);
      const reportIds: string[] = [];
      for (const candidateId of candidateIds) {
        const reportId = nextReportId();
        await invitations.create({
          reportId,
          accountId: account.id,
          companyId,
          candidateId,
          testId: '1',
          testName: 'JavaScript',
          firstName: 'Ada',
          lastName: 'Lovelace',
          email: `candidate-${candidateId}@example.com`,
          phone: '+44 20 7946 0000',
          extraInputs: { admin: { id: 1, name: 'Riley Recruiter', email: 'riley@acme.example' } },
          platform: 'hiring-platform',
          platformData: {},
        });
        reportIds.push(reportId);
      }
      return reportIds;
    },
    close: () => discardDatabase(database, settings, dir),
  };
}

let eventCounter = 1000;
/** A fresh event id per call. */
export const nextEventId = () => ++eventCounter;

/** An event envelope as the platform sends it (compact JSON). */
export function envelope(overrides: {
  id?: number;
  attempt_count?: number;
  event_type?: string;
  event_subtype?: string;
  payload?: Record<string, unknown>;
  companyId?: number;
}): string {
  const companyId = overrides.companyId ?? COMPANY;
  return JSON.stringify({
    id: overrides.id ?? nextEventId(),
    attempt_count: overrides.attempt_count ?? 1,
    created_at: '2026-03-02T07:59:00.000Z',
    event_type: overrides.event_type ?? 'offer_published',
    event_subtype: overrides.event_subtype ?? 'manual',
    payload: overrides.payload ?? { company: { id: companyId, name: 'Acme Corp' }, offer: { id: 101, title: 'Senior Backend Engineer' } },
  });
}

/** Headers of a delivery of `body` signed with `secret`. */
export function signed(body: string | Buffer, secret = SECRET): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Service-Webhooks',
    'x-service-signature': signWebhookBody(secret, body),
  };
}

export function candidateEvent(eventType: string, eventSubtype: string, candidateId: number, extra: Record<string, unknown> = {}, id?: number) {
  return envelope({
    id,
    event_type: eventType,
    event_subtype: eventSubtype,
    payload: {
      candidate: { id: candidateId, name: 'Ada Lovelace', emails: ['ada@example.com'], phones: [] },
      company: { id: COMPANY, name: 'Acme Corp' },
      ...extra,
    },
  });
}
