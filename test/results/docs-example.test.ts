import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { openPartnerDatabase, type PartnerDatabase } from '../../src/partner/db/open.js';
import { loadConfig, startPartner, type Provider, type RunningPartner } from '../../src/partner/index.js';
import { invitationStore } from '../../src/partner/invitations/store.js';
import { accountStore } from '../../src/partner/accounts/store.js';
import { freshDatabase, rowOf } from '../support/database.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SECRET = 'docs-example-secret-0123456789abcdef0123';
const run = promisify(execFile);

/** The ```sh block of docs/results-endpoint.md that signs with openssl and posts with curl. */
function curlExample(): string {
  const doc = readFileSync(path.join(ROOT, 'docs/results-endpoint.md'), 'utf8');
  const blocks = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const block = blocks.find((b) => b.includes('openssl dgst') && b.includes('curl'));
  if (!block) throw new Error('no curl + openssl example in docs/results-endpoint.md');
  return block;
}

describe('the signing example of docs/results-endpoint.md', () => {
  let dir: string;
  let partner: RunningPartner;
  let database: PartnerDatabase;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'results-doc-'));
    const provider: Provider = {
      kind: 'assessment',
      listTests: async () => [{ id: 'js', name: 'JavaScript' }],
      startInvitation: async (invitation) => ({ candidateUrl: `https://product.example/${invitation.reportId}` }),
    };
    const settings = await freshDatabase(dir);
    partner = await startPartner({
      config: loadConfig({ PORT: '0', ...settings, LOG_LEVEL: 'silent', VENDOR_RESULTS_SECRET: SECRET }),
      provider,
    });
    database = await openPartnerDatabase({ databasePath: settings.DATABASE_PATH, databaseUrl: settings.DATABASE_URL });
  });
  afterAll(async () => {
    await partner?.close();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('run as written with bash, openssl and curl, it records the result: 200 {id, status}', async () => {
    const { sql } = database;
    const { account } = await accountStore(sql, systemClock).create('Acme');
    const reportId = '5e1f0c2a-0000-4000-8000-00000000d0c5';
    await invitationStore(sql, systemClock).create({
      reportId,
      accountId: account.id,
      companyId: 1,
      candidateId: 17,
      testId: 'js',
      testName: 'JavaScript',
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      phone: null,
      extraInputs: {},
      platform: 'hiring-platform',
      platformData: {},
    });
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', curlExample()], {
      env: { ...process.env, VENDOR_RESULTS_SECRET: SECRET, PARTNER_URL: partner.publicUrl, REPORT_ID: reportId },
    });
    expect(JSON.parse(stdout)).toEqual({ id: reportId, status: 'completed' });
    expect(await rowOf(sql, 'SELECT status, score, subtitle FROM invitations WHERE report_id = ?', reportId)).toEqual({
      status: 'completed',
      score: '87%',
      subtitle: 'JavaScript: 13 of 15 correct',
    });

    // The same block with another secret is refused.
    const refused = await run('bash', ['-euo', 'pipefail', '-c', curlExample()], {
      env: { ...process.env, VENDOR_RESULTS_SECRET: 'not-the-secret-0123456789abcdef0123', PARTNER_URL: partner.publicUrl, REPORT_ID: reportId },
    });
    expect(JSON.parse(refused.stdout)).toEqual({
      error: 'Invalid signature: v1 must be the hex HMAC-SHA256 of "<t>.<report_id>.<raw body>" keyed with VENDOR_RESULTS_SECRET',
    });
  });
});
