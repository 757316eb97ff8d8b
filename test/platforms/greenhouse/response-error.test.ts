import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../../src/partner/db/open.js';
import { NOTICE_LIMITS } from '../../../src/partner/platforms/notices.js';
import { dollars, ON_POSTGRES } from '../../support/database.js';
import { startKitPartner, type KitPartner } from '../../support/kit-partner.js';
import { fakeClock } from '../../support/partner.js';

/**
 * What one customer's key can make the partner keep through `POST /greenhouse/response_error`
 * (docs/greenhouse.md, "response_error"): a rate per account (429 with Retry-After past it), the
 * newest notices of each account only, each of a bounded size, and a dashboard that shows every
 * account's, so that one customer cannot fill the disk nor bury another's reports.
 */
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`, 'utf8').toString('base64')}`;
/** As the issue's flood sent it: 50 errors of 1,000 characters, some 50 KB a call. */
const floodBody = (n: number) => ({
  api_call: 'test_status',
  errors: Array.from({ length: 50 }, (_, i) => `flood ${n}.${i} `.padEnd(1000, 'x')),
  partner_interview_id: `flood-${n}`,
});

const agent = new Agent({ connections: 4 });
afterAll(() => agent.close());

/** Greenhouse's call, as `key`: the status, the Retry-After and the body. */
async function report(partner: KitPartner, key: string, body: unknown) {
  const res = await request(`${partner.url}/greenhouse/response_error`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: basic(key), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], body: (await res.body.json()) as Record<string, unknown> };
}

