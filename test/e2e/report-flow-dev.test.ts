import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../scripts/dev.js';
import { ACME, ADA, freePort } from './support.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kit-dev-reports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run dev delivers report updates to the mock', () => {
  it('a test sent in the sandbox gets its links on the platform, and the invitation e-mail lands in MAIL_DIR', async () => {
    const sandbox = await startSandbox({
      PATH: process.env.PATH,
      DATABASE_PATH: path.join(dir, 'partner.db'),
      MAIL_DIR: path.join(dir, 'mail'),
      PORT: String(await freePort()),
      MOCK_PORT: String(await freePort()),
      LOG_LEVEL: 'silent',
    });
    try {
      const tests = await request(sandbox.mockUrl).get(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/tests`).expect(200);
      const test = tests.body.tests[0] as { id: number; name: string };
      const sent = await request(sandbox.mockUrl)
        .post(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/send`)
        .send({ candidate_id: ADA, test_id: test.id, test_name: test.name })
        .expect(201);
      const reportId: string = sent.body.report.id;

      const deadline = Date.now() + 15_000;
      let urls: Record<string, string> = {};
      while (!urls.cancel && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        urls = (await request(sandbox.mockUrl).get(`/api/marketplace/c/${ACME.id}/reports/${reportId}`).expect(200)).body.report.urls;
      }
      expect(urls).toEqual({
        show: expect.stringMatching(new RegExp(`^${sandbox.partnerUrl}/results\\?token=`)),
        cancel: `${sandbox.partnerUrl}/callbacks/reports/${reportId}/cancel`,
      });
      expect(readdirSync(path.join(dir, 'mail'))).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
  });
});
