import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { storedMails } from '../invitations/support.js';
import { eventually } from '../support/eventually.js';
import { ACME, ADA, startDev } from './support.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kit-dev-reports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run dev delivers report updates to the mock', () => {
  it('a test sent in the sandbox gets its links on the platform, and the invitation e-mail is kept in the database and shown in the dashboard', async () => {
    const sandbox = await startDev(path.join(dir, 'partner.db'));
    try {
      const tests = await request(sandbox.mockUrl).get(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/tests`).expect(200);
      const test = tests.body.tests[0] as { id: number; name: string };
      const sent = await request(sandbox.mockUrl)
        .post(`/api/marketplace/c/${ACME.id}/partners/${sandbox.codename}/send`)
        .send({ candidate_id: ADA, test_id: test.id, test_name: test.name })
        .expect(201);
      const reportId: string = sent.body.report.id;

      const urls = await eventually(
        async () => {
          const res = await request(sandbox.mockUrl).get(`/api/marketplace/c/${ACME.id}/reports/${reportId}`).expect(200);
          const links = res.body.report.urls as Record<string, string>;
          expect(links.cancel).toBeDefined();
          return links;
        },
        { what: 'the links on the report', intervalMs: 100 },
      );
      expect(urls).toEqual({
        show: expect.stringMatching(new RegExp(`^${sandbox.partnerUrl}/results\\?token=`)),
        cancel: `${sandbox.partnerUrl}/callbacks/reports/${reportId}/cancel`,
      });
      // The sender runs beside the report delivery: wait for the e-mail too.
      const mails = await eventually(
        async () => {
          const stored = await storedMails(path.join(dir, 'partner.db'));
          expect(stored).toHaveLength(1);
          return stored;
        },
        { what: 'the invitation e-mail', intervalMs: 100 },
      );
      expect(mails[0]!.to[0]!.address).toBe('ada@example.com');
      // Where the banner sends the user: the e-mail page of the dashboard (admin / admin in development).
      const page = await request(sandbox.partnerUrl).get('/admin/mail/1').auth('admin', 'admin').expect(200);
      expect(page.text).toContain(mails[0]!.subject);
      expect(page.text).toContain('/take?token=');
    } finally {
      await sandbox.close();
    }
  });
});
