import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { request } from 'undici';
import { verifyVendorSignature } from '../../src/contract/vendor-signature.js';

/**
 * A HiBob assessment partner written from docs/hibob.md alone, on Express, for the conformance
 * checker to judge: the OAuth callback under `<url>/hibob` (the code exchanged at Bob's token URL,
 * form-encoded, the app's client id and secret in the form; the company's catalog registered with
 * its token), the listener (Bob-Signature checked, each event stored once per assessment request
 * and type, handled after the answer, one after another), the details read with the company's
 * token, refreshed before it expires and after a 401; the kit's results endpoint
 * (`POST /vendor/reports/{id}/result`, signed with FAKE_RESULTS_SECRET), after which it PATCHes
 * the order's status, score and https result link. `setUp` tells it where Bob is and the app's
 * credentials, as its settings would.
 *
 * Each fault makes it wrong in one way: `acceptsUnsigned` (a delivery without Bob-Signature is
 * taken as a signed one), `actsTwice` (a duplicate delivery is handled again), `neverRefreshes`
 * (the install's tokens are used until Bob refuses them), `ignoresCancel` (Bob's cancel changes
 * nothing: the result still goes to Bob), `cancelsAnyCompany` (a cancel finds the order whoever's
 * it is).
 */
export interface HibobFaults {
  acceptsUnsigned?: boolean;
  actsTwice?: boolean;
  neverRefreshes?: boolean;
  ignoresCancel?: boolean;
  cancelsAnyCompany?: boolean;
}

export const FAKE_RESULTS_SECRET = 'fake-hibob-partner-results-secret-0123456789';

/** Every company's catalog: the packages its account has. */
const PACKAGES = [
  { id: 'pkg-js', name: 'JavaScript' },
  { id: 'pkg-sql', name: 'SQL', description: 'Queries and joins' },
];

/** A token a refresh is made before: when less than this is left. */
const REFRESH_MARGIN_MS = 10_000;

interface Settings {
  apiUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
}

interface Tokens {
  access: string;
  refresh: string;
  expiresAt: number;
}

interface Order {
  company: string;
  status: 'sent' | 'canceled' | 'complete';
}

const page = (title: string) => `<!doctype html><title>${title}</title><h1>${title}</h1>`;

