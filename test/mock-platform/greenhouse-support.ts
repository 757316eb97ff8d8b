import express from 'express';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';

/** The Greenhouse company the mock seeds, its job's stages, and its candidates. */
export const INITECH = 1;
export const TAKE_HOME_STAGE = 2;
export const KATHERINE = 1;
export const MARGARET = 2;

export const API_KEY = 'ptk_greenhouse_customer_0001';
export const basic = (key: string, password = '') => `Basic ${Buffer.from(`${key}:${password}`).toString('base64')}`;

export interface Received {
  method: string;
  path: string;
  query: Record<string, unknown>;
  authorization: string | undefined;
  body: unknown;
}

/**
 * A partner that follows docs/greenhouse.md, on a port of its own: it checks the Basic key,
 * lists two tests, answers send_test with a new partner_interview_id (and, with `patchAfterSend`,
 * then PATCHes the `url` it was given, as the kit does once the candidate has finished), answers
 * test_status, and takes response_error. A test changes an answer through `state`. It records every call it receives and
 * the PATCHes' answers.
 */
export async function fakeGreenhousePartner(options: { key?: string; patchAfterSend?: boolean } = {}) {
  const key = options.key ?? API_KEY;
  const received: Received[] = [];
  const patches: { url: string; status: number }[] = [];
  const state = {
    /** list_tests' answer. */
    tests: [
      { partner_test_id: '12345', partner_test_name: 'JavaScript fundamentals' },
      { partner_test_id: '12346', partner_test_name: 'SQL basics' },
    ] as unknown,
    /** send_test's answer; by default a new partner_interview_id. */
    sendAnswer: undefined as unknown,
    status: {
      partner_status: 'complete',
      partner_score: 80,
      partner_profile_url: 'https://partner.example/results?token=abc',
      metadata: { Result: 'passed', Summary: 'Strong on recursion', 'Time spent': '42 min' },
    } as unknown,
  };

  const app = express();
  app.use(express.json());
  app.use((req, res, next) => {
    received.push({ method: req.method, path: req.path, query: { ...req.query }, authorization: req.headers.authorization, body: req.body as unknown });
    if (req.headers.authorization !== basic(key)) return void res.status(401).json({ error: 'Invalid API key' });
    next();
  });
  app.get('/greenhouse/list_tests', (_req, res) => {
    res.json(state.tests);
  });
  app.post('/greenhouse/send_test', (req, res) => {
    const url = (req.body as { url: string }).url;
    res.json(state.sendAnswer ?? { partner_interview_id: randomUUID() });
    if (options.patchAfterSend) {
      res.once('finish', () => {
        void patch(url, key).then((status) => patches.push({ url, status }));
      });
    }
  });
  app.get('/greenhouse/test_status', (_req, res) => {
    res.json(state.status);
  });
  app.post('/greenhouse/response_error', (_req, res) => {
    res.json({ status: 200 });
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    patches,
    state,
    calls: (path: string) => received.filter((r) => r.path === `/greenhouse/${path}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type FakeGreenhousePartner = Awaited<ReturnType<typeof fakeGreenhousePartner>>;

/** The partner's PATCH of a take-home test's url: no body, the key as Basic. */
export async function patch(url: string, key: string): Promise<number> {
  const res = await fetch(url, { method: 'PATCH', headers: { authorization: basic(key) } });
  await res.arrayBuffer();
  return res.status;
}

/** The mock, listening (the partner PATCHes it back), with Initech's partner configured. */
export async function greenhouseSandbox(partner: FakeGreenhousePartner): Promise<RunningMockPlatform> {
  const mock = await startMockPlatform({ port: 0, logLevel: 'silent', webhookWorker: false });
  await request(mock.url)
    .post(`/api/greenhouse/companies/${INITECH}/partner`)
    .send({ name: 'Skill Check', api_key: API_KEY, base_url: partner.url })
    .expect(200);
  return mock;
}

/** A sandbox form post, as the browser sends it. */
export const submit = (mock: RunningMockPlatform, path: string, form: Record<string, string>) =>
  request(mock.url).post(path).type('form').send(form).expect(303);

/** Picks the partner's first listed test for the take-home stage, as a recruiter does on the company page. */
export async function pickFirstTest(mock: RunningMockPlatform) {
  await submit(mock, `/greenhouse/companies/${INITECH}/stages/${TAKE_HOME_STAGE}/test`, {
    test: JSON.stringify({ id: '12345', name: 'JavaScript fundamentals' }),
  });
}
