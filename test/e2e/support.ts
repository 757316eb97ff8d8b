import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { accountStore } from '../../src/partner/accounts/store.js';
import { systemClock } from '../../src/lib/clock.js';
import { loadConfig } from '../../src/partner/config.js';
import { openDb } from '../../src/partner/db/open.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { addDemoTests } from '../../src/partner/provider/demo/catalog.js';
import { main } from '../../src/partner/server.js';
import { DEFAULT_MANIFEST, loadManifest, registerPartner } from '../../scripts/register-partner.js';

export const ACME = { id: 1, token: 'mock_api_acme' } as const;
export const GLOBEX = { id: 2, token: 'mock_api_globex' } as const;
export const ADA = 17;
export const CODENAME = 'demo-assessments';

/** The partner server as `npm start` runs it (its own SQLite file), listening on a free port. */
export async function startPartner() {
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-e2e-'));
  const dbFile = path.join(dir, 'partner.db');
  const running = await main(loadConfig({ DATABASE_PATH: dbFile, PORT: '0', LOG_LEVEL: 'silent' }));
  const { port } = running.server.address() as { port: number };
  // A second connection to the partner's file: what a test reads to see what the partner stored.
  const db = openDb(dbFile);
  const accounts = accountStore(db, systemClock);
  return {
    url: `http://127.0.0.1:${port}`,
    dbFile,
    db,
    accounts,
    /** A customer account of the partner with these tests; returns its token and test ids. */
    customer(name: string, tests: string[] = []) {
      const { account, token } = accounts.create(name);
      const created = addDemoTests(db, systemClock, account.id, tests);
      return { accountId: account.id, token, tests: created };
    },
    async close() {
      await running.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
export type RunningPartner = Awaited<ReturnType<typeof startPartner>>;

export function startMock(): Promise<RunningMockPlatform> {
  return startMockPlatform({ port: 0, logLevel: 'silent' });
}

/** Registers the partner (the kit's manifest, pointed at the running partner) for Acme. */
export async function registerKitPartner(mock: RunningMockPlatform, partner: RunningPartner) {
  const result = await registerPartner({
    platformUrl: mock.url,
    codename: CODENAME,
    companyId: ACME.id,
    apiToken: ACME.token,
    partner: loadManifest(DEFAULT_MANIFEST, partner.url),
  });
  if (!result.ok) throw new Error(`registration failed: ${result.message}`);
  return result;
}

export const marketplace = (mock: RunningMockPlatform) => request(mock.url);

/**
 * Registers `codename` for Acme with the kit's manifest pointed at `partnerUrl`; returns the secret.
 * Posting again with another URL keeps the secret: a partner that must know its secret before it
 * starts (and so before it knows its port) registers with a placeholder URL first, then again.
 */
export async function registerManifest(platformUrl: string, codename: string, partnerUrl: string): Promise<string> {
  const result = await registerPartner({
    platformUrl,
    codename,
    companyId: ACME.id,
    apiToken: ACME.token,
    partner: loadManifest(DEFAULT_MANIFEST, partnerUrl),
  });
  if (!result.ok) throw new Error(`registration failed: ${result.message}`);
  return result.partner.secret;
}
