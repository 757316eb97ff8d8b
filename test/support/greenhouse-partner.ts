import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { request } from 'undici';
import { z } from 'zod';
import { verifyVendorSignature } from '../../src/contract/vendor-signature.js';

/**
 * A Greenhouse assessment partner written from docs/greenhouse.md alone, on Express, for the
 * conformance checker to judge: its endpoints under `<url>/greenhouse`, Basic authentication with a
 * customer's key and an empty password, a `url` allowed on loopback only, and the kit's results
 * endpoint (`POST /vendor/reports/{id}/result`, signed with `resultsSecret`), after which it sends
 * the body-less PATCH. `complete(id)` completes an interview as a candidate would, by hand.
 *
 * Each fault makes it wrong in one way: `neverPatch` (a result, but no PATCH), `noAuth` (every
 * endpoint answers without looking at Authorization), `leaksInterviews` (test_status answers any
 * key's interview), `scoreAsString` (`partner_score: "87"`), `anyUrl` (send_test takes a `url`
 * on any host, with credentials too, and PATCHes it), `anyHttpUrl` (its allowlist judges https
 * urls only: any plain-http host without credentials passes), `anyCustomersTest` (send_test looks
 * the test up in every customer's list, not the key's), `oneInterviewPerTest` (send_test answers
 * the interview it made before for the same key and test, whoever the candidate).
 */
export interface GreenhouseFaults {
  anyUrl?: boolean;
  anyHttpUrl?: boolean;
  anyCustomersTest?: boolean;
  oneInterviewPerTest?: boolean;
  neverPatch?: boolean;
  noAuth?: boolean;
  leaksInterviews?: boolean;
  scoreAsString?: boolean;
}

export const FAKE_RESULTS_SECRET = 'fake-greenhouse-partner-results-secret-0123';

const KEYS = new Map([
  ['key-a', [{ partner_test_id: '12345', partner_test_name: 'My First Test' }]],
  ['key-b', [{ partner_test_id: '777', partner_test_name: 'SQL' }]],
]);

const SendTest = z.object({
  partner_test_id: z.union([z.string(), z.number()]).transform(String),
  candidate: z.object({
    first_name: z.string().trim().min(1).max(200),
    last_name: z.string().trim().min(1).max(200),
    email: z.email(),
    preferred_name: z.string().nullable(),
    greenhouse_profile_url: z.url({ protocol: /^https?$/ }),
  }),
  url: z.url({ protocol: /^https?$/ }),
});
const ResponseError = z.object({ api_call: z.string(), errors: z.array(z.string()) });

/** Loopback only, as the kit allows on a server that itself runs on loopback, and no credentials (docs/greenhouse.md §4). */
const allowedUrl = (url: URL) =>
  url.username === '' && url.password === '' && (url.hostname === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname) || url.hostname === '[::1]');

interface Interview {
  key: string;
  testId: string;
  url: string;
  email: string;
  status: 'sent' | 'complete';
  score?: number;
}

export async function startGreenhousePartner(faults: GreenhouseFaults = {}) {
  const interviews = new Map<string, Interview>();
  const patches: Promise<unknown>[] = [];

  const keyOf = (req: Request): string | undefined => {
    const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(req.headers.authorization ?? '');
    if (!m) return undefined;
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    if (!decoded.endsWith(':') || decoded.indexOf(':') !== decoded.length - 1) return undefined;
    const key = decoded.slice(0, -1);
    return KEYS.has(key) ? key : undefined;
  };
  const authenticated = (req: Request, res: Response): string | undefined => {
    const key = keyOf(req) ?? (faults.noAuth ? 'key-a' : undefined);
    if (key === undefined) res.status(401).json({ error: 'Unauthorized' });
    return key;
  };

  const complete = (id: string, score = 87) => {
    const interview = interviews.get(id);
    if (!interview) throw new Error(`no interview ${id}`);
    interview.status = 'complete';
    interview.score = score;
    if (faults.neverPatch) return;
    patches.push(
      request(interview.url, { method: 'PATCH', headers: { authorization: `Basic ${Buffer.from(`${interview.key}:`).toString('base64')}` } }).then((r) => r.body.dump()),
    );
  };

  const app = express();
  app.get('/greenhouse/list_tests', (req, res) => {
    const key = authenticated(req, res);
    if (key) res.json(KEYS.get(key));
  });
  app.post('/greenhouse/send_test', express.json(), (req, res) => {
    const key = authenticated(req, res);
    if (!key) return;
    const body = SendTest.safeParse(req.body);
    if (!body.success) return void res.status(422).json({ error: 'Invalid body', errors: z.flattenError(body.error).fieldErrors });
    const lists = faults.anyCustomersTest ? [...KEYS.values()] : [KEYS.get(key)!];
    if (!lists.flat().some((t) => t.partner_test_id === body.data.partner_test_id)) return void res.status(422).json({ error: 'Unknown test' });
    const url = new URL(body.data.url);
    const allowed = faults.anyUrl || allowedUrl(url) || (faults.anyHttpUrl && url.protocol === 'http:' && url.username === '' && url.password === '');
    if (!allowed) return void res.status(422).json({ error: 'url is not on an allowed host' });
    const before = faults.oneInterviewPerTest ? [...interviews].find(([, i]) => i.key === key && i.testId === body.data.partner_test_id) : undefined;
    if (before) return void res.json({ partner_interview_id: before[0] });
    const id = randomUUID();
    interviews.set(id, { key, testId: body.data.partner_test_id, url: body.data.url, email: body.data.candidate.email, status: 'sent' });
    res.json({ partner_interview_id: id });
  });
  app.get('/greenhouse/test_status', (req, res) => {
    const key = authenticated(req, res);
    if (!key) return;
    const id = typeof req.query.partner_interview_id === 'string' ? req.query.partner_interview_id : '';
    if (id === '') return void res.status(422).json({ error: 'partner_interview_id is required' });
    const interview = interviews.get(id);
    if (!interview || (interview.key !== key && !faults.leaksInterviews)) return void res.status(404).json({ error: 'Not found' });
    if (interview.status !== 'complete') return void res.json({ partner_status: interview.status });
    res.json({
      partner_status: 'complete',
      partner_profile_url: `http://${req.headers.host}/results/${id}`,
      partner_score: faults.scoreAsString ? String(interview.score) : interview.score,
      metadata: { Result: 'passed', 'Time spent': '42 min' },
    });
  });
  app.post('/greenhouse/response_error', express.json(), (req, res) => {
    if (!authenticated(req, res)) return;
    if (!ResponseError.safeParse(req.body).success) return void res.status(422).json({ error: 'Invalid body' });
    res.json({ status: 200 });
  });
  app.post('/vendor/reports/:id/result', express.raw({ type: 'application/json' }), (req, res) => {
    const id = req.params.id;
    const signed = verifyVendorSignature(FAKE_RESULTS_SECRET, id, req.body as Buffer, req.headers['x-vendor-signature'], Date.now());
    if (!signed.ok) return void res.status(401).json({ error: 'Invalid signature' });
    if (!interviews.has(id)) return void res.status(404).json({ error: 'Not found' });
    complete(id);
    res.json({ id, status: 'completed' });
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    /** Where the checker finds the four endpoints. */
    baseUrl: `${url}/greenhouse`,
    keys: { a: 'key-a', b: 'key-b' },
    interviews,
    complete,
    async close() {
      await Promise.allSettled(patches);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
