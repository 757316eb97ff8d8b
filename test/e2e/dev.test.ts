import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/partner/db/open.js';
import { startSandbox } from '../../scripts/dev.js';
import { ACME, ADA } from './support.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kit-dev-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm run dev` as a function, on ports the system picks (PORT=0), with the partner database in a fresh folder. */
async function start() {
  return startSandbox({
    PATH: process.env.PATH,
    DATABASE_PATH: path.join(dir, 'partner.db'),
    PORT: '0',
    MOCK_PORT: '0',
    LOG_LEVEL: 'silent',
  });
}

async function sendFirstTest(mockUrl: string, codename: string) {
  const tests = await request(mockUrl).get(`/api/marketplace/c/${ACME.id}/partners/${codename}/tests`).expect(200);
  const test = tests.body.tests[0] as { id: number; name: string };
  return request(mockUrl)
    .post(`/api/marketplace/c/${ACME.id}/partners/${codename}/send`)
    .send({ candidate_id: ADA, test_id: test.id, test_name: test.name })
    .expect(201);
}

describe('npm run dev', () => {
  it('on a fresh clone, then again: registers, integrates Acme with the demo token, and is ready to send', async () => {
    const first = await start();
    try {
      expect(first.integration).toEqual({ ok: true });
      expect(existsSync(path.join(dir, 'demo-token'))).toBe(true);
      const sent = await sendFirstTest(first.mockUrl, first.codename);
      expect(sent.body.report).toMatchObject({ status: 'sent', delivery: 'delivered' });
      const page = await request(first.mockUrl).get(`/companies/${ACME.id}`).expect(200);
      expect(page.text).toContain('Demo Assessments');
      expect(page.text).toContain('Integrated');
    } finally {
      await first.close();
    }

    // Second run: the partner database exists (no new demo account), the mock starts empty.
    const second = await start();
    try {
      expect(second.integration).toEqual({ ok: true });
      await sendFirstTest(second.mockUrl, second.codename);
    } finally {
      await second.close();
    }
    const db = openDb(path.join(dir, 'partner.db'));
    try {
      expect(db.prepare('SELECT count(*) AS n FROM accounts').get()).toEqual({ n: 1 });
      expect(db.prepare('SELECT count(*) AS n FROM invitations').get()).toEqual({ n: 2 });
    } finally {
      db.close();
    }
  });
});
