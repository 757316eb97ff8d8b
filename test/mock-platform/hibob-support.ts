import express from 'express';
import { EventEmitter, once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';

/** The Bob companies the mock seeds (Bob's ids), Vandelay's candidates, and the sandbox app's credentials. */
export const VANDELAY = '640213';
export const KRAMERICA = '731524';
export const BARBARA = 1;
export const EDSGER = 2;
export const RADIA = 3;
export const CLIENT_ID = 'bob-sandbox-app';
export const CLIENT_SECRET = 'bob-sandbox-client-secret-not-for-production';
export const WEBHOOK_SECRET = 'bob-sandbox-webhook-secret-not-for-production';
export const TOKEN_PATH = '/hibob/oauth2/v1/apps/token';
export const API = '/hibob/api/v1';

export interface ReceivedWebhook {
  signature: string | undefined;
  contentType: string | undefined;
  body: string;
}

/**
 * A vendor on a port of its own, as far as Bob meets it without its OAuth: its callback records
 * each install's query and answers `state.callbackStatus` (it exchanges nothing: the test does, at
 * the token URL), and its webhook listener records each delivery's exact bytes and signature and
 * answers `state.webhookStatus`. A test waits for the n-th of either (`installed`, `delivered`).
 */
export async function fakeVendor() {
  const installs: Record<string, string>[] = [];
  const webhooks: ReceivedWebhook[] = [];
  const state = { callbackStatus: 200, webhookStatus: 200 };
  const events = new EventEmitter();

  const app = express();
  app.get('/hibob/oauth/callback', (req, res) => {
    installs.push(req.query as Record<string, string>);
    events.emit('install');
    res.status(state.callbackStatus).type('html').send(`<!doctype html><title>${state.callbackStatus < 300 ? 'Installed' : 'This install link has expired'}</title>`);
  });
  app.post('/hibob/webhooks', express.raw({ type: () => true }), (req, res) => {
    webhooks.push({ signature: req.headers['bob-signature'] as string | undefined, contentType: req.headers['content-type'], body: (req.body as Buffer).toString('utf8') });
    events.emit('webhook');
    res.status(state.webhookStatus).json({ ok: state.webhookStatus < 300 });
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const upTo = async (list: unknown[], event: string, n: number) => {
    while (list.length < n) await once(events, event);
  };
  return {
    url,
    installs,
    webhooks,
    state,
    /** Resolves once `n` installs reached the callback. */
    installed: (n: number) => upTo(installs, 'install', n),
    /** Resolves once `n` webhook requests reached the listener. */
    delivered: (n: number) => upTo(webhooks, 'webhook', n),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type FakeVendor = Awaited<ReturnType<typeof fakeVendor>>;

/**
 * The mock, listening (its workers on unless told), with the vendor's app set to `vendor`'s URLs
 * and Vandelay's install made (`/_mock/platforms/hibob/connect`): the code Bob sent, not exchanged.
 */
export async function bobSandbox(vendor: FakeVendor, options: { workers?: boolean } = {}): Promise<{ mock: RunningMockPlatform; code: string }> {
  const mock = await startMockPlatform({ port: 0, logLevel: 'silent', webhookWorker: options.workers ?? false });
  await request(mock.url).post('/_mock/platforms/hibob/connect').send({ partner_url: vendor.url, partner_name: 'Skill Check', token: 'unused-by-bob' }).expect(200);
  return { mock, code: vendor.installs.at(-1)!.code! };
}

/** A token request as the vendor makes it: form-encoded, the client in the body unless told otherwise. */
export function tokenRequest(mock: RunningMockPlatform, form: Record<string, string>, client: 'body' | 'basic' | 'none' = 'body') {
  const req = request(mock.url).post(TOKEN_PATH).type('form');
  if (client === 'basic') req.set('authorization', `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`);
  return req.send(client === 'body' ? { ...form, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } : form);
}

/** The code's exchange: the company's tokens. */
export async function exchange(mock: RunningMockPlatform, code: string): Promise<{ access: string; refresh: string }> {
  const res = await tokenRequest(mock, { grant_type: 'authorization_code', code }).expect(200);
  return { access: res.body.access_token as string, refresh: res.body.refresh_token as string };
}

/** Kramerica's install from the marketplace page, as the browser follows it: the code in Bob's redirect. */
export async function installKramerica(mock: RunningMockPlatform): Promise<string> {
  const res = await request(mock.url).get(`/hibob/companies/${KRAMERICA}/marketplace/install`).expect(302);
  return new URL(res.headers.location!).searchParams.get('code')!;
}

/** An API call with a bearer token. */
export function api(mock: RunningMockPlatform, method: 'get' | 'post' | 'patch', path: string, token: string | undefined, body?: unknown) {
  const req = request(mock.url)[method](`${API}${path}`);
  if (token !== undefined) req.set('authorization', `Bearer ${token}`);
  return body === undefined ? req : req.send(body as object);
}

/** Registers packages for the token's company. */
export const register = (mock: RunningMockPlatform, token: string, packages: unknown[]) => api(mock, 'post', '/hiring/assessments/packages', token, { packages });

/** Orders the package for a candidate of Vandelay, as its recruiter does on the candidate's page; the flash shown. */
export async function order(mock: RunningMockPlatform, packageId: string, candidate = BARBARA): Promise<{ requestId: string; page: string }> {
  const res = await request(mock.url).post(`/hibob/companies/${VANDELAY}/candidates/${candidate}/assessments`).type('form').send({ package_id: packageId }).expect(303);
  const page = await request(mock.url).get(res.headers.location!).expect(200);
  const requestId = /assessmentRequestId (\d+)/.exec(page.text)?.[1];
  if (!requestId) throw new Error(`no assessmentRequestId on the page:\n${page.text}`);
  return { requestId, page: page.text };
}
