import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/http/logger.js';
import { assemble } from '../../src/partner/assemble.js';
import { loadConfig } from '../../src/partner/config.js';
import { createMailer } from '../../src/partner/mail/transport.js';
import { definePlatform, kitPlatforms, type PlatformDefinition } from '../../src/partner/platforms/index.js';
import type { Provider } from '../../src/partner/provider/types.js';
import { discardDatabase, freshDatabase, openTestDatabase } from '../support/database.js';
import { fakeClock } from '../support/partner.js';

const ADMIN = { username: 'operator', password: 'tulip ledger orbit 31' };
const AUTH = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
const PUBLIC_URL = 'http://partner.test';
/** Acme's key for Acme ATS: 36 characters, ending in "wxyz". */
const SECRET = 'acme_live_8f3b2c1d9e0a7f6b5c4d3wxyz';

/**
 * A platform whose updates go out with the customer's own key (`credential.required`, as Ashby's do),
 * and one that keeps a credential it can do without: each with no routes, and a delivery that
 * settles every update without a request (the page, not the delivery, is tested here).
 */
const platform = (name: string, label: string, credential: PlatformDefinition['credential']) =>
  definePlatform({
    name,
    label,
    credential,
    create: () => ({ name, label, emailAfterAcceptance: false, home: { endpoints: {} }, mount: () => {}, deliveryRequest: () => undefined }),
  }) as PlatformDefinition;
const PLATFORMS = [
  ...kitPlatforms(),
  platform('acme-ats', 'Acme ATS', { label: 'Acme ATS API key', required: true }),
  platform('acme-hr', 'Acme HR', { label: 'Acme HR token', required: false }),
];

/** A product with one test, of its own (no catalog table). */
const PRODUCT: Provider = {
  kind: 'assessment',
  listTests: async () => [{ id: 'js', name: 'JavaScript' }],
  startInvitation: async (invitation) => ({ candidateUrl: `https://product.example/${invitation.reportId}` }),
};

/**
 * The dashboard's accounts, each with its connections to platforms: the platform's label, the
 * company id, the customer's credential masked with when it was set; and, for a platform whose
 * updates need one, a flag on an account that uses it without one.
 */
