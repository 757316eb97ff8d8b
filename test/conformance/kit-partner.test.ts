import { afterEach, describe, expect, it } from 'vitest';
import { ANSWER_CHECKS, CALLBACK_CHECKS } from '../../src/conformance/platforms/hiring-platform/callback-checks.js';
import { callbackTargets } from '../../src/conformance/platforms/hiring-platform/wire.js';
import { PLATFORM_CHECKS } from '../../src/conformance/platforms/hiring-platform/mock.js';
import { RESULTS_CHECKS } from '../../src/conformance/results-checks.js';
import { runConformance } from '../../src/conformance/platforms/hiring-platform/run.js';
import type { CheckResult } from '../../src/conformance/types.js';
import { startKitPartner, type KitPartner } from '../support/kit-partner.js';

/**
 * The kit's own partner, started in this process as `npm start` starts it, passes every check:
 * over real HTTP on a free port, with fresh tokens from its accounts store.
 */

let partner: KitPartner | undefined;
afterEach(async () => {
  await partner?.close();
  partner = undefined;
});

/** Two accounts with a test each and one without, as the checker asks for. */
async function tokensOf(p: KitPartner) {
  return {
    a: (await p.customer('Acme Corp', ['JavaScript fundamentals'])).token,
    b: (await p.customer('Globex', ['SQL'])).token,
    empty: (await p.customer('Initech', [])).token,
  };
}

const failures = (results: CheckResult[]) => results.filter((r) => !r.ok).map((r) => `${r.id}: ${r.detail}`);

describe("the kit's partner", () => {
  it('passes every callback check, the results checks, and the checks over all answers', async () => {
    const secret = 'kit-conformance-results-secret-0123456789';
    partner = await startKitPartner({ VENDOR_RESULTS_SECRET: secret });
    const started = performance.now();
    const run = await runConformance({ targets: callbackTargets(`${partner.url}/callbacks`), tokens: await tokensOf(partner), results: { secret } });

    expect(failures(run.results)).toEqual([]);
    expect(run.results.map((r) => r.id)).toEqual([...CALLBACK_CHECKS, ...RESULTS_CHECKS, ...ANSWER_CHECKS].map((c) => c.id));
    expect(run.notRun.map((n) => n.id)).toEqual(PLATFORM_CHECKS.map((c) => c.id));
    // Each result says where in the contract it comes from (the results endpoint is the kit's own).
    for (const r of run.results) expect(r.section).toMatch(/^(§\d+(\.\d+)?|results)$/);
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('with --mock and the results secret: every check runs, the report updates it sends to the mock and the results endpoint pass too', async () => {
    const secret = 'kit-conformance-results-secret-0123456789';
    const started = performance.now();
    const run = await runConformance({
      mock: {
        codename: 'kit-conformance',
        // The partner learns the mock's address and its secret only once the mock runs: start it then.
        ready: async (settings) => {
          partner = await startKitPartner({
            PLATFORM_URL: settings.PLATFORM_URL,
            PARTNER_CODENAME: settings.PARTNER_CODENAME,
            PARTNER_SECRET: settings.PARTNER_SECRET,
            VENDOR_RESULTS_SECRET: secret,
          });
          return { targets: callbackTargets(`${partner.url}/callbacks`), tokens: await tokensOf(partner) };
        },
      },
      results: { secret },
    });

    expect(failures(run.results)).toEqual([]);
    expect(run.results.map((r) => r.id)).toEqual([...CALLBACK_CHECKS, ...RESULTS_CHECKS, ...PLATFORM_CHECKS, ...ANSWER_CHECKS].map((c) => c.id));
    expect(run.notRun).toEqual([]);
    // The mock knew the checker's own reports: the partner kept them, and the other report took the progress stage.
    const detail = (id: string) => run.results.find((r) => r.id === id)!.detail;
    expect(detail('results.cross_report')).toMatch(/; the other report still takes a progress stage \(200\)$/);
    expect(detail('results.record')).toMatch(/^200 /);
    const cancelUrl = run.results.find((r) => r.id === 'platform.cancel_url')!.detail;
    expect(cancelUrl.startsWith(`${partner!.url}/callbacks/reports/`)).toBe(true);
    expect(cancelUrl).toMatch(/\/reports\/[0-9a-f-]{36}\/cancel$/);
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});
