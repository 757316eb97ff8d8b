import express from 'express';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';

/** The Ashby company the mock seeds, its candidates, their applications, and the stages an assessment is given at. */
export const HOOLI = 1;
export const GRACE = 1;
export const ALAN = 2;
export const CHER = 3;
/** Grace's application to Backend Engineer (job 1), and to Data Analyst (job 2, a Lead). */
export const GRACE_BACKEND = 1;
export const GRACE_ANALYST = 2;
/** Backend Engineer's Technical Assessment stage. */
export const BACKEND_TECHNICAL = 2;

/** The key the partner gave the customer: what Ashby presents on its calls. */
export const PARTNER_KEY = 'ptk_ashby_customer_0001';
export const basic = (key: string, password = '') => `Basic ${Buffer.from(`${key}:${password}`).toString('base64')}`;

export const JAVASCRIPT = { assessment_type_id: '0b1f5a56-3a39-5a0e-9f57-2d2f0c3b9a11', name: 'JavaScript', description: 'JavaScript, by Skill Check' };
export const SQL = { assessment_type_id: '7c2e9d3a-1b4f-5c6d-8e7f-9a0b1c2d3e4f', name: 'SQL', description: 'SQL, by Skill Check' };

export interface Received {
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/**
 * A partner that follows docs/ashby.md, on a port of its own: it checks the Basic key, lists two
 * assessments, answers a start with a new assessment_id and an `Invited` update_request, and a
 * cancel with the id. A test changes an answer through `state`. It records every call it receives.
 */
export async function fakeAshbyPartner(options: { key?: string } = {}) {
  const key = options.key ?? PARTNER_KEY;
  const received: Received[] = [];
  const state = {
    list: { success: true, results: [JAVASCRIPT, SQL] } as unknown,
    /** The start's answer: by default a new assessment_id with `Invited` at `now`; a status other than 200 with it. */
    start: undefined as unknown,
    startStatus: 200,
    cancel: undefined as unknown,
    cancelStatus: 200,
  };

  const app = express();
  app.use(express.json());
  app.use((req, res, next) => {
    received.push({ path: req.path, authorization: req.headers.authorization, body: req.body as unknown });
    if (req.headers.authorization !== basic(key)) return void res.status(401).json({ success: false, errors: ['unauthorized'], errorInfo: { code: 'unauthorized', message: 'Invalid API key' } });
    next();
  });
  app.post('/ashby/assessment.list', (_req, res) => {
    res.json(state.list);
  });
  app.post('/ashby/assessment.start', (_req, res) => {
    const id = randomUUID();
    res.status(state.startStatus).json(
      state.start ?? {
        success: true,
        results: {
          assessment_id: id,
          update_request: { assessment_id: id, timestamp: Date.now(), assessment_status: { identifier: 'status', label: 'Status', type: 'string', value: 'Invited' } },
        },
      },
    );
  });
  app.post('/ashby/assessment.cancel', (req, res) => {
    res.status(state.cancelStatus).json(state.cancel ?? { success: true, results: { assessment_id: (req.body as { assessment_id: string }).assessment_id } });
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    state,
    calls: (call: string) => received.filter((r) => r.path === `/ashby/${call}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type FakeAshbyPartner = Awaited<ReturnType<typeof fakeAshbyPartner>>;

/** The mock, listening, with Hooli connected to the partner; and the Ashby API key Hooli issued, as connect hands it back. */
export async function ashbySandbox(partner: FakeAshbyPartner): Promise<{ mock: RunningMockPlatform; apiKey: string }> {
  const mock = await startMockPlatform({ port: 0, logLevel: 'silent', webhookWorker: false });
  const res = await request(mock.url)
    .post('/_mock/platforms/ashby/connect')
    .send({ partner_url: partner.url, partner_name: 'Skill Check', token: PARTNER_KEY })
    .expect(200);
  return { mock, apiKey: res.body.credential as string };
}

/** A sandbox form post, as the browser sends it. */
export const submit = (mock: RunningMockPlatform, path: string, form: Record<string, string>) => request(mock.url).post(path).type('form').send(form).expect(303);

/** Picks an assessment for Backend Engineer's Technical Assessment stage, as a recruiter does on the company page. */
export async function pickAssessment(mock: RunningMockPlatform, assessment: { assessment_type_id: string; name: string } = JAVASCRIPT) {
  await submit(mock, `/ashby/companies/${HOOLI}/stages/${BACKEND_TECHNICAL}/assessment`, {
    assessment: JSON.stringify({ id: assessment.assessment_type_id, name: assessment.name }),
  });
}

/** Starts the stage's assessment for Grace's Backend Engineer application; the page it lands on. */
export async function startForGrace(mock: RunningMockPlatform) {
  const res = await submit(mock, `/ashby/companies/${HOOLI}/candidates/${GRACE}/start`, { application_id: String(GRACE_BACKEND), stage_id: String(BACKEND_TECHNICAL) });
  return request(mock.url).get(res.headers.location!).expect(200);
}

/** The partner's `POST assessment.update` to the mock, with `authorization` as given. */
export function postUpdate(mock: RunningMockPlatform, body: unknown, authorization?: string) {
  const req = request(mock.url).post('/ashby/api/assessment.update');
  if (authorization !== undefined) req.set('authorization', authorization);
  return typeof body === 'string' ? req.set('content-type', 'application/json').send(body) : req.send(body as object);
}

/** A typed value of Ashby's. */
export const blob = (identifier: string, type: string, value: unknown, label = identifier) => ({ identifier, label, type, value });