describe('the dashboard: accounts and their connections to platforms', () => {
  let partner: Awaited<ReturnType<typeof start>>;
  beforeEach(async () => {
    partner = await start();
  });
  afterEach(() => partner.close());

  async function start() {
    const dir = mkdtempSync(path.join(tmpdir(), 'dashboard-connections-'));
    const settings = await freshDatabase(dir);
    const config = loadConfig(
      {
        NODE_ENV: 'test',
        ...settings,
        PUBLIC_URL,
        CANDIDATE_LINK_SECRET: 'dashboard-connections-link-secret-0123456789',
        ADMIN_USERNAME: ADMIN.username,
        ADMIN_PASSWORD: ADMIN.password,
      },
      PLATFORMS,
    );
    const database = await openTestDatabase(config);
    const mailer = createMailer(config.mail);
    const dispatcher = new Agent();
    const clock = fakeClock();
    const parts = await assemble(config, {
      sql: database.sql,
      logger: createLogger('silent'),
      clock,
      publicUrl: PUBLIC_URL,
      mailer,
      dispatcher,
      provider: PRODUCT,
      platforms: PLATFORMS,
    });
    return {
      ...parts,
      clock,
      /** The accounts page, and the row of the account named `name`. */
      async overview() {
        const res = await request(parts.app).get('/admin/accounts').set('Host', new URL(PUBLIC_URL).host).set('Authorization', AUTH);
        expect(res.status).toBe(200);
        return { html: res.text, row: (name: string) => res.text.split('<tr>').find((r) => r.includes(`">${name}</a> <span class="muted">#`)) ?? '' };
      },
      /** One account's page. */
      async account(id: number) {
        const res = await request(parts.app).get(`/admin/accounts/${id}`).set('Host', new URL(PUBLIC_URL).host).set('Authorization', AUTH);
        expect(res.status).toBe(200);
        return res.text;
      },
      /** An invitation of `platform`'s for the account, as its routes would store it. */
      invite: (accountId: number, platformName: string) =>
        parts.invitations.create({
          reportId: crypto.randomUUID(),
          accountId,
          testId: 'js',
          testName: 'JavaScript',
          firstName: 'Ada',
          lastName: 'Lovelace',
          email: 'ada@example.com',
          phone: null,
          extraInputs: {},
          platform: platformName,
          platformData: {},
        }),
      async close() {
        mailer.close();
        await dispatcher.close();
        await discardDatabase(database, settings, dir);
      },
    };
  }

  it('when an account has a credential for a platform, then its row shows the platform, the company and the credential masked with when it was set, never the credential', async () => {
    const { account } = await partner.accounts.create('Acme Corp');
    expect(await partner.connections.connect(account.id, 'acme-ats', 'acme-company-77')).toBe(true);
    await partner.connections.setCredential(account.id, 'acme-ats', SECRET);
    const { html, row } = await partner.overview();
    expect(row('Acme Corp')).toMatch(
      /<strong>Acme ATS<\/strong> <span class="muted">company<\/span> <code>acme-company-77<\/code>\s*· Acme ATS API key <code>••••wxyz<\/code> <span class="muted">set <time datetime="2026-11-01T09:00:00.000Z"/,
    );
    expect(row('Acme Corp')).not.toContain('cannot be delivered');
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain(SECRET.slice(0, -4));
  });

  it('when a credential is short, then it shows as "set": four of its characters would say too much', async () => {
    const { account } = await partner.accounts.create('Globex');
    await partner.connections.setCredential(account.id, 'acme-ats', 'short-key');
    const { html, row } = await partner.overview();
    expect(row('Globex')).toMatch(/<strong>Acme ATS<\/strong>\s*· Acme ATS API key <code>set<\/code>/);
    expect(html).not.toContain('short-key');
  });

  it('when an account uses a platform whose updates need a credential and has none, then it is flagged with a link to set one; not for a platform it never used, nor one that can do without', async () => {
    const { account: connected } = await partner.accounts.create('Connected Co');
    await partner.connections.connect(connected.id, 'acme-ats', 'company-1');
    await partner.connections.connect(connected.id, 'acme-hr', 'hr-9');
    const { account: invited } = await partner.accounts.create('Invited Co');
    expect(await partner.invite(invited.id, 'acme-ats')).toBe('created');
    const { account: removed } = await partner.accounts.create('Removed Co');
    await partner.connections.setCredential(removed.id, 'acme-ats', SECRET);
    expect(await partner.connections.removeCredential(removed.id, 'acme-ats')).toBe(true);
    await partner.accounts.create('Unused Co');

    const { row } = await partner.overview();
    const flag = (id: number) =>
      `<span class="tag tag-dead">No Acme ATS API key: its Acme ATS updates cannot be delivered</span> <a href="/admin/accounts/${id}#credential-acme-ats">set it</a>`;
    expect(row('Connected Co')).toContain(flag(connected.id));
    expect(row('Connected Co')).toMatch(/<strong>Acme ATS<\/strong> <span class="muted">company<\/span> <code>company-1<\/code>\s*· <span class="muted">no Acme ATS API key<\/span>/);
    // A credential the platform can do without: said, not flagged.
    expect(row('Connected Co')).toMatch(/<strong>Acme HR<\/strong> <span class="muted">company<\/span> <code>hr-9<\/code>\s*· <span class="muted">no Acme HR token<\/span>/);
    expect(row('Connected Co')).not.toContain('No Acme HR token');
    // Not connected, but with an invitation of the platform: its own page reads that from its invitations.
    expect(row('Invited Co')).not.toContain('cannot be delivered');
    expect(await partner.account(invited.id)).toContain('<span class="tag tag-dead">None: its Acme ATS updates cannot be delivered</span>');
    expect(await partner.account(connected.id)).toContain('<span class="tag tag-dead">None: its Acme ATS updates cannot be delivered</span>');
    expect(await partner.account(connected.id)).not.toContain('None: its Acme HR updates');
    expect(row('Removed Co')).toContain(flag(removed.id));
    expect(row('Unused Co')).not.toContain('cannot be delivered');
    expect(await partner.account((await partner.accounts.named('Unused', 1))[0]!.id)).not.toContain('cannot be delivered');
    expect(row('Unused Co')).toMatch(/<td class="connections">\s*<span class="muted">—<\/span>/);

    // Once set, the flag is gone.
    await partner.connections.setCredential(connected.id, 'acme-ats', SECRET);
    expect((await partner.overview()).row('Connected Co')).not.toContain('cannot be delivered');
  });
});
