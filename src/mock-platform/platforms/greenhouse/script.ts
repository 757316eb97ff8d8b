import { notFound, unprocessable } from '../../../lib/errors.js';
import { parseOr422 } from '../../../lib/http/validate.js';
import type { ScriptedCandidate, ScriptedPlatform, ScriptedReport, ScriptOutcome } from '../plugin.js';
import { PartnerInput, partnerJson } from './routes.js';
import { GREENHOUSE_COMPANY, TAKE_HOME_STAGE } from './seed.js';
import { shownStatus, type Greenhouse, type Outcome } from './service.js';
import type { GreenhouseCandidate, GreenhouseStore, TakeHomeTest } from './store.js';

/**
 * Initech's recruiter as a script drives it (`/_mock/platforms/greenhouse/…`, the harness): the
 * same actions as the pages, the same calls to the partner. A send gives the test to the
 * candidate's Take-Home Test stage (unless a stage of the job sends it already) and clicks "Send
 * Test"; a test's status is what the last `test_status` answer said, read after the partner's
 * PATCH as Greenhouse reads it.
 */
export function greenhouseScript(deps: { greenhouse: Greenhouse; store: GreenhouseStore }): ScriptedPlatform {
  const { greenhouse, store } = deps;
  const companyId = GREENHOUSE_COMPANY.id;
  const companyPage = `/greenhouse/companies/${companyId}`;

  const candidateJson = (c: GreenhouseCandidate): ScriptedCandidate => ({ id: String(c.id), name: `${c.firstName} ${c.lastName}`, email: c.email });
  const candidateOf = (id: string | undefined): GreenhouseCandidate => {
    const found = id === undefined ? store.candidates(companyId)[0] : /^[1-9]\d{0,15}$/.test(id) ? store.candidate(companyId, Number(id)) : undefined;
    if (!found) throw notFound('Unknown candidate');
    return found;
  };
  const reportOf = (t: TakeHomeTest): ScriptedReport => ({
    // Only tests the partner accepted are reports: their partner_interview_id is set.
    id: t.partnerInterviewId ?? '',
    test: { id: t.partnerTestId, name: t.partnerTestName },
    candidate: candidateJson(store.candidate(t.companyId, t.candidateId)!),
    status: shownStatus(t),
    complete: t.partnerStatus === 'complete',
    score: t.partnerScore,
    resultsUrl: t.partnerProfileUrl,
    details: t.metadata ?? {},
    problem: t.problem ?? t.deliveryError,
    page: `/greenhouse/companies/${t.companyId}/candidates/${t.candidateId}#test-${t.id}`,
    updatedAt: t.updatedAt,
  });
  const outcome = <T, U>(o: Outcome<T>, map: (value: T) => U): ScriptOutcome<U> =>
    o.ok ? { ok: true, value: map(o.value) } : { ok: false, refused: o.refused, message: o.message };

  /** The stage of the candidate's job that sends the test, else its Take-Home Test stage given it. */
  const stageFor = (candidate: GreenhouseCandidate, test: { id: string; name: string }): number => {
    const stages = store.jobs(companyId).find((j) => j.id === candidate.jobId)?.stages ?? [];
    const sending = stages.find((s) => s.test?.id === test.id);
    if (sending) return sending.id;
    const takeHome = stages.find((s) => s.id === TAKE_HOME_STAGE.id);
    if (!takeHome) throw unprocessable(`${candidate.firstName}'s job has no ${TAKE_HOME_STAGE.name} stage to send the test at.`);
    greenhouse.pickTest(companyId, takeHome.id, test);
    return takeHome.id;
  };

  return {
    company: () => ({ id: String(companyId), name: greenhouse.company(companyId).name, page: companyPage }),
    candidates: () => store.candidates(companyId).map(candidateJson),

    // As the partnerships team configures a partner: its base URL, the customer's token as the key.
    async connect(partner) {
      const input = parseOr422(PartnerInput, { name: partner.name, api_key: partner.token, base_url: partner.url });
      const configured = greenhouse.configure(companyId, { name: input.name, apiKey: input.api_key, baseUrl: input.base_url });
      return { ok: true, value: { connection: partnerJson(configured) } };
    },

    async listTests() {
      return outcome(await greenhouse.listTests(companyId), (tests) => tests);
    },

    async send({ testId, testName, candidateId }) {
      const candidate = candidateOf(candidateId);
      let name = testName;
      if (name === undefined) {
        // Greenhouse sends only a test it listed: a stage is given one from list_tests.
        const listed = await greenhouse.listTests(companyId);
        if (!listed.ok) return { ok: false, refused: listed.refused, message: listed.message };
        name = listed.value.find((t) => t.id === testId)?.name;
        if (name === undefined) throw unprocessable(`The partner lists no test "${testId}" to ${GREENHOUSE_COMPANY.name}.`);
      }
      const stageId = stageFor(candidate, { id: testId, name });
      return outcome(await greenhouse.send(companyId, candidate.id, stageId), reportOf);
    },

    report(reportId) {
      const test = store.testByInterviewId(reportId);
      return test && test.companyId === companyId && test.delivery === 'delivered' ? reportOf(test) : undefined;
    },
  };
}
