import request from 'supertest';
import type { PartnerKind } from '../../src/contract/decisions.js';
import type { Report } from '../../src/contract/schemas.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import { DEFAULT_MANIFEST, loadManifest, registerPartner } from '../../scripts/register-partner.js';
import { flowHarness, type FlowHarness, type FlowOptions } from '../invitations/support.js';

export const ACME = { id: 1, apiToken: 'mock_api_acme' } as const;
export const CANDIDATES = [17, 18, 19] as const;
export const CODENAME = 'kit-delivery';

export interface MockCall {
  id: number;
  request_body: string | null;
  response_status: number | null;
  error: string | null;
  fault: string | null;
}

/**
 * The partner (in-process, fake clock, workers driven by hand) and the bundled mock platform, each
 * on its own port, talking over real HTTP: registered, and Acme integrated with a customer token.
 */
export async function deliveryWorld(options: { kind?: PartnerKind; partner?: Omit<FlowOptions, 'platform' | 'listen' | 'kind'>; platformUrl?: (mockUrl: string) => string } = {}) {
  const mock: RunningMockPlatform = await startMockPlatform({ port: 0, logLevel: 'silent' });
  let secret = '';
  const partner: FlowHarness = await flowHarness({
    ...options.partner,
    kind: options.kind,
    listen: true,
    platform: async (partnerUrl) => {
      const registered = await registerPartner({
        platformUrl: mock.url,
        codename: CODENAME,
        companyId: ACME.id,
        apiToken: ACME.apiToken,
        partner: { ...loadManifest(DEFAULT_MANIFEST, partnerUrl), kind: options.kind ?? 'assessment' },
      });
      if (!registered.ok) throw new Error(`registration failed: ${registered.message}`);
      secret = registered.partner.secret;
      return { url: options.platformUrl?.(mock.url) ?? mock.url, codename: CODENAME, secret };
    },
  });
  const customer = await partner.customer('Acme Corp', ['JavaScript fundamentals'], null);
  await request(mock.url)
    .post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/integration`)
    .send({ token: customer.token })
    .expect(201);

  const world = {
    mock,
    /** Replaceable: a test that restarts the partner puts the new one here. */
    partner,
    customer,
    secret: () => secret,

    /** The recruiter sends the test to a candidate; returns the report id. */
    async send(candidateId: number = CANDIDATES[0]): Promise<string> {
      const test = customer.tests[0]!;
      const res = await request(mock.url)
        .post(`/api/marketplace/c/${ACME.id}/partners/${CODENAME}/send`)
        .send({ candidate_id: candidateId, test_id: test.id, test_name: test.name })
        .expect(201);
      return res.body.report.id as string;
    },

    /** The report as the platform holds it. */
    async report(reportId: string): Promise<Report & { cancel_requested_at: string | null }> {
      const res = await request(mock.url).get(`/api/marketplace/c/${ACME.id}/reports/${reportId}`).expect(200);
      return res.body.report;
    },

    /** Arms a fault on the platform's report updates endpoint. */
    async fault(spec: { status?: number; delayMs?: number; drop?: true; times?: number }) {
      await request(mock.url).post('/_mock/faults').send({ endpoint: 'reports.update', ...spec }).expect(201);
    },

    /** Report update calls the platform received, oldest first. */
    async calls(reportId?: string): Promise<MockCall[]> {
      const q = new URLSearchParams({ direction: 'inbound', endpoint: 'reports.update', order: 'asc', limit: '1000' });
      if (reportId) q.set('report_id', reportId);
      const res = await request(mock.url).get(`/_mock/calls?${q}`).expect(200);
      return res.body.calls;
    },

    /**
     * The candidate opens the link, spends `minutes` on the demo test and answers every question
     * right (or wrong) on the partner's page.
     */
    async takeTest(reportId: string, options: { right?: boolean; minutes?: number } = {}) {
      const right = options.right ?? true;
      const row = (await world.partner.row('SELECT candidate_url, test_id FROM invitations WHERE report_id = ?', reportId))!;
      const url = new URL(row.candidate_url as string);
      const token = url.searchParams.get('token')!;
      await world.partner.http().get(url.pathname + url.search).expect(200);
      world.partner.clock.advance((options.minutes ?? 0) * 60_000);
      const questions = await world.partner.rows('SELECT id, answer FROM demo_questions WHERE test_id = ? ORDER BY position', Number(row.test_id));
      const answers = Object.fromEntries(questions.map((q) => [`q${q.id}`, String(right ? q.answer : (Number(q.answer) + 1) % 2)]));
      await world.partner.http().post('/take').type('form').send({ token, ...answers }).expect(303);
    },

    async close() {
      await world.partner.close();
      await mock.close();
    },
  };
  return world;
}
export type DeliveryWorld = Awaited<ReturnType<typeof deliveryWorld>>;

/** The partner's delivery attempts for a report: which updates each request covered. */
export async function attemptRanges(world: DeliveryWorld, reportId: string) {
  return (await world.partner.updates.attemptsOf(reportId)).map((a) => [a.firstUpdateId, a.lastUpdateId, a.outcome] as const);
}
