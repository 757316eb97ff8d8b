import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Express } from 'express';
import type { Clock } from '../../src/lib/clock.js';
import type { Db } from '../../src/lib/db.js';
import { createLogger } from '../../src/lib/http/logger.js';
import { createMockPlatform } from '../../src/mock-platform/app.js';
import { openMockDb } from '../../src/mock-platform/db.js';
import { seedApiTokens, seedCompanies } from '../../src/mock-platform/seed.js';

export const ACME = { id: 1, token: 'mock_api_acme' } as const;
export const GLOBEX = { id: 2, token: 'mock_api_globex' } as const;
/** Seeded candidates of Acme: Ada has a phone, Alan has none. */
export const ADA = 17;
export const ALAN = 18;
export const EDSGER = 31;

export interface FakeClock extends Clock {
  advance(ms: number): void;
}

export function fakeClock(start = Date.parse('2026-01-05T09:00:00.000Z')): FakeClock {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** A seeded mock platform app, for supertest. */
export function mockPlatform(options: { callbackTimeoutMs?: number } = {}): { app: Express; db: Db; clock: FakeClock } {
  const clock = fakeClock();
  const db = openMockDb(':memory:');
  seedCompanies(db, clock);
  seedApiTokens(db, clock);
  const app = createMockPlatform({ db, clock, logger: createLogger('silent'), callbackTimeoutMs: options.callbackTimeoutMs });
  return { app, db, clock };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

type Handler = (req: ReceivedRequest, res: ServerResponse) => void;

/**
 * A partner stand-in: a real HTTP server whose answer per path a test sets, recording every
 * request it receives. Unset paths answer 200 `{}`, except /tests, which answers an empty list.
 */
export async function stubPartner() {
  const received: ReceivedRequest[] = [];
  const handlers = new Map<string, Handler>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as unknown) : undefined;
      const r: ReceivedRequest = { method: req.method!, path: req.url!, headers: req.headers, body };
      received.push(r);
      const handler = handlers.get(r.path) ?? ((_r, response) => json(response, 200, r.path === '/tests' ? [] : {}));
      handler(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    urls: {
      help_article: `${url}/help`,
      validate_token: `${url}/validate_token`,
      tests: `${url}/tests`,
      send_candidate: `${url}/send_candidate`,
    },
    on(path: string, handler: Handler) {
      handlers.set(path, handler);
    },
    /** Answer `path` with `status` and a JSON body. */
    answer(path: string, status: number, body: unknown) {
      handlers.set(path, (_r, res) => json(res, status, body));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type StubPartner = Awaited<ReturnType<typeof stubPartner>>;

export function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The four callback and link URLs a partner registers (§3.1); all required. */
export interface PartnerUrls {
  help_article: string;
  validate_token: string;
  tests: string;
  send_candidate: string;
}

export function partnerBody(urls: PartnerUrls, extra: Record<string, unknown> = {}) {
  return { kind: 'assessment', name: 'Skill Check', description: 'Coding tests', urls, ...extra };
}

/** Registers a partner for Acme through the partners API; returns its secret. */
export async function register(
  app: Express,
  codename: string,
  urls: PartnerUrls,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await request(app)
    .post(`/api/p/${codename}/c/${ACME.id}/partner`)
    .set('authorization', `Bearer ${ACME.token}`)
    .send(partnerBody(urls, extra))
    .expect(201);
  return (res.body as { partner: { secret: string } }).partner.secret;
}

/** Integrates a company with the partner (the stub must accept validate_token). */
export async function integrate(app: Express, companyId: number, codename: string, token = 'ptk_customer_token_0001') {
  await request(app)
    .post(`/api/marketplace/c/${companyId}/partners/${codename}/integration`)
    .send({ token })
    .expect((res) => {
      if (res.status !== 201 && res.status !== 200) throw new Error(`integrate answered ${res.status}: ${res.text}`);
    });
}

/** Sends a test through the marketplace; returns the created report. */
export async function send(app: Express, codename: string, body: Record<string, unknown> = {}) {
  const res = await request(app)
    .post(`/api/marketplace/c/${ACME.id}/partners/${codename}/send`)
    .send({ candidate_id: ADA, test_id: 2, test_name: 'Ruby', ...body })
    .expect(201);
  return (res.body as { report: { id: string } }).report;
}
