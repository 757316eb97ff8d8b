/**
 * The kit's demo provider, tested as a fork tests its own: with the kit's harness only — the mock
 * platform and a partner running it, registered and integrated — from the recruiter's send to the
 * result on the platform. The demo is what src/provider/index.ts hands on as shipped; its test is
 * here, with the kit's, and not in src/provider/, which is the vendor's: a fork that replaces the
 * provider writes its own tests there (docs/adapting.md), and this one still tests the demo.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProvider } from '../../src/partner/index.js';
import { startHarness, type Harness } from '../../src/testing/index.js';

let harness: Harness;
beforeAll(async () => {
  // The demo keeps its tests in the kit's catalog: the customer account gets these two.
  harness = await startHarness({ provider: demoProvider(), tests: ['SQL basics', 'JavaScript'] });
});
afterAll(() => harness?.close());

describe('the demo provider, on the platform', () => {
  it('lists the customer\'s tests to the platform', async () => {
    expect((await harness.listTests()).map((test) => test.name)).toEqual(['SQL basics', 'JavaScript']);
  });

  it('send → a signed result → the platform\'s report shows it', async () => {
    const [test] = await harness.listTests();
    const reportId = await harness.send(test!.id);
    expect((await harness.report(reportId)).status).toBe('sent');

    const answer = await harness.postResult(reportId, { status: 'completed', score: '80%', subtitle: 'SQL basics: 4 of 5 correct' });
    expect(answer).toEqual({ status: 200, body: { id: reportId, status: 'completed' } });
    const report = await harness.waitForReport(reportId, (r) => r.status === 'completed');
    expect(report).toMatchObject({ score: '80%', subtitle: 'SQL basics: 4 of 5 correct' });
  });

  it('a result signed with another secret is refused and changes nothing', async () => {
    const [, test] = await harness.listTests();
    const reportId = await harness.send(test!.id);
    const res = await fetch(`${harness.partner.publicUrl}/vendor/reports/${reportId}/result`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-vendor-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
      body: JSON.stringify({ status: 'completed', score: '100%' }),
    });
    expect(res.status).toBe(401);
    expect((await harness.report(reportId)).status).toBe('sent');
  });
});
