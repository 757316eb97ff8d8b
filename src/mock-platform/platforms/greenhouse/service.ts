import { createHash, timingSafeEqual } from 'node:crypto';
import { notFound, unauthorized, unprocessable } from '../../../lib/errors.js';
import { ListTestsAnswer, SendTestAnswer, TestStatusAnswer } from './answers.js';
import type { GreenhouseCall, GreenhouseClient, Reading } from './client.js';
import type { GreenhouseCandidate, GreenhousePartner, GreenhouseStore, PartnerEndpoints, TakeHomeTest } from './store.js';

/** Where the partner PATCHes "the test is complete": Greenhouse's own path, on the mock. */
export const TAKE_HOME_TESTS_PATH = '/integrations/testing_partners/take_home_tests';

/** The four endpoints under a partner's base URL (docs/greenhouse.md §2: `{PUBLIC_URL}/greenhouse/…`). */
export function endpointsUnder(baseUrl: string): PartnerEndpoints {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    listTests: `${base}/greenhouse/list_tests`,
    sendTest: `${base}/greenhouse/send_test`,
    testStatus: `${base}/greenhouse/test_status`,
    responseError: `${base}/greenhouse/response_error`,
  };
}

/** A test's state as Greenhouse shows it: its badge on the candidate's page, `status` to a script. */
export const shownStatus = (t: TakeHomeTest): string =>
  t.delivery === 'pending' ? 'sending…' : t.delivery === 'failed' ? 'not sent' : (t.partnerStatus ?? 'sent');

export interface PartnerTest {
  id: string;
  name: string;
}

/**
 * An action either went through or failed at the partner, with what the recruiter is shown;
 * `refused` when the partner answered a 4xx (see `Reading`).
 */
export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string; refused: boolean };

/** The failure of an action, from what Greenhouse made of the partner's answer. */
const failure = (read: Exclude<Reading<unknown>, { kind: 'read' }>) =>
  ({ ok: false, message: read.message, refused: read.kind === 'failed' && read.refused }) as const;

export type Greenhouse = ReturnType<typeof greenhouse>;

/**
 * What Greenhouse does with an assessment partner (docs/greenhouse.md): a company enters the
 * partner's key and URLs, lists its tests and picks one for an interview stage, sends it to a
 * candidate; when the partner PATCHes the test's url, or the recruiter asks, it reads
 * `test_status` and shows the answer. Every answer is read as Greenhouse reads it: a malformed one
 * is reported to the partner with `response_error` and shown as a problem, never stored.
 */
