/**
 * The example hosted provider, tested as a fork tests its own: with the kit's harness only, and a
 * stand-in for the vendor's product (the three calls provider.ts makes). Send on the platform → the
 * partner asks the product to create the test → the product posts the signed result → the
 * platform's report shows it; or the recruiter cancels → the partner asks the product to cancel it.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../src/testing/index.js';
import { hostedProvider } from './provider.js';

/** What the product was asked to create, by report id. */
const created = new Map<string, { test_id: string; results_url: string }>();
/** The report ids the product was asked to cancel, in order. */
const canceled: string[] = [];
const product = createServer((req, res) => {
  const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (req.method === 'GET' && req.url === '/api/tests') return send(200, [{ id: 'js-senior', name: 'JavaScript (senior)' }]);
  const cancel = req.method === 'POST' ? /^\/api\/assessments\/([^/]+)\/cancel$/.exec(req.url ?? '') : null;
  if (cancel) {
    canceled.push(decodeURIComponent(cancel[1]!));
    return void res.writeHead(204).end();
  }
  if (req.method !== 'POST' || req.url !== '/api/assessments') return send(404, { error: 'Not found' });
  readJson(req).then(
    (body) => {
      created.set(body.report_id, body);
      send(201, { url: `https://product.example/take/${body.report_id}` });
    },
    () => send(400, { error: 'Not JSON' }),
  );
});
async function readJson(req: IncomingMessage) {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text) as { report_id: string; test_id: string; results_url: string };
}

let harness: Harness;
beforeAll(async () => {
  await new Promise<void>((resolve) => product.listen(0, '127.0.0.1', resolve));
  const productUrl = `http://127.0.0.1:${(product.address() as AddressInfo).port}`;
  harness = await startHarness({ provider: hostedProvider({ productUrl }) });
});
afterAll(async () => {
  await harness?.close();
  await new Promise((resolve) => product.close(resolve));
});

describe('a product that hosts its tests', () => {
  it('send → the product creates the test → it posts the signed result → the platform\'s report shows it', async () => {
    expect(await harness.listTests()).toEqual([{ id: 'js-senior', name: 'JavaScript (senior)' }]);
    const reportId = await harness.send('js-senior');
    // The partner starts the invitation after the platform has its answer: the product hears of it then.
    await expect.poll(() => created.get(reportId), { timeout: 15_000 }).toMatchObject({
      test_id: 'js-senior',
      results_url: `${harness.partner.publicUrl}/vendor/reports/${reportId}/result`,
    });

    const result = { status: 'completed', score: '87%', subtitle: 'JavaScript (senior): 13 of 15', properties: [{ label: 'Time taken', value: '24 min' }] };
    expect(await harness.postResult(reportId, result)).toEqual({ status: 200, body: { id: reportId, status: 'completed' } });
    const report = await harness.waitForReport(reportId, (r) => r.status === 'completed');
    expect(report).toMatchObject({ score: '87%', subtitle: result.subtitle, properties: result.properties });
  });

  it('the recruiter cancels on the platform → the partner asks the product to cancel the test', async () => {
    const reportId = await harness.send('js-senior');
    await harness.waitForReport(reportId, (r) => r.urls.cancel !== undefined);
    await harness.cancel(reportId);
    await harness.waitForReport(reportId, (r) => r.status === 'canceled');
    await expect.poll(() => canceled, { timeout: 15_000 }).toEqual([reportId]);
  });
});
