import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { signVendorResult, VENDOR_SIGNATURE_HEADER } from '../../../src/contract/vendor-signature.js';
import { dollars, freshDatabase } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { startKitPartner, type KitPartner } from '../../support/kit-partner.js';

/**
 * Where the PATCH may go (docs/greenhouse.md §4), over HTTP: send_test refuses a url the partner
 * must not reach, and a PATCH whose url or key no longer passes when the result comes (the server
 * now reachable from elsewhere, CANDIDATE_LINK_SECRET rotated) is a dead letter — and in every case
 * no request reaches the listener standing at that url.
 */
const RESULTS_SECRET = 'vendor-results-secret-0123456789abcdef';
const LINK_SECRET = 'test-link-secret-0123456789abcdefghijklmnop';
const PUBLIC = { PUBLIC_URL: 'https://partner.example.com', CANDIDATE_LINK_SECRET: LINK_SECRET, ADMIN_TOKEN: 'test-admin-token-0123456789abcdef' };
const basic = (user: string) => `Basic ${Buffer.from(`${user}:`, 'utf8').toString('base64')}`;

const opened: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
});

/** A listener that counts every request it gets. */
async function listener() {
  const received: string[] = [];
  const server: Server = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  opened.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

async function partnerWith(env: Record<string, string>, database?: KitPartner['database']): Promise<KitPartner & { at: string }> {
  const partner = await startKitPartner({ VENDOR_RESULTS_SECRET: RESULTS_SECRET, ...env }, database ? { database } : {});
  opened.push(partner);
  // A partner published elsewhere is still reached here, on loopback.
  return Object.assign(partner, { at: `http://127.0.0.1:${partner.port}` });
}

const body = (url: string, testId: number) => ({
  partner_test_id: testId,
  candidate: {
    first_name: 'Harry',
    last_name: 'Potter',
    preferred_name: null,
    email: 'hpotter@hogwarts.edu',
    greenhouse_profile_url: 'https://app.greenhouse.io/people/1',
  },
  url,
});

const count = async (partner: KitPartner) => Number((await partner.sql.get<{ n: number }>('SELECT count(*) AS n FROM invitations'))!.n);

describe('send_test on a partner reachable from other machines', () => {
  it.each([
    ['a loopback listener', (l: string) => `${l}/patch`, 'must not be a loopback address'],
    ['localhost with a final dot', (l: string) => `${l.replace('127.0.0.1', 'localhost.')}/patch`, 'must not be a loopback address'],
    ['127.0.0.1 written in decimal', (l: string) => `${l.replace('127.0.0.1', '2130706433')}/patch`, 'must not be a loopback address'],
    ['the metadata address', () => 'https://169.254.169.254/latest/meta-data', 'must be on greenhouse.io'],
    ['http on a Greenhouse host', () => 'http://app.greenhouse.io/x', 'must be an https URL'],
    ['an odd port on a Greenhouse host', () => 'https://app.greenhouse.io:8443/x', 'must use the default https port'],
    ['a user name before a Greenhouse host', () => 'https://app.greenhouse.io@evil.example/x', 'must not carry a user name or password'],
  ])('refuses %s: 422 naming url, nothing stored, no request made', async (_what, urlOf, reason) => {
    const l = await listener();
    const partner = await partnerWith(PUBLIC);
    const { token, tests } = await partner.customer('Acme Corp', ['JavaScript']);
    const res = await request(partner.at).post('/greenhouse/send_test').set('Authorization', basic(token)).send(body(urlOf(l.url), tests[0]!.id));
    expect(res.status).toBe(422);
    expect(res.body.errors.url).toEqual([expect.stringContaining(reason)]);
    expect(await count(partner)).toBe(0);
    expect(l.received).toEqual([]);
  });
});

describe('a PATCH that no longer passes when the result comes', () => {
  /** send_test on a loopback partner, then a restart over the same database with `env`, and a result. */
  async function resultAfterRestart(env: Record<string, string>) {
    const l = await listener();
    // One database for both starts, kept when the first stops.
    const dir = mkdtempSync(path.join(tmpdir(), 'kit-greenhouse-'));
    opened.push({ close: () => rmSync(dir, { recursive: true, force: true }) });
    const database = await freshDatabase(dir);
    // Loopback, with the link secret the public start keeps: only what `env` changes stands in the way.
    const first = await partnerWith({ CANDIDATE_LINK_SECRET: LINK_SECRET }, database);
    const { token, tests } = await first.customer('Acme Corp', ['JavaScript']);
    const sent = await request(first.at).post('/greenhouse/send_test').set('Authorization', basic(token)).send(body(`${l.url}/patch`, tests[0]!.id));
    expect(sent.status, sent.text).toBe(200);
    const id = sent.body.partner_interview_id as string;
    const row = (p: KitPartner, text: string) => p.sql.get<Record<string, unknown>>(dollars(text), [id]);
    await eventually(async () => expect((await row(first, 'SELECT started_at FROM invitations WHERE report_id = ?'))?.started_at).toBeTruthy());
    await first.close();
    opened.splice(opened.indexOf(first), 1);

    const second = await partnerWith(env, database);
    const raw = JSON.stringify({ status: 'completed', score: '80%' });
    await request(second.at)
      .post(`/vendor/reports/${id}/result`)
      .set('Content-Type', 'application/json')
      .set(VENDOR_SIGNATURE_HEADER, signVendorResult(RESULTS_SECRET, id, raw, Math.floor(Date.now() / 1000)))
      .send(raw)
      .expect(200);
    const dead = await eventually(
      async () => {
        const update = await row(second, "SELECT last_error FROM report_updates WHERE report_id = ? AND status = 'dead'");
        expect(update).toBeDefined();
        return update!;
      },
      { what: 'a dead letter' },
    );
    return { error: String(dead.last_error), received: l.received };
  }

  it('is a dead letter, with its reason, once the partner is reachable from elsewhere', async () => {
    const { error, received } = await resultAfterRestart(PUBLIC);
    expect(error).toContain('the Greenhouse url is no longer allowed: it must not be a loopback address');
    expect(received).toEqual([]);
  });

  it('is a dead letter, with its reason, once CANDIDATE_LINK_SECRET has changed', async () => {
    const { error, received } = await resultAfterRestart({ CANDIDATE_LINK_SECRET: `${LINK_SECRET}-rotated` });
    expect(error).toContain('CANDIDATE_LINK_SECRET changed');
    expect(received).toEqual([]);
  });
});
