import type { Request, Router } from 'express';
import { z } from 'zod';
import { isoAt } from '../../../lib/clock.js';
import { notFound } from '../../../lib/errors.js';
import { parseOr422 } from '../../../lib/http/validate.js';
import { idParam, param } from '../../path-params.js';
import { testChoice, type PageKit } from '../../sandbox/page-kit.js';
import { ASHBY_API_PATH, shownStatus, type Ashby, type PartnerAssessment } from './service.js';
import type { Assessment, AshbyPartner, AshbyStore } from './store.js';

/** The partner as a company connects it, from the sandbox's form or a script. */
export const PartnerInput = z.object({
  name: z.string().trim().min(1, 'is required').max(200),
  api_key: z.string().trim().min(1, 'is required').max(500),
  base_url: z
    .url({ protocol: /^https?$/, error: (issue) => (issue.input === undefined ? 'is required' : 'must be an absolute http(s) URL') })
    .max(2000)
    .refine((u) => {
      const url = new URL(u);
      return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
    }, 'must be a base URL, without credentials, query or fragment'),
});

/** What Ashby shows of a connected partner: never the key, only its last characters. */
export function partnerJson(p: AshbyPartner) {
  const base = p.baseUrl;
  return {
    company_id: p.companyId,
    name: p.name,
    base_url: base,
    // Short keys would be given away by their last characters.
    api_key_hint: p.apiKey.length >= 12 ? `…${p.apiKey.slice(-4)}` : '…',
    urls: { 'assessment.list': `${base}/assessment.list`, 'assessment.start': `${base}/assessment.start`, 'assessment.cancel': `${base}/assessment.cancel` },
    updated_at: p.updatedAt,
  };
}

const AssessmentChoice = testChoice(z.object({ id: z.string().min(1).max(500), name: z.string().min(1).max(500) }));
const PickForm = z.object({ assessment: AssessmentChoice });
const Id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const StartForm = z.object({ application_id: Id, stage_id: Id });

/** What Ashby's `assessment_status` says of an assessment that is over, whatever else the update carried. */
const FINAL_STATUSES = new Set(['Completed', 'Failed', 'Cancelled']);

/** A typed value as the page shows it. */
const shownValue = (value: string | number | boolean, type: string) =>
  type === 'boolean_success' ? (value ? 'Passed' : 'Failed') : type === 'numeric_duration_minutes' ? `${value} min` : String(value);

/** An update's timestamp (ms) as a time; undefined for one past what a date holds. */
const timeOf = (ms: number) => (Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? isoAt(ms) : undefined);

/**
 * The Ashby company's pages in the sandbox (`/ashby/companies/{id}`): the partner it connected and
 * the Ashby API key it issued, the jobs' interview stages and the assessment each starts (from
 * `assessment.list`), and each candidate's page with their applications, "Start assessment", the
 * assessments started with what the partner's updates said (status, score, profile link,
 * metadata, each update with its timestamp), and "Cancel assessment".
 */
