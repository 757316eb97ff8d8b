import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Express } from 'express';
import type { Db } from '../../src/lib/db.js';
import { createLogger } from '../../src/lib/http/logger.js';
import { createMockPlatform } from '../../src/mock-platform/app.js';
import { seedCareers } from '../../src/mock-platform/careers/seed.js';
import { seedPlacements } from '../../src/mock-platform/companies/seed-placements.js';
import { openMockDb } from '../../src/mock-platform/db.js';
import { mailLog } from '../../src/mock-platform/mail.js';
import { seedApiTokens, seedCompanies } from '../../src/mock-platform/seed.js';
import { mockWebhooks, type MockWebhooks } from '../../src/mock-platform/webhooks/index.js';

export const ACME = 1;
export const GLOBEX = 2;
/** Acme's members: Riley may manage webhooks, Hana may not. Gus manages Globex's. */
export const RILEY = 1;
export const HANA = 2;
export const GUS = 3;
/** Ada is in "Applied" for Senior Backend Engineer (101); Edsger in "Applied" for Warehouse Operator (201). */
export const ADA = 17;
export const EDSGER = 31;
export const BACKEND_OFFER = 101;
export const WAREHOUSE_OFFER = 201;

export const START = Date.parse('2026-03-02T08:00:00.000Z');

export interface FakeClock {
  now(): number;
  advance(ms: number): void;
  set(ms: number): void;
}

export function fakeClock(start = START): FakeClock {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms), set: (ms) => void (t = ms) };
}

export interface WebhookPlatform {
  app: Express;
  db: Db;
  clock: FakeClock;
  webhooks: MockWebhooks;
  mail: ReturnType<typeof mailLog>;
  /** Secrets handed out, in order (the generator is deterministic here). */
  secrets: string[];
  /** Supertest with the acting member's header. */
  as(userId: number): {
    get(path: string): request.Test;
    post(path: string): request.Test;
    patch(path: string): request.Test;
    delete(path: string): request.Test;
  };
  /** Creates a configuration for `companyId` acting as `userId`; returns it (secret included). */
  configure(
    companyId: number,
    userId: number,
    body: { name?: string; url: string; events?: string[]; notify_user_ids?: number[] },
  ): Promise<{ id: number; secret: string; events: string[] }>;
  /** The pipeline API (unauthenticated). */
  pipeline(method: 'post' | 'patch' | 'put' | 'delete', path: string, body?: unknown): Promise<request.Response>;
}

/** A seeded mock platform (companies, careers, placements) whose webhook worker the test drives. */
export function webhookPlatform(options: { random?: () => number; timeoutMs?: number } = {}): WebhookPlatform {
  const clock = fakeClock();
  const db = openMockDb(':memory:');
  seedCompanies(db, clock);
  seedApiTokens(db, clock);
  seedCareers(db, clock);
  seedPlacements(db, clock);
  const logger = createLogger('silent');
  const mail = mailLog(db, clock);
  const secrets: string[] = [];
  const webhooks = mockWebhooks({
    db,
    clock,
    logger,
    mail,
    random: options.random,
    timeoutMs: options.timeoutMs,
    generateSecret: () => {
      const secret = `whsec-test-${secrets.length + 1}-${'k'.repeat(20)}`;
      secrets.push(secret);
      return secret;
    },
  });
  const app = createMockPlatform({ db, clock, logger, mail, webhooks });
  const as = (userId: number) => ({
    get: (path: string) => request(app).get(path).set('x-mock-user', String(userId)),
    post: (path: string) => request(app).post(path).set('x-mock-user', String(userId)),
    patch: (path: string) => request(app).patch(path).set('x-mock-user', String(userId)),
    delete: (path: string) => request(app).delete(path).set('x-mock-user', String(userId)),
  });
  return {
    app,
    db,
    clock,
    webhooks,
    mail,
    secrets,
    as,
    async configure(companyId, userId, body) {
      const res = await as(userId)
        .post(`/api/webhooks/c/${companyId}/configurations`)
        .send({ name: 'Partner', ...body });
      if (res.status !== 201) throw new Error(`configure answered ${res.status}: ${res.text}`);
      return (res.body as { webhook: { id: number; secret: string; events: string[] } }).webhook;
    },
    async pipeline(method, path, body) {
      const req = request(app)[method](`/api/pipeline/c/${path}`);
      return body === undefined ? req : req.send(body as object);
    },
  };
}

export interface Received {
  headers: IncomingHttpHeaders;
  /** The exact bytes received. */
  raw: Buffer;
  body: Record<string, unknown>;
  /** The platform's clock when the request arrived. */
  at: number;
}

/**
 * A webhook endpoint: a real HTTP server that records every request (raw bytes and headers). The
 * test request `{"test":true}` gets `testStatus` (200 unless set); everything else what `answer` or
 * `on` says — 200 unless told otherwise.
 */
export async function webhookEndpoint(clock: { now(): number }) {
  const received: Received[] = [];
  let respond: (req: Received, res: ServerResponse) => void = (_req, res) => void res.writeHead(200).end('ok');
  let testStatus = 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        // Recorded as received; the test looks at `raw`.
      }
      const r: Received = { headers: req.headers, raw, body, at: clock.now() };
      received.push(r);
      if (raw.toString('utf8') === '{"test":true}') res.writeHead(testStatus).end();
      else respond(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    /** Requests that were real events (not the test request). */
    events: () => received.filter((r) => !('test' in r.body)),
    answerTest(status: number) {
      testStatus = status;
    },
    answer(status: number, body = '') {
      respond = (_req, res) => void res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    },
    on(fn: (req: Received, res: ServerResponse) => void) {
      respond = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type WebhookEndpoint = Awaited<ReturnType<typeof webhookEndpoint>>;
