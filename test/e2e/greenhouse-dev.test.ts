import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, expect, it } from 'vitest';
import { signVendorResult } from '../../src/contract/vendor-signature.js';
import { eventually } from '../support/eventually.js';
import { sendFromGreenhouse, startDev } from './support.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kit-dev-greenhouse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RESULTS_SECRET = 'greenhouse-results-secret-0123456789abcdef';

/**
 * `npm run dev`'s two servers speaking Greenhouse's Assessment Partner API to each other: the
 * mock's Greenhouse company, configured with the demo token, lists the partner's tests, sends one,
 * and once the result is in, the partner PATCHes the mock, which reads test_status.
 */
it('Initech lists the demo tests, sends one to Katherine, and shows the score and results link after the partner PATCHes', async () => {
  const sandbox = await startDev(path.join(dir, 'partner.db'), { VENDOR_RESULTS_SECRET: RESULTS_SECRET });
  try {
    const mock = request(sandbox.mockUrl);
    const interviewId = await sendFromGreenhouse(sandbox.mockUrl);

    // The vendor's product reports the result; the partner PATCHes the mock, which reads test_status.
    const body = JSON.stringify({ status: 'completed', score: '80' });
    await request(sandbox.partnerUrl)
      .post(`/vendor/reports/${interviewId}/result`)
      .set('content-type', 'application/json')
      .set('x-vendor-signature', signVendorResult(RESULTS_SECRET, interviewId, body))
      .send(body)
      .expect(200);
    const shown = await eventually(
      async () => {
        const res = await mock.get('/greenhouse/companies/1/candidates/1').expect(200);
        expect(res.text).toContain('>complete</span>');
        return res.text;
      },
      { what: 'the status read after the PATCH', intervalMs: 100 },
    );
    expect(shown).toMatch(/<span class="score"[^>]*>80<\/span>/);
    expect(shown).toContain(`<a href="${sandbox.partnerUrl}/results?token=`);
    const patches = await mock.get('/_mock/calls?endpoint=greenhouse.take_home_tests.update').expect(200);
    expect(patches.body.calls.map((c: { response_status: number }) => c.response_status)).toEqual([200]);
  } finally {
    await sandbox.close();
  }
});
