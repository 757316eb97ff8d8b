import { kitPlatforms } from '../../src/partner/platforms/index.js';
import { fakeClock } from '../support/partner.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Partner } from '../../src/contract/schemas.js';
import { PLATFORM_OPERATIONS, platformApiDocument } from '../../src/mock-platform/openapi/document.js';
import { SEED_API_TOKENS } from '../../src/mock-platform/seed.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock-platform/server.js';
import {
  EXAMPLE_COMPANY_ID,
  EXAMPLE_GREENHOUSE_INTERVIEW,
  EXAMPLE_TIME_MS,
  EXAMPLE_VENDOR_RESULTS_SECRET,
  EXAMPLE_WEBHOOK_SECRET,
  partnerOperations,
  partnerApiDocument,
} from '../../src/partner/openapi.js';
import { accountStore } from '../../src/partner/accounts/store.js';
import { invitationStore } from '../../src/partner/invitations/store.js';
import { connectionStore } from '../../src/partner/connections/store.js';
import { DEV_CANDIDATE_LINK_SECRET } from '../../src/partner/config.js';
import { systemClock } from '../../src/lib/clock.js';
import { dollars } from '../support/database.js';
import { startKitPartner, type KitPartner } from '../support/kit-partner.js';
import { operationsOf, problemOf, runExamples, type ExampleRun } from './support.js';

/**
 * Every example in both OpenAPI documents, sent to a running server: each is answered with its
 * documented status, with a body that matches the documented schema and has the documented
 * example's shape. A route that changes its answers fails here until its document changes too.
 */

const expectAllAsDocumented = (runs: ExampleRun[], doc: Parameters<typeof operationsOf>[0]) => {
  const documented = operationsOf(doc).reduce((n, { op }) => n + op['x-examples'].length, 0);
  expect(runs).toHaveLength(documented);
  expect(runs.map(problemOf).filter(Boolean)).toEqual([]);
};

describe("the partner's document, against the kit's partner", () => {
  let partner: KitPartner;
  beforeAll(async () => {
    partner = await startKitPartner({
      WEBHOOK_SECRETS: `${EXAMPLE_COMPANY_ID}:${EXAMPLE_WEBHOOK_SECRET}`,
      VENDOR_RESULTS_SECRET: EXAMPLE_VENDOR_RESULTS_SECRET,
    }, { clock: fakeClock(EXAMPLE_TIME_MS) });
  });
  afterAll(() => partner?.close());

  it('answers every example as documented', async () => {
    // The account the examples follow: not bound yet, with tests 1 and 2.
    const customer = await partner.customer('Acme Corp', ['JavaScript', 'SQL']);
    expect(customer.tests.map((t) => t.id)).toEqual([1, 2]);
    const doc = partnerApiDocument();
    /** test_status's examples ask about an interview Greenhouse sent this account earlier, completed with 80%. */
    const given = async (operationId: string) => {
      /** Ashby's start examples are of an account whose Ashby API key is set: without one, a start is refused. */
      if (operationId === 'ashbyStartAssessment') {
        const account = (await accountStore(partner.sql, systemClock).authenticate(customer.token))!;
        await connectionStore(partner.sql, systemClock, DEV_CANDIDATE_LINK_SECRET).setCredential(account.id, 'ashby', 'example-ashby-api-key');
        return;
      }
      if (operationId !== 'greenhouseTestStatus') return;
      const account = (await accountStore(partner.sql, systemClock).authenticate(customer.token))!;
      const created = await invitationStore(partner.sql, systemClock).create({
        reportId: EXAMPLE_GREENHOUSE_INTERVIEW,
        accountId: account.id,
        companyId: 0,
        candidateId: 0,
        testId: String(customer.tests[0]!.id),
        testName: 'JavaScript',
        firstName: 'Harry',
        lastName: 'Potter',
        email: 'hpotter@hogwarts.edu',
        phone: null,
        extraInputs: {},
        platform: 'greenhouse',
        platformData: {},
      });
      expect(created).toBe('created');
      await partner.sql.run(dollars("UPDATE invitations SET status = 'completed', score = '80%', completed_at = ? WHERE report_id = ?"), [
        new Date(EXAMPLE_TIME_MS).toISOString(),
        EXAMPLE_GREENHOUSE_INTERVIEW,
      ]);
    };
    const runs = await runExamples({
      doc,
      baseUrl: partner.url,
      operations: partnerOperations(kitPlatforms().flatMap((p) => (p.api ? [p.api] : []))),
      credentials: { customerToken: customer.token, greenhouseKey: customer.token, ashbyKey: customer.token },
      before: given,
    });
    expectAllAsDocumented(runs, doc);
  });
});

describe("the platform's document, against the mock", () => {
  let mock: RunningMockPlatform;
  let partner: KitPartner;
  beforeAll(async () => {
    [mock, partner] = await Promise.all([startMockPlatform({ port: 0, logLevel: 'silent' }), startKitPartner()]);
  });
  afterAll(async () => {
    await Promise.all([mock?.close(), partner?.close()]);
  });

  it('answers every example as documented', async () => {
    const doc = platformApiDocument(mock.url);
    const acme = SEED_API_TOKENS.find((t) => t.companyId === 1)!;
    const credentials: Record<string, string> = { apiToken: acme.token };
    const param = (operationId: string, name: string) => {
      const found = operationsOf(doc).find(({ op }) => op.operationId === operationId)!;
      return String(found.op.parameters!.find((p) => p.name === name)!.schema.examples![0]);
    };

    /**
     * The reports examples presuppose what a partner's life on the platform brings about: the
     * partner registered (again: the record examples end by deleting it), integrated by company
     * 1 with a token of the kit's partner, and the report in the examples sent to candidate 17.
     */
    const given = async (operationId: string) => {
      if (operationId !== 'updateReport') return;
      const codename = param('updateReport', 'codename');
      const reportId = param('updateReport', 'report_id');
      const callbacks = `${partner.url}/callbacks`;
      const registered = await request(`${mock.url}/api/p/${codename}/c/${acme.companyId}/partner`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          kind: 'assessment',
          name: 'Demo Assessments',
          urls: {
            help_article: `${partner.url}/`,
            validate_token: `${callbacks}/validate_token`,
            tests: `${callbacks}/tests`,
            send_candidate: `${callbacks}/send_candidate`,
          },
        }),
      });
      expect(registered.statusCode).toBe(201);
      credentials.partnerSecret = Partner.parse(((await registered.body.json()) as { partner: unknown }).partner).secret;

      const customer = await partner.customer('Acme Corp', ['JavaScript']);
      const marketplace = (path: string, body: unknown) =>
        request(`${mock.url}/api/marketplace/c/${acme.companyId}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await marketplace(`/partners/${codename}/integration`, { token: customer.token })).statusCode).toBe(201);
      const sent = await marketplace(`/partners/${codename}/send`, {
        candidate_id: 17,
        test_id: customer.tests[0]!.id,
        test_name: 'JavaScript',
        report_id: reportId,
      });
      expect(sent.statusCode, await sent.body.text()).toBe(201);
    };

    const runs = await runExamples({ doc, baseUrl: mock.url, operations: PLATFORM_OPERATIONS, credentials, before: given });
    expectAllAsDocumented(runs, doc);
  });
});
