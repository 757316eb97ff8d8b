import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { request } from 'undici';
import { signVendorResult, VENDOR_SIGNATURE_HEADER } from '../../src/partner/index.js';

interface Assessment {
  id: string;
  reportId: string;
  testId: string;
  candidate: { first_name: string; last_name: string; email: string };
  resultsUrl: string;
  url: string;
  /** When the partner canceled it (the product's cancel endpoint); the link is closed since. */
  canceledAt?: string;
}

/** A result or progress the product posted: what someone watching the wire would capture. */
export interface SentResult {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A fake of a vendor's product that hosts its tests (examples/hosted-provider): it lists tests,
 * creates an assessment per report (the same one again for a report it has), serves the
 * candidate's page, closes it when the partner cancels the test, and — when a test says so —
 * posts the signed result or progress to the partner's `results_url`, as the real product would.
 */
export async function fakeVendorProduct(options: { secret: string; tests?: { id: string; name: string }[] }) {
  const tests = options.tests ?? [
    { id: 'js-senior', name: 'JavaScript (senior)' },
    { id: 'sql', name: 'SQL' },
  ];
  const assessments = new Map<string, Assessment>();
  const sent: SentResult[] = [];
  let creates = 0;
  /** Report ids of every cancel call received, in order (retries and repeats included). */
  const cancels: string[] = [];
  /** Cancel calls still to answer 503, as a product that is down would. */
  let cancelFailuresLeft = 0;
  const app = express();
  app.use(express.json());
  app.get('/api/tests', (_req, res) => {
    res.json(tests);
  });
  app.post('/api/assessments', (req, res) => {
    creates += 1;
    const body = req.body as { report_id: string; test_id: string; candidate: Assessment['candidate']; results_url: string };
    let assessment = assessments.get(body.report_id);
    if (!assessment) {
      const id = randomUUID();
      assessment = { id, reportId: body.report_id, testId: body.test_id, candidate: body.candidate, resultsUrl: body.results_url, url: `${url}/a/${id}` };
      assessments.set(body.report_id, assessment);
    }
    res.status(201).json({ id: assessment.id, url: assessment.url });
  });
  app.post('/api/assessments/:reportId/cancel', (req, res) => {
    cancels.push(req.params.reportId);
    if (cancelFailuresLeft > 0) {
      cancelFailuresLeft -= 1;
      return void res.status(503).json({ error: 'Down for maintenance' });
    }
    const assessment = assessments.get(req.params.reportId);
    if (!assessment) return void res.status(404).json({ error: 'No such test' });
    assessment.canceledAt ??= new Date().toISOString();
    res.status(204).end();
  });
  app.get('/a/:id', (req, res) => {
    const found = [...assessments.values()].find((a) => a.id === req.params.id);
    if (!found) return void res.status(404).send('No such test');
    if (found.canceledAt) return void res.status(410).type('html').send('<h1>This test was canceled</h1>');
    res.type('html').send(`<h1>Hello ${found.candidate.first_name}</h1><p>Your ${found.testId} test.</p>`);
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** Posts `body` to the partner for `reportId`, signed as the product signs; the partner's answer. */
  const post = async (reportId: string, body: Record<string, unknown>) => {
    const assessment = assessments.get(reportId);
    if (!assessment) throw new Error(`the product has no test for report ${reportId}`);
    const raw = JSON.stringify(body);
    const headers = { 'content-type': 'application/json', [VENDOR_SIGNATURE_HEADER]: signVendorResult(options.secret, reportId, raw) };
    sent.push({ url: assessment.resultsUrl, headers, body: raw });
    const res = await request(assessment.resultsUrl, { method: 'POST', headers, body: raw });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  };

  return {
    url,
    tests,
    /** The assessment the partner created for a report, if it did. */
    assessment: (reportId: string) => assessments.get(reportId),
    /** Every request the product posted to the partner, as it went on the wire, oldest first. */
    sent: (): readonly SentResult[] => sent,
    /** How many create calls the product received (retries and resends included). */
    creates: () => creates,
    /** Report ids of the cancel calls the product received, in order. */
    cancels: () => [...cancels],
    /** The next `n` cancel calls answer 503. */
    failCancels(n: number) {
      cancelFailuresLeft = n;
    },
    /** The candidate finished: the product posts the result. */
    finish: (reportId: string, result: { status: 'completed' | 'failed'; score: string; subtitle?: string; properties?: { label: string; value: string }[] }) =>
      post(reportId, result),
    /** The candidate got this far: the product posts the stage. */
    progress: (reportId: string, stage: 'opened' | 'started' | 'in_review') => post(reportId, { status: stage }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type FakeVendorProduct = Awaited<ReturnType<typeof fakeVendorProduct>>;
