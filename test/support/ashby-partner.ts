import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { request } from 'undici';
import { z } from 'zod';
import { verifyVendorSignature } from '../../src/contract/vendor-signature.js';

/**
 * An Ashby assessment partner written from docs/ashby.md alone, on Express, for the conformance
 * checker to judge: `assessment.list`, `assessment.start` and `assessment.cancel` under
 * `<url>/ashby`, Basic authentication with a customer's key and an empty password, answers in
 * Ashby's envelope; the kit's results endpoint (`POST /vendor/reports/{id}/result`, signed with
 * FAKE_RESULTS_SECRET), after which it posts `assessment.update` to Ashby's API (`setUp`: where it
 * is, and each customer's Ashby API key) — `Started` for the candidate's progress, the result as a
 * `numeric_score` with the results page.
 *
 * Each fault makes it wrong in one way: `neverUpdates` (it posts no assessment.update at all),
 * `cancelsAnyCustomers` (a cancel finds the assessment among every customer's), `anyCustomersType`
 * (a start finds the type among every customer's), `repeatStarts` (a repeated start is a new
 * assessment), `lenientBase64` (credentials decoded leniently, characters outside base64 skipped),
 * `scoreAsText` (the score as a `string` value), `timestampInSeconds`, `partnerKeyOnUpdate` (its
 * updates carry the key it gave the customer, not the customer's Ashby API key).
 */
export interface AshbyFaults {
  neverUpdates?: boolean;
  cancelsAnyCustomers?: boolean;
  anyCustomersType?: boolean;
  repeatStarts?: boolean;
  lenientBase64?: boolean;
  scoreAsText?: boolean;
  timestampInSeconds?: boolean;
  partnerKeyOnUpdate?: boolean;
}

export const FAKE_RESULTS_SECRET = 'fake-ashby-partner-results-secret-0123456789';

/** Each customer's key and its assessments (with their ids as assessment.list gives them). */
const CUSTOMERS = new Map([
  ['key-a', [{ id: randomUUID(), name: 'JavaScript' }]],
  ['key-b', [{ id: randomUUID(), name: 'SQL' }]],
]);

const text = z.string().trim().min(1).max(200);
const StartBody = z.object({
  assessment_type_id: text,
  candidate: z.object({ ashby_id: text, first_name: text, last_name: z.string(), email: z.email(), ashby_profile_url: z.url() }),
  application: z.object({ ashby_id: text, status: z.string() }),
  job: z.object({ ashby_id: text, name: text, ashby_job_url: z.url() }),
});
const CancelBody = z.object({ assessment_id: text });

interface Assessment {
  key: string;
  typeId: string;
  applicationId: string;
  status: 'under way' | 'canceled' | 'complete';
}

const envelope = (code: string, message: string) => ({ success: false, message, errors: [code], errorInfo: { code, message } });
const STATUS = { identifier: 'status', label: 'Status', type: 'string' } as const;