export function registerAshbyPages(router: Router, kit: PageKit, deps: { ashby: Ashby; store: AshbyStore; publicUrl: string }): void {
  const { ashby, store, publicUrl } = deps;
  const { render, act } = kit;

  const companyOf = (req: Request) => {
    const id = idParam(req, 'companyId');
    if (id === undefined) throw notFound('Unknown company');
    return ashby.company(id);
  };
  const candidateOf = (req: Request, companyId: number) => {
    const id = idParam(req, 'candidateId');
    const candidate = id === undefined ? undefined : store.candidate(companyId, id);
    if (!candidate) throw notFound('Unknown candidate');
    return candidate;
  };
  const companyPage = (req: Request) => `/ashby/companies/${param(req, 'companyId')}`;
  const candidatePage = (req: Request) => `${companyPage(req)}/candidates/${param(req, 'candidateId')}`;
  const assessmentView = (a: Assessment) => ({
    assessment: a,
    badge: shownStatus(a),
    complete: a.result !== null,
    result: a.result && { label: a.result.label, value: shownValue(a.result.value, a.result.type), type: a.result.type },
    metadata: a.metadata.map((d) => ({ label: d.label, value: shownValue(d.value, d.type), href: d.type === 'url' ? String(d.value) : undefined })),
    startedAt: a.startedAt === null ? undefined : timeOf(a.startedAt),
    completedAt: a.completedAt === null ? undefined : timeOf(a.completedAt),
    updates: store.updatesOf(a.id).map((u) => ({ ...u, at: timeOf(u.timestamp) })),
  });

  router.get('/ashby/companies/:companyId', async (req, res) => {
    const company = companyOf(req);
    const partner = ashby.configured(company.id);
    // "List assessments" asks the partner, as Ashby does when a recruiter sets up a stage.
    let assessments: { value: string; name: string; description: string | null }[] | undefined;
    let assessmentsError: string | undefined;
    if (partner && req.query.list_assessments !== undefined) {
      const listed = await ashby.listAssessments(company.id);
      if (listed.ok) assessments = listed.value.map((a: PartnerAssessment) => ({ value: JSON.stringify({ id: a.id, name: a.name }), name: a.name, description: a.description }));
      else assessmentsError = listed.message;
    }
    render(req, res, '@ashby/company', {
      title: `${company.name} (Ashby)`,
      company,
      apiUrl: `${publicUrl}${ASHBY_API_PATH}`,
      partner: partner && partnerJson(partner),
      jobs: store.jobs(company.id),
      assessments,
      assessmentsError,
      candidates: store.candidates(company.id).map((c) => ({ candidate: c, badges: store.ofCandidate(c.id).filter((a) => a.delivery !== 'failed').map(shownStatus) })),
    });
  });

  router.post(
    '/ashby/companies/:companyId/partner',
    act(companyPage, async (req) => {
      const company = companyOf(req);
      const input = parseOr422(PartnerInput, req.body);
      const partner = ashby.connect(company.id, { name: input.name, baseUrl: input.base_url, apiKey: input.api_key });
      return { kind: 'notice', text: `${partner.name} is connected: Ashby calls its assessment.list, assessment.start and assessment.cancel with this API key.` };
    }),
  );

  router.post(
    '/ashby/companies/:companyId/api-key',
    act(companyPage, async (req) => {
      const company = ashby.issueApiKey(companyOf(req).id);
      return { kind: 'notice', text: `${company.name} issued a new Ashby API key; the old one no longer works. Give the partner the new one.` };
    }),
  );

  router.post(
    '/ashby/companies/:companyId/stages/:stageId/assessment',
    act(companyPage, async (req) => {
      const company = companyOf(req);
      const stageId = idParam(req, 'stageId');
      if (stageId === undefined) throw notFound('Unknown interview stage');
      const { assessment } = parseOr422(PickForm, req.body);
      ashby.pickAssessment(company.id, stageId, assessment);
      return { kind: 'notice', text: `The stage starts ${assessment.name}.` };
    }),
  );

  // assessment.start's `job.ashby_job_url`: the job on the company's page.
  router.get('/ashby/companies/:companyId/jobs/:jobId', (req, res) => {
    const company = companyOf(req);
    const job = store.jobs(company.id).find((j) => j.id === idParam(req, 'jobId'));
    if (!job) throw notFound('Unknown job');
    res.redirect(302, `/ashby/companies/${company.id}#job-${job.id}`);
  });

  /**
   * A candidate's applications with the assessments started for each, as their page shows them, and
   * the address its script asks while one is in flight (`live`): started, and without a result, a
   * cancel, or a failed start.
   */
  const applicationsPart = (companyId: number, candidateId: number) => {
    const jobs = store.jobs(companyId);
    const assessments = store.ofCandidate(candidateId);
    const final = assessments.every((a) => a.delivery === 'failed' || a.result !== null || a.cancelledAt !== null || FINAL_STATUSES.has(a.status ?? ''));
    return {
      final,
      live: final ? undefined : `/ashby/companies/${companyId}/candidates/${candidateId}/live`,
      applications: store.applicationsOf(candidateId).map((application) => {
        const job = jobs.find((j) => j.id === application.jobId)!;
        return {
          application,
          job,
          ready: job.stages.filter((s) => s.assessment),
          assessments: assessments.filter((a) => a.applicationId === application.id).map(assessmentView),
        };
      }),
      stageName: Object.fromEntries(jobs.flatMap((j) => j.stages).map((s) => [s.id, s.name])),
    };
  };

  router.get('/ashby/companies/:companyId/candidates/:candidateId', (req, res) => {
    const company = companyOf(req);
    const candidate = candidateOf(req, company.id);
    render(req, res, '@ashby/candidate', {
      title: `${candidate.firstName} ${candidate.lastName}`.trim(),
      script: 'live-reports.js',
      company,
      candidate,
      partner: ashby.configured(company.id),
      ...applicationsPart(company.id, candidate.id),
    });
  });

  // Each application's assessments alone, which the page asks for while one is in flight: Started,
  // the result, the profile link, the metadata, a cancel, as the partner's updates arrive.
  router.get('/ashby/companies/:companyId/candidates/:candidateId/live', (req, res) => {
    const company = companyOf(req);
    const candidate = candidateOf(req, company.id);
    const { final, live, applications, stageName } = applicationsPart(company.id, candidate.id);
    const data = { company, candidate, partner: ashby.configured(company.id), live, stageName };
    const html = applications.map(({ application, assessments }) => kit.fragment('@ashby/assessments', { ...data, application, assessments }));
    kit.livePart(res, { final, html: html.join('') });
  });

  router.post(
    '/ashby/companies/:companyId/candidates/:candidateId/start',
    act(candidatePage, async (req) => {
      const company = companyOf(req);
      const candidate = candidateOf(req, company.id);
      const form = parseOr422(StartForm, req.body);
      const application = store.application(company.id, form.application_id);
      if (!application || application.candidateId !== candidate.id) throw notFound('Unknown application');
      const started = await ashby.start(company.id, application.id, form.stage_id);
      if (!started.ok) return { kind: 'error', text: started.message };
      return { kind: 'notice', text: `${started.value.assessmentName} was started (assessment_id ${started.value.assessmentId}).` };
    }),
  );

  router.post(
    '/ashby/companies/:companyId/assessments/:assessmentId/cancel',
    act(
      (req) => {
        const id = idParam(req, 'assessmentId');
        const found = id === undefined ? undefined : store.assessment(id);
        const application = found && found.companyId === idParam(req, 'companyId') ? store.application(found.companyId, found.applicationId) : undefined;
        return application ? `${companyPage(req)}/candidates/${application.candidateId}` : companyPage(req);
      },
      async (req) => {
        const company = companyOf(req);
        const id = idParam(req, 'assessmentId');
        if (id === undefined) throw notFound('Unknown assessment');
        const cancelled = await ashby.cancel(company.id, id);
        if (!cancelled.ok) return { kind: 'error', text: cancelled.message };
        return { kind: 'notice', text: `${cancelled.value.assessmentName} was cancelled.` };
      },
    ),
  );
}
