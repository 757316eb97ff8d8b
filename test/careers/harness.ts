import express, { type Express } from 'express';
import helmet from 'helmet';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { Clock } from '../../src/lib/clock.js';
import type { WebhookEventType } from '../../src/contract/decisions.js';
import type { Db } from '../../src/lib/db.js';
import { errorHandler, notFoundHandler } from '../../src/lib/http/error-handler.js';
import { createLogger } from '../../src/lib/http/logger.js';
import { seedCareers } from '../../src/mock-platform/careers/seed.js';
import { careersRouter } from '../../src/mock-platform/careers/routes.js';
import { openMockDb } from '../../src/mock-platform/db.js';
import type { PlatformEvents } from '../../src/mock-platform/events.js';
import { mailLog, type MailLog } from '../../src/mock-platform/mail.js';
import { seedCompanies } from '../../src/mock-platform/seed.js';
import { eventually } from '../support/eventually.js';

export const PUBLIC_URL = 'http://mock.test';
export const NOW = Date.parse('2026-11-01T09:00:00Z');

export interface RecordedEvent {
  companyId: number;
  eventType: WebhookEventType;
  eventSubtype: string;
  payload: Record<string, unknown>;
}

export interface CareersHarness {
  app: Express;
  db: Db;
  mail: MailLog;
  events: RecordedEvent[];
  uploadsDir: string;
  /** Every file under the uploads directory (incoming and stored), relative to it. */
  filesOnDisk(): string[];
  count(table: string): number;
  /** Waits for files still being attached (applications without ?async=true), then cleans up. */
  close(): Promise<void>;
}

/**
 * The careers router on a bare Express app, as the mock platform mounts it: helmet in front, the
 * shared error handler behind, a fresh seeded in-memory database, a temp uploads directory and an
 * events hook that records what it is told.
 */
export function careersHarness(options: { events?: PlatformEvents } = {}): CareersHarness {
  const clock: Clock = { now: () => NOW };
  const db = openMockDb(':memory:');
  seedCompanies(db, clock);
  seedCareers(db, clock);
  const uploadsDir = mkdtempSync(path.join(tmpdir(), 'careers-test-'));
  const mail = mailLog(db, clock);
  const events: RecordedEvent[] = [];
  const recorder: PlatformEvents = {
    emit(companyId, eventType, eventSubtype, payload) {
      events.push({ companyId, eventType, eventSubtype, payload });
    },
  };
  const logger = createLogger('silent');

  const app = express();
  app.use(helmet());
  app.use(
    '/careers/:subdomain',
    careersRouter({ db, clock, mail, events: options.events ?? recorder, uploadsDir, publicUrl: PUBLIC_URL, logger }),
  );
  app.use(notFoundHandler);
  app.use(errorHandler(logger));

  return {
    app,
    db,
    mail,
    events,
    uploadsDir,
    filesOnDisk: () => listFiles(uploadsDir),
    count: (table) => db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()!.n,
    async close() {
      const processing = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM uploaded_files WHERE status = 'processing'");
      await eventually(() => expect(processing.get()!.n).toBe(0), { what: 'uploads still processing to finish' });
      db.close();
      rmSync(uploadsDir, { recursive: true, force: true });
    },
  };
}


function listFiles(root: string, dir = root): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? listFiles(root, full) : [path.relative(root, full).split(path.sep).join('/')];
  });
}
