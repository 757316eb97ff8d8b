import { afterEach, expect, it } from 'vitest';
import { GREENHOUSE_CHECKS } from '../../src/conformance/greenhouse/checks.js';
import { runGreenhouseConformance } from '../../src/conformance/greenhouse/run.js';
import { rowsOf } from '../support/database.js';
import { startKitPartner, type KitPartner } from '../support/kit-partner.js';

/**
 * The kit's own partner, started in this process as `npm start` starts it (as
 * kit-partner.test.ts starts it), passes every Greenhouse check: its four routes under /greenhouse,
 * its results endpoint completing the interview, and the PATCH it then sends to the checker's
 * receiver. On SQLite and on PostgreSQL (vitest.config.ts runs this file in both projects).
 */

let partner: KitPartner | undefined;
afterEach(async () => {
  await partner?.close();
  partner = undefined;
});

it("passes every Greenhouse check, the result posted through the kit's results endpoint", async () => {
  const secret = 'kit-greenhouse-conformance-secret-0123456789';
  partner = await startKitPartner({ VENDOR_RESULTS_SECRET: secret });
  const key = (await partner.customer('Acme Corp', ['JavaScript fundamentals'])).token;
  const otherKey = (await partner.customer('Globex', ['SQL'])).token;

  const run = await runGreenhouseConformance({ baseUrl: `${partner.url}/greenhouse`, key, otherKey, results: { secret } });

  expect(run.results.filter((r) => !r.ok).map((r) => `${r.id}: ${r.detail}`)).toEqual([]);
  expect(run.results.map((r) => r.id)).toEqual(GREENHOUSE_CHECKS.map((c) => c.id));
  expect(run.notRun).toEqual([]);
  // The interview the checker completed is the kit's report, a Greenhouse one, its result stored.
  const interview = /"([0-9a-f-]{36})"/.exec(run.results.find((r) => r.id === 'send_test.create')!.detail)![1];
  const rows = await rowsOf(partner.sql, 'SELECT status, platform FROM invitations WHERE report_id = ?', interview);
  expect(rows).toEqual([{ status: 'completed', platform: 'greenhouse' }]);
});
