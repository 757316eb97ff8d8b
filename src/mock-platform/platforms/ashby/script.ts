import { notFound, unprocessable } from '../../../lib/errors.js';
import { parseOr422 } from '../../../lib/http/validate.js';
import type { ScriptedCandidate, ScriptedPlatform, ScriptedReport, ScriptOutcome } from '../plugin.js';
import { PartnerInput, partnerJson } from './pages.js';
import { ASHBY_COMPANY, ASSESSMENT_STAGE } from './seed.js';
import { shownStatus, type Ashby, type Outcome } from './service.js';
import type { Assessment, AshbyCandidate, AshbyStore } from './store.js';

/** Where the kit answers Ashby, under the partner's public URL (docs/ashby.md §2). */
const KIT_BASE_PATH = '/ashby';

/**
 * Hooli's recruiter as a script drives it (`/_mock/platforms/ashby/…`, the harness): the same
 * actions as the pages, the same calls to the partner. `connect` is the company pasting the
 * partner's key (the customer's token) for the partner's base URL (`{partner}/ashby`, where the kit
 * answers), and hands back the Ashby API key the company issued, which the partner must hold. A
 * send starts the assessment for the candidate's first application, at the stage of its job that
 * has it (else its Technical Assessment stage, given it); a report's status is what the partner's
 * updates said last.
 */
export function ashbyScript(deps: { ashby: Ashby; store: AshbyStore }): ScriptedPlatform {
  const { ashby, store } = deps;
  const companyId = ASHBY_COMPANY.id;
  const companyPage = `/ashby/companies/${companyId}`;

  const candidateJson = (c: AshbyCandidate): ScriptedCandidate => ({ id: String(c.id), name: `${c.firstName} ${c.lastName}`.trim(), email: c.email });
  const candidateOf = (id: string | undefined): AshbyCandidate => {
    const found = id === undefined ? store.candidates(companyId)[0] : /^[1-9]\d{0,15}$/.test(id) ? store.candidate(companyId, Number(id)) : undefined;
    if (!found) throw notFound('Unknown candidate');
    return found;
  };
  const reportOf = (a: Assessment): ScriptedReport => {
    const application = store.application(a.companyId, a.applicationId)!;
    const result = a.result;
    return {
      id: a.assessmentId ?? '',
      test: { id: a.assessmentTypeId, name: a.assessmentName },
      candidate: candidateJson(store.candidate(a.companyId, application.candidateId)!),
      status: shownStatus(a),
      complete: result !== null,
      // The score as Ashby shows it: a number or a text; a pass or fail is in `details`.
      score: result === null || typeof result.value === 'boolean' ? null : result.value,
      resultsUrl: a.profileUrl,
      details: Object.fromEntries([
        ...(result && typeof result.value === 'boolean' ? [[result.label, result.value] as const] : []),
        ...a.metadata.map((d) => [d.label, d.value] as const),
        ...(a.cancelledReason !== null ? [['Cancelled', a.cancelledReason] as const] : []),
      ]),
      problem: a.problem ?? a.deliveryError,
      page: `${companyPage}/candidates/${application.candidateId}#assessment-${a.id}`,
      updatedAt: a.updatedAt,
    };
  };
  const outcome = <T, U>(o: Outcome<T>, map: (value: T) => U): ScriptOutcome<U> =>
    o.ok ? { ok: true, value: map(o.value) } : { ok: false, refused: o.refused, message: o.message };

  /** The stage of the application's job that starts the assessment, else its Technical Assessment stage given it. */
  const stageFor = (jobId: number, assessment: { id: string; name: string }): number => {
    const stages = store.jobs(companyId).find((j) => j.id === jobId)?.stages ?? [];
    const starting = stages.find((s) => s.assessment?.id === assessment.id);
    if (starting) return starting.id;
    const stage = stages.find((s) => s.name === ASSESSMENT_STAGE);
    if (!stage) throw unprocessable(`The job has no ${ASSESSMENT_STAGE} stage to start the assessment at.`);
    ashby.pickAssessment(companyId, stage.id, assessment);
    return stage.id;
  };

  return {
    company: () => ({ id: String(companyId), name: ashby.company(companyId).name, page: companyPage }),
    candidates: () => store.candidates(companyId).map(candidateJson),

    // As the company connects a partner in Ashby: its base URL, the key it gave the customer; the
    // partner is given the company's Ashby API key in return.
    async connect(partner) {
      const input = parseOr422(PartnerInput, { name: partner.name, api_key: partner.token, base_url: `${partner.url.replace(/\/+$/, '')}${KIT_BASE_PATH}` });
      const connected = ashby.connect(companyId, { name: input.name, baseUrl: input.base_url, apiKey: input.api_key });
      return { ok: true, value: { connection: partnerJson(connected), credential: ashby.company(companyId).apiKey } };
    },

    async listTests() {
      return outcome(await ashby.listAssessments(companyId), (listed) => listed.map((a) => ({ id: a.id, name: a.name })));
    },

    async send({ testId, testName, candidateId }) {
      const candidate = candidateOf(candidateId);
      const application = store.applicationsOf(candidate.id)[0];
      if (!application) throw unprocessable(`${candidate.firstName} has no application to start an assessment for.`);
      let name = testName;
      if (name === undefined) {
        // Ashby starts only an assessment the partner listed: a stage is given one from assessment.list.
        const listed = await ashby.listAssessments(companyId);
        if (!listed.ok) return { ok: false, refused: listed.refused, message: listed.message };
        name = listed.value.find((a) => a.id === testId)?.name;
        if (name === undefined) throw unprocessable(`The partner lists no assessment "${testId}" to ${ASHBY_COMPANY.name}.`);
      }
      const stageId = stageFor(application.jobId, { id: testId, name });
      return outcome(await ashby.start(companyId, application.id, stageId), reportOf);
    },

    report(reportId) {
      const found = store.byAssessmentId(companyId, reportId);
      return found && reportOf(found);
    },
  };
}