export async function startAshbyPartner(faults: AshbyFaults = {}) {
  const assessments = new Map<string, Assessment>();
  const sent: Promise<unknown>[] = [];
  let ashby: { apiUrl: string; apiKeys: Record<string, string> } | undefined;

  const keyOf = (req: Request): string | undefined => {
    const m = (faults.lenientBase64 ? /^Basic (\S+)$/ : /^Basic ([A-Za-z0-9+/]+={0,2})$/).exec(req.headers.authorization ?? '');
    if (!m) return undefined;
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    if (!decoded.endsWith(':') || decoded.indexOf(':') !== decoded.length - 1) return undefined;
    const key = decoded.slice(0, -1);
    return CUSTOMERS.has(key) ? key : undefined;
  };
  const authenticated = (req: Request, res: Response): string | undefined => {
    const key = keyOf(req);
    if (key === undefined) res.status(401).json(envelope('unauthorized', 'Invalid API key'));
    return key;
  };

  /** Tells Ashby of an assessment, as the customer whose it is. */
  const update = (id: string, fields: Record<string, unknown>) => {
    const assessment = assessments.get(id)!;
    if (faults.neverUpdates || !ashby) return;
    const user = faults.partnerKeyOnUpdate ? assessment.key : ashby.apiKeys[assessment.key]!;
    const timestamp = faults.timestampInSeconds ? Math.floor(Date.now() / 1000) : Date.now();
    sent.push(
      request(`${ashby.apiUrl}/assessment.update`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${user}:`).toString('base64')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ assessment_id: id, timestamp, ...fields }),
      }).then((r) => r.body.dump()),
    );
  };

  const app = express();
  app.post('/ashby/assessment.list', express.json(), (req, res) => {
    const key = authenticated(req, res);
    if (!key) return;
    res.json({ success: true, results: CUSTOMERS.get(key)!.map((t) => ({ assessment_type_id: t.id, name: t.name, description: `${t.name}, by the fake` })) });
  });
  app.post('/ashby/assessment.start', express.json(), (req, res) => {
    const key = authenticated(req, res);
    if (!key) return;
    const body = StartBody.safeParse(req.body);
    if (!body.success) return void res.status(422).json(envelope('invalid_input', 'Invalid body'));
    const lists = faults.anyCustomersType ? [...CUSTOMERS.values()].flat() : CUSTOMERS.get(key)!;
    const typeId = body.data.assessment_type_id.toLowerCase();
    if (!lists.some((t) => t.id === typeId)) return void res.status(422).json(envelope('unknown_assessment_type', 'Unknown assessment_type_id'));
    const applicationId = body.data.application.ashby_id;
    const active = [...assessments].find(([, a]) => a.key === key && a.typeId === typeId && a.applicationId === applicationId && a.status === 'under way');
    if (active && !faults.repeatStarts) return void res.status(409).json(envelope('already_assessed', 'The candidate is already being assessed'));
    const id = randomUUID();
    assessments.set(id, { key, typeId, applicationId, status: 'under way' });
    res.json({ success: true, results: { assessment_id: id, update_request: { assessment_id: id, timestamp: Date.now(), assessment_status: { ...STATUS, value: 'Invited' } } } });
  });
  app.post('/ashby/assessment.cancel', express.json(), (req, res) => {
    const key = authenticated(req, res);
    if (!key) return;
    const body = CancelBody.safeParse(req.body);
    if (!body.success) return void res.status(422).json(envelope('invalid_input', 'Invalid body'));
    const id = body.data.assessment_id;
    const assessment = assessments.get(id);
    if (!assessment || (assessment.key !== key && !faults.cancelsAnyCustomers)) return void res.json(envelope('assessment_not_found', 'Unknown assessment_id'));
    if (assessment.status === 'complete') return void res.json(envelope('assessment_complete', 'This assessment is complete'));
    // Ashby canceled it: it is not told so (docs/ashby.md §4).
    assessment.status = 'canceled';
    res.json({ success: true, results: { assessment_id: id } });
  });
  app.post('/vendor/reports/:id/result', express.raw({ type: 'application/json' }), (req, res) => {
    const id = req.params.id;
    const signed = verifyVendorSignature(FAKE_RESULTS_SECRET, id, req.body as Buffer, req.headers['x-vendor-signature'], Date.now());
    if (!signed.ok) return void res.status(401).json({ error: 'Invalid signature' });
    const assessment = assessments.get(id);
    if (!assessment) return void res.status(404).json({ error: 'Unknown report' });
    const result = JSON.parse((req.body as Buffer).toString('utf8')) as { status: string; score?: string };
    if (assessment.status !== 'under way') return void res.status(409).json({ error: `Report already ${assessment.status}` });
    if (result.status === 'started') {
      update(id, { assessment_status: { ...STATUS, value: 'Started' } });
    } else if (result.status === 'completed') {
      assessment.status = 'complete';
      const score = faults.scoreAsText ? { type: 'string', value: result.score } : { type: 'numeric_score', value: Number.parseFloat(result.score ?? '') };
      update(id, {
        assessment_status: { ...STATUS, value: 'Completed' },
        assessment_result: { identifier: 'score', label: 'Score', ...score },
        assessment_profile_url: { identifier: 'profile', label: 'Results', type: 'url', value: `http://${req.headers.host}/results/${id}` },
      });
    } else {
      return void res.status(422).json({ error: 'Unsupported status' });
    }
    res.json({ id, status: result.status });
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    /** Where the checker finds the three endpoints. */
    baseUrl: `${url}/ashby`,
    keys: { a: 'key-a', b: 'key-b' },
    assessments,
    /** Where Ashby's API is (its ASHBY_API_URL), and each customer's Ashby API key, by the key the fake gave it. */
    setUp(apiUrl: string, apiKeys: { a: string; b: string }) {
      ashby = { apiUrl, apiKeys: { 'key-a': apiKeys.a, 'key-b': apiKeys.b } };
    },
    /** Completes an assessment as a candidate would, by hand. */
    complete(id: string) {
      assessments.get(id)!.status = 'complete';
      update(id, {
        assessment_status: { ...STATUS, value: 'Completed' },
        assessment_result: { identifier: 'score', label: 'Score', type: 'numeric_score', value: 87 },
        assessment_profile_url: { identifier: 'profile', label: 'Results', type: 'url', value: `${url}/results/${id}` },
      });
    },
    async close() {
      await Promise.allSettled(sent);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