export async function startHibobPartner(faults: HibobFaults = {}, options: { packages?: { id: string; name: string }[] } = {}) {
  let bob: Settings | undefined;
  const companies = new Map<string, Tokens>();
  const seen = new Set<string>();
  const orders = new Map<string, Order>();
  /** Cancels of orders not made yet, by company: their trigger makes none. */
  const early = new Set<string>();
  /** Bob's events, handled one after another in the order they came. */
  let handling: Promise<unknown> = Promise.resolve();
  const packages = options.packages ?? PACKAGES;

  async function grant(form: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await request(bob!.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form, client_id: bob!.clientId, client_secret: bob!.clientSecret }).toString(),
    });
    return { status: res.statusCode, json: (await res.body.json().catch(() => ({}))) as Record<string, unknown> };
  }

  const keep = (company: string, json: Record<string, unknown>) => {
    const before = companies.get(company);
    companies.set(company, {
      access: String(json.access_token),
      refresh: typeof json.refresh_token === 'string' ? json.refresh_token : before!.refresh,
      expiresAt: Date.now() + Number(json.expires_in ?? 3600) * 1000,
    });
  };

  async function refresh(company: string): Promise<void> {
    const { status, json } = await grant({ grant_type: 'refresh_token', refresh_token: companies.get(company)!.refresh });
    if (status === 200) keep(company, json);
  }

  /** A call to Bob's API with the company's token: refreshed first when it runs out, and again after a 401. */
  async function callBob(company: string, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) {
    const send = async () => {
      const res = await request(`${bob!.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${companies.get(company)!.access}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await res.body.text();
      return { status: res.statusCode, text };
    };
    if (!faults.neverRefreshes && companies.get(company)!.expiresAt - REFRESH_MARGIN_MS <= Date.now()) await refresh(company);
    let answer = await send();
    if (answer.status === 401 && !faults.neverRefreshes) {
      await refresh(company);
      answer = await send();
    }
    return answer;
  }

  async function handle(event: { companyId: string; type: string; data: { assessmentRequestId: string } }): Promise<void> {
    const id = event.data.assessmentRequestId;
    const company = event.companyId;
    if (!companies.has(company)) return;
    if (event.type === 'assessment.triggered') {
      if (early.has(`${company} ${id}`)) return;
      const read = await callBob(company, 'GET', `/hiring/assessments/${encodeURIComponent(id)}`);
      if (read.status === 200) orders.set(id, { company, status: 'sent' });
    } else if (event.type === 'assessment.cancelled') {
      const order = orders.get(id);
      if (!order) early.add(`${company} ${id}`);
      else if ((order.company === company || faults.cancelsAnyCompany) && !faults.ignoresCancel && order.status === 'sent') order.status = 'canceled';
    }
  }

  const app = express();
  app.get('/hibob/oauth/callback', async (req, res) => {
    const code = typeof req.query.code === 'string' ? req.query.code : undefined;
    if (!code || !bob) return void res.status(400).type('html').send(page('This install link is not valid'));
    const { status, json } = await grant({ grant_type: 'authorization_code', code, redirect_uri: `${url}/hibob/oauth/callback` });
    if (status !== 200) return void res.status(400).type('html').send(page('This install link has expired'));
    const company = String(json.companyId ?? req.query.companyId);
    keep(company, json);
    await callBob(company, 'POST', '/hiring/assessments/packages', { packages });
    res.type('html').send(page('Installed'));
  });
  app.post('/hibob/webhooks', express.raw({ type: () => true }), (req, res) => {
    const raw = req.body as Buffer;
    const signature = req.headers['bob-signature'];
    if (signature === undefined ? !faults.acceptsUnsigned : typeof signature !== 'string' || !signedBy(bob!.webhookSecret, raw, signature)) {
      return void res.status(401).json({ error: 'Invalid signature' });
    }
    const event = JSON.parse(raw.toString('utf8')) as Parameters<typeof handle>[0];
    const key = `${event.type} ${event.data.assessmentRequestId}`;
    if (seen.has(key) && !faults.actsTwice) return void res.json({ ok: true, duplicate: true });
    seen.add(key);
    res.json({ ok: true });
    handling = handling.then(() => handle(event)).catch(() => {});
  });
  app.post('/vendor/reports/:id/result', express.raw({ type: 'application/json' }), async (req, res) => {
    const id = req.params.id;
    const signed = verifyVendorSignature(FAKE_RESULTS_SECRET, id, req.body as Buffer, req.headers['x-vendor-signature'], Date.now());
    if (!signed.ok) return void res.status(401).json({ error: 'Invalid signature' });
    const order = orders.get(id);
    if (!order) return void res.status(404).json({ error: 'Unknown report' });
    if (order.status !== 'sent') return void res.status(409).json({ error: `Report was ${order.status}` });
    const result = JSON.parse((req.body as Buffer).toString('utf8')) as { status: string; score?: string; subtitle?: string };
    if (result.status !== 'completed') return void res.status(422).json({ error: 'Unsupported status' });
    order.status = 'complete';
    const score = Number.parseFloat(result.score ?? '');
    await callBob(order.company, 'PATCH', `/hiring/assessments/${encodeURIComponent(id)}`, {
      status: 'completed',
      ...(Number.isFinite(score) && { score }),
      resultUrl: `https://partner.example/results/${id}`,
      ...(result.subtitle && { verdict: result.subtitle }),
    });
    res.json({ id, status: result.status });
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    /** Its HiBob base: where the checker finds the callback and the listener. */
    baseUrl: `${url}/hibob`,
    orders,
    /** Its settings: where Bob's token URL and API are, the app's credentials and the webhook secret. */
    setUp(settings: Settings) {
      bob = { apiUrl: settings.apiUrl, tokenUrl: settings.tokenUrl, clientId: settings.clientId, clientSecret: settings.clientSecret, webhookSecret: settings.webhookSecret };
    },
    async close() {
      await handling;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** `Bob-Signature`: the Base64 of the HMAC-SHA512 of the raw body, compared in constant time. */
function signedBy(secret: string, raw: Buffer, signature: string): boolean {
  const expected = createHmac('sha512', secret).update(raw).digest();
  const given = Buffer.from(signature.trim(), 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