export function greenhouse(deps: {
  store: GreenhouseStore;
  client: GreenhouseClient;
  /** Where the mock is reached: send_test's `url` and the candidate's links are built from it. */
  publicUrl: string;
  /** Told of a status check that failed unexpectedly after a PATCH was answered. */
  onBackgroundError: (err: unknown, testId: number) => void;
}) {
  const { store, client, publicUrl } = deps;

  const company = (companyId: number) => {
    const found = store.company(companyId);
    if (!found) throw notFound('Unknown company');
    return found;
  };
  const partner = (companyId: number): GreenhousePartner => {
    company(companyId);
    const found = store.partner(companyId);
    if (!found) throw unprocessable("Enter the partner's API key and base URL first.");
    return found;
  };

  /** Tells the partner its answer to `call` was malformed; what it answers changes nothing. */
  const reportMalformed = async (p: GreenhousePartner, call: GreenhouseCall, errors: string[], about: ResponseErrorAbout = {}) => {
    const body = { api_call: call.replace(/^greenhouse\./, ''), errors, ...about };
    await client.call(
      { call: 'greenhouse.response_error', method: 'POST', url: p.urls.responseError, apiKey: p.apiKey, body },
      { partnerName: p.name, interviewId: about.partner_interview_id },
    );
  };

  const candidateBody = (c: GreenhouseCandidate) => ({
    first_name: c.firstName,
    last_name: c.lastName,
    preferred_name: c.preferredName,
    email: c.email,
    phone_number: c.phoneNumber,
    resume_url: `${publicUrl}/greenhouse/companies/${c.companyId}/candidates/${c.id}/resume`,
    greenhouse_profile_url: `${publicUrl}/greenhouse/companies/${c.companyId}/candidates/${c.id}`,
  });

  /** `GET test_status` for a sent test; stores a valid answer, else the problem. */
  const checkStatus = async (testId: number): Promise<Outcome<TakeHomeTest>> => {
    const test = store.test(testId);
    if (!test || test.delivery === 'failed') throw notFound('Unknown test');
    if (test.partnerInterviewId === null) throw unprocessable('The test is still being sent.');
    const p = partner(test.companyId);
    const interviewId = test.partnerInterviewId;
    const url = new URL(p.urls.testStatus);
    url.searchParams.set('partner_interview_id', interviewId);

    const read = await client.call(
      { call: 'greenhouse.test_status', method: 'GET', url: url.href, apiKey: p.apiKey },
      { schema: TestStatusAnswer, partnerName: p.name, interviewId },
    );
    if (read.kind === 'read') {
      store.storeStatus(testId, {
        partnerStatus: read.value.partner_status,
        partnerScore: read.value.partner_score ?? null,
        partnerProfileUrl: read.value.partner_profile_url ?? null,
        metadata: read.value.metadata ?? null,
      });
      return { ok: true, value: store.test(testId)! };
    }
    store.storeProblem(testId, read.message);
    if (read.kind === 'malformed') {
      const candidate = store.candidate(test.companyId, test.candidateId);
      await reportMalformed(p, 'greenhouse.test_status', read.errors, {
        partner_test_id: test.partnerTestId,
        partner_test_name: test.partnerTestName,
        partner_interview_id: interviewId,
        ...(candidate && { candidate_email: candidate.email }),
      });
    }
    return failure(read);
  };

  /** After a PATCH was answered: the status, read now, or once send_test has answered. */
  const checkAfterPatch = (testId: number) => {
    const test = store.test(testId);
    if (test?.delivery !== 'delivered') return;
    checkStatus(testId).catch((err: unknown) => deps.onBackgroundError(err, testId));
  };

  return {
    company,
    /** The partner the company configured, if any. */
    configured: (companyId: number): GreenhousePartner | undefined => (company(companyId), store.partner(companyId)),
    /** Stores the partner as the partnerships team configures it: its name, the customer's key, its four URLs. */
    configure(companyId: number, input: { name: string; apiKey: string; baseUrl: string }): GreenhousePartner {
      company(companyId);
      return store.savePartner(companyId, { name: input.name, apiKey: input.apiKey, urls: endpointsUnder(input.baseUrl) });
    },

    /** `GET list_tests`, as when a recruiter adds the partner's test to an interview stage. */
    async listTests(companyId: number): Promise<Outcome<PartnerTest[]>> {
      const p = partner(companyId);
      const read = await client.call(
        { call: 'greenhouse.list_tests', method: 'GET', url: p.urls.listTests, apiKey: p.apiKey },
        { schema: ListTestsAnswer, partnerName: p.name },
      );
      if (read.kind === 'read') return { ok: true, value: read.value.map((t) => ({ id: t.partner_test_id, name: t.partner_test_name })) };
      if (read.kind === 'malformed') await reportMalformed(p, 'greenhouse.list_tests', read.errors);
      return failure(read);
    },

    /** Gives an interview stage a partner test (`null` takes it away). */
    pickTest(companyId: number, stageId: number, test: PartnerTest | null): void {
      company(companyId);
      if (!store.pickTest(companyId, stageId, test)) throw notFound('Unknown interview stage');
    },

    /** "Send Test": `POST send_test` for the test of the stage; stores the partner_interview_id it answers. */
    async send(companyId: number, candidateId: number, stageId: number): Promise<Outcome<TakeHomeTest>> {
      const p = partner(companyId);
      const candidate = store.candidate(companyId, candidateId);
      if (!candidate) throw notFound('Unknown candidate');
      const stage = store.stage(companyId, stageId);
      if (!stage || stage.jobId !== candidate.jobId) throw notFound('Unknown interview stage');
      if (!stage.test) throw unprocessable(`Pick a test for the stage "${stage.name}" first.`);

      const test = store.createTest({ companyId, candidateId, stageId, partnerTestId: stage.test.id, partnerTestName: stage.test.name });
      const body = {
        partner_test_id: stage.test.id,
        candidate: candidateBody(candidate),
        sent_by: company(companyId).sentBy,
        url: `${publicUrl}${TAKE_HOME_TESTS_PATH}/${test.id}`,
      };
      const read = await client.call(
        { call: 'greenhouse.send_test', method: 'POST', url: p.urls.sendTest, apiKey: p.apiKey, body },
        { schema: SendTestAnswer, partnerName: p.name, interviewId: (answer) => answer.partner_interview_id },
      );
      if (read.kind !== 'read') {
        store.markFailed(test.id, read.message);
        if (read.kind === 'malformed') {
          await reportMalformed(p, 'greenhouse.send_test', read.errors, {
            partner_test_id: stage.test.id,
            partner_test_name: stage.test.name,
            candidate_email: candidate.email,
          });
        }
        return failure(read);
      }
      store.markDelivered(test.id, read.value.partner_interview_id);
      // The partner may have PATCHed while its send_test answer was on its way.
      if (store.test(test.id)!.patchedAt !== null) checkAfterPatch(test.id);
      return { ok: true, value: store.test(test.id)! };
    },

    /** "Check status now", as Greenhouse also polls. */
    async checkNow(companyId: number, testId: number): Promise<Outcome<TakeHomeTest>> {
      const test = store.test(testId);
      if (!test || test.companyId !== companyId) throw notFound('Unknown test');
      return checkStatus(testId);
    },

    /**
     * The partner's PATCH of a test's url: authenticated with the key of a company that has
     * configured a partner (401 otherwise), for a test of that company (404 otherwise). Returns
     * the test, and what to do once the 200 is on its way: read the test's status.
     */
    receivePatch(authorization: string | undefined, testId: number | undefined): { test: TakeHomeTest; then: () => void } {
      const companyId = companyOfKey(store.partners(), authorization);
      if (companyId === undefined) throw unauthorized('Invalid API key: send Authorization: Basic base64(key + ":")');
      const test = testId === undefined ? undefined : store.test(testId);
      if (!test || test.companyId !== companyId || test.delivery === 'failed') throw notFound('Unknown take-home test');
      store.markPatched(test.id);
      return { test, then: () => checkAfterPatch(test.id) };
    },
  };
}

interface ResponseErrorAbout {
  partner_test_id?: string;
  partner_test_name?: string;
  partner_interview_id?: string;
  candidate_email?: string;
}

/** The company whose configured key the `Basic` header carries, with an empty password; compared in constant time. */
function companyOfKey(partners: GreenhousePartner[], authorization: string | undefined): number | undefined {
  const match = /^Basic ([A-Za-z0-9+/=]{1,2000})$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1 || colon !== decoded.length - 1) return undefined;
  const given = digest(decoded.slice(0, colon));
  let found: number | undefined;
  // Every key is compared, so the time taken does not tell which company matched.
  for (const p of partners) if (timingSafeEqual(given, digest(p.apiKey))) found ??= p.companyId;
  return found;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