/** The dashboard's overview, as the operator (the development credentials) reads it. */
async function dashboard(partner: KitPartner): Promise<string> {
  const res = await request(`${partner.url}/admin`, { dispatcher: agent, headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` } });
  const text = await res.body.text();
  expect(res.statusCode, text.slice(0, 300)).toBe(200);
  return text;
}

const storedOf = async (partner: KitPartner, key: { accountId: number }) =>
  partner.sql.all<{ detail: string; summary: string }>(dollars('SELECT detail, summary FROM platform_notices WHERE account_id = ? ORDER BY id'), [key.accountId]);

describe('response_error, flooded by one customer', () => {
  const clock = fakeClock();
  let partner: KitPartner;
  let acme: { token: string; accountId: number };
  let globex: { token: string; accountId: number };
  beforeAll(async () => {
    partner = await startKitPartner({}, { clock });
    acme = await customer(partner, 'Acme Corp');
    globex = await customer(partner, 'Globex');
  });
  afterAll(() => partner?.close());

  it("2,000 calls of 50 KB from one key: 10 a minute stored, the rest 429 with Retry-After; the account keeps its newest 20, and another customer's report still shows on the dashboard", async () => {
    const globexReport = await report(partner, globex.token, { api_call: 'test_status', errors: ['Globex: partner_score must be a number'] });
    expect(globexReport.status).toBe(200);

    const answered = { 200: 0, 429: 0 } as Record<number, number>;
    const refusals: { at: number; retryAfter: string | string[] | undefined; body: Record<string, unknown> }[] = [];
    for (let second = 1; second <= 2000; second++) {
      clock.advance(1000);
      const res = await report(partner, acme.token, floodBody(second));
      answered[res.status] = (answered[res.status] ?? 0) + 1;
      if (res.status === 429) refusals.push({ at: second, retryAfter: res.retryAfter, body: res.body });
    }
    // One a second: seconds 1-10 of each minute are stored (10 within any 60 s), the other 50 refused.
    expect(answered).toEqual({ 200: 340, 429: 1660 });
    // The first refused (second 11) waits for the report of second 1 to leave the minute: 50 s.
    expect(refusals[0]).toEqual({
      at: 11,
      retryAfter: '50',
      body: { error: "Too many response_error reports for this key's account: at most 10 within 60 s. Try again in 50 s." },
    });
    expect(refusals.every((r) => Number(r.retryAfter) >= 1 && Number(r.retryAfter) <= 60)).toBe(true);

    const kept = await storedOf(partner, acme);
    expect(kept).toHaveLength(NOTICE_LIMITS.keptPerAccount);
    // The newest: the reports of seconds 1981-1990, and the ten stored a minute before.
    expect(kept.map((r) => (JSON.parse(r.detail) as { partner_interview_id: string }).partner_interview_id)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `flood-${1921 + i}`),
      ...Array.from({ length: 10 }, (_, i) => `flood-${1981 + i}`),
    ]);
    // What the flood can take in the database: 20 notices of at most 8 KiB of detail each.
    const bytes = kept.reduce((n, r) => n + Buffer.byteLength(r.detail) + Buffer.byteLength(r.summary), 0);
    expect(bytes).toBeLessThanOrEqual(NOTICE_LIMITS.keptPerAccount * (NOTICE_LIMITS.detailMaxBytes + 300));
    expect(await storedOf(partner, globex)).toHaveLength(1);

    const page = await dashboard(partner);
    expect(page).toContain('Globex: partner_score must be a number');
    expect(page).toContain('flood 1990.0 ');
    expect(page).toMatch(/<strong>Acme Corp<\/strong> <span class="muted">#\d+<\/span> <span class="muted">20 kept, the newest 3 shown<\/span>/);
    expect(page).not.toContain('flood 1987.0 ');
  });

  it('keeps at most 8 KiB of a report, saying how many errors it left out; the dashboard shows that', async () => {
    clock.advance(NOTICE_LIMITS.windowMs);
    const initech = await customer(partner, 'Initech');
    expect((await report(partner, initech.token, floodBody(0))).status).toBe(200);
    // Control characters take 6 bytes each in the stored JSON (\u0001): fewer errors fit.
    expect((await report(partner, initech.token, { api_call: 'send_test', errors: ['\u0001'.repeat(1000), '\u0001'.repeat(1000), 'b'] })).status).toBe(200);
    const [wide, escaped] = await storedOf(partner, initech);
    for (const row of [wide!, escaped!]) expect(Buffer.byteLength(row.detail)).toBeLessThanOrEqual(NOTICE_LIMITS.detailMaxBytes);
    const errors = (JSON.parse(wide!.detail) as { errors: string[] }).errors;
    expect(errors.slice(0, -1)).toEqual(floodBody(0).errors.slice(0, errors.length - 1));
    expect(errors.at(-1)).toBe(`… and ${50 - (errors.length - 1)} more, not kept`);
    expect(errors.length - 1).toBeGreaterThanOrEqual(7);
    expect((JSON.parse(escaped!.detail) as { errors: string[] }).errors).toEqual(['\u0001'.repeat(1000), '… and 2 more, not kept']);
    expect(await dashboard(partner)).toContain(`… and ${50 - (errors.length - 1)} more, not kept`);
  });
});

describe.runIf(ON_POSTGRES)('response_error on two instances of one PostgreSQL database', () => {
  const clock = fakeClock();
  let first: KitPartner;
  let second: KitPartner;
  let acme: { token: string; accountId: number };
  beforeAll(async () => {
    first = await startKitPartner({}, { clock });
    second = await startKitPartner({}, { clock, database: first.database });
    acme = await customer(first, 'Acme Corp');
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('the rate and the cap are the account\'s, whichever instance each call reaches: 40 at once give 10 stored, and the account never keeps more than 20', async () => {
    for (const expectedKept of [10, 20, 20]) {
      clock.advance(NOTICE_LIMITS.windowMs);
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, n) => report(n % 2 === 0 ? first : second, acme.token, { api_call: 'test_status', errors: [`call ${n}`] })),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(NOTICE_LIMITS.perWindow);
      expect(answers.filter((a) => a.status === 429)).toHaveLength(40 - NOTICE_LIMITS.perWindow);
      expect(await storedOf(first, acme)).toHaveLength(expectedKept);
    }
  });
});

describe.runIf(!ON_POSTGRES)('migration 007, on a database flooded before the bound', () => {
  it("keeps each account's newest 20 notices", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'migration-007-'));
    try {
      const all = fileURLToPath(new URL('../../../src/partner/db/migrations/', import.meta.url));
      const older = path.join(dir, 'migrations');
      mkdirSync(older);
      for (const f of readdirSync(all).filter((f) => Number.parseInt(f, 10) < 7)) copyFileSync(path.join(all, f), path.join(older, f));
      const file = path.join(dir, 'partner.db');
      const before = openDb(file, { migrationsDir: older });
      const insert = before.prepare("INSERT INTO platform_notices (id, platform, account_id, summary, received_at) VALUES (?, 'greenhouse', ?, 'x', ?)");
      before.prepare("INSERT INTO accounts (id, name, created_at) VALUES (1, 'Acme', '2026-11-01T00:00:00.000Z'), (2, 'Globex', '2026-11-01T00:00:00.000Z')").run();
      for (let id = 1; id <= 25; id++) insert.run(id, 1, `2026-11-02T00:00:${String(id).padStart(2, '0')}.000Z`);
      for (let id = 26; id <= 28; id++) insert.run(id, 2, '2026-11-01T00:00:00.000Z');
      before.close();
      const after = openDb(file);
      const ids = (account: number) => after.prepare<[number], { id: number }>('SELECT id FROM platform_notices WHERE account_id = ? ORDER BY id').all(account).map((r) => r.id);
      expect(ids(1)).toEqual(Array.from({ length: 20 }, (_, i) => i + 6));
      expect(ids(2)).toEqual([26, 27, 28]);
      after.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A customer account, and its id as the notices store it. */
async function customer(partner: KitPartner, name: string) {
  const { token } = await partner.customer(name);
  const row = await partner.sql.get<{ id: number }>(dollars('SELECT id FROM accounts WHERE name = ?'), [name]);
  return { token, accountId: Number(row!.id) };
}
