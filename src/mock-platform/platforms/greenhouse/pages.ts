import type { Request, Router } from 'express';
import { z } from 'zod';
import { notFound } from '../../../lib/errors.js';
import { parseOr422 } from '../../../lib/http/validate.js';
import { idParam, param } from '../../path-params.js';
import { testChoice, type PageKit } from '../../sandbox/page-kit.js';
import { PartnerInput, partnerJson } from './routes.js';
import { shownStatus, type Greenhouse, type PartnerTest } from './service.js';
import type { GreenhouseStore } from './store.js';

const TestChoice = testChoice(z.object({ id: z.string().min(1).max(500), name: z.string().min(1).max(500) }));
const PickForm = z.object({ test: TestChoice });
const SendForm = z.object({ stage_id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/**
 * The Greenhouse company's pages in the sandbox (`/greenhouse/companies/{id}`): the partner's key
 * and URLs, the jobs' interview stages and the test each sends (from `list_tests`), and each
 * candidate's page with "Send Test", the tests sent, what `test_status` said, and "Check status now".
 */
export function registerGreenhousePages(router: Router, kit: PageKit, deps: { greenhouse: Greenhouse; store: GreenhouseStore }): void {
  const { greenhouse, store } = deps;
  const { render, act } = kit;

  const companyOf = (req: Request) => {
    const id = idParam(req, 'companyId');
    if (id === undefined) throw notFound('Unknown company');
    return greenhouse.company(id);
  };
  const candidateOf = (req: Request, companyId: number) => {
    const id = idParam(req, 'candidateId');
    const candidate = id === undefined ? undefined : store.candidate(companyId, id);
    if (!candidate) throw notFound('Unknown candidate');
    return candidate;
  };
  const companyPage = (req: Request) => `/greenhouse/companies/${param(req, 'companyId')}`;
  const candidatePage = (req: Request) => `${companyPage(req)}/candidates/${param(req, 'candidateId')}`;

  router.get('/greenhouse/companies/:companyId', async (req, res) => {
    const company = companyOf(req);
    const partner = greenhouse.configured(company.id);
    // "List tests" asks the partner, as Greenhouse does when a recruiter sets up a stage.
    let tests: { value: string; name: string }[] | undefined;
    let testsError: string | undefined;
    if (partner && req.query.list_tests !== undefined) {
      const listed = await greenhouse.listTests(company.id);
      if (listed.ok) tests = listed.value.map((t: PartnerTest) => ({ value: JSON.stringify(t), name: t.name }));
      else testsError = listed.message;
    }
    render(req, res, '@greenhouse/company', {
      title: `${company.name} (Greenhouse)`,
      company,
      partner: partner && partnerJson(partner),
      jobs: store.jobs(company.id),
      tests,
      testsError,
      candidates: store.candidates(company.id).map((c) => ({ candidate: c, badges: store.testsOfCandidate(company.id, c.id).map(shownStatus) })),
    });
  });

  router.post(
    '/greenhouse/companies/:companyId/partner',
    act(companyPage, async (req) => {
      const company = companyOf(req);
      const input = parseOr422(PartnerInput, req.body);
      const partner = greenhouse.configure(company.id, { name: input.name, apiKey: input.api_key, baseUrl: input.base_url });
      return { kind: 'notice', text: `${partner.name} is configured: Greenhouse calls its four endpoints with this API key.` };
    }),
  );

  router.post(
    '/greenhouse/companies/:companyId/stages/:stageId/test',
    act(companyPage, async (req) => {
      const company = companyOf(req);
      const stageId = idParam(req, 'stageId');
      if (stageId === undefined) throw notFound('Unknown interview stage');
      const { test } = parseOr422(PickForm, req.body);
      greenhouse.pickTest(company.id, stageId, test);
      return { kind: 'notice', text: `The stage sends ${test.name}.` };
    }),
  );

  /**
   * The tests sent to a candidate as their page shows them, and the address its script asks while
   * one is in flight (`live`): sent, and not yet complete nor failed to send.
   */
  const testsPart = (companyId: number, candidate: { id: number; jobId: number }) => {
    const job = store.jobs(companyId).find((j) => j.id === candidate.jobId);
    const stageName = new Map((job?.stages ?? []).map((s) => [s.id, s.name]));
    const sent = store.testsOfCandidate(companyId, candidate.id);
    const final = sent.every((t) => t.delivery === 'failed' || t.partnerStatus === 'complete');
    return {
      job,
      final,
      live: final ? undefined : `/greenhouse/companies/${companyId}/candidates/${candidate.id}/live`,
      tests: sent.map((t) => ({
        test: t,
        badge: shownStatus(t),
        stage: t.stageId === null ? undefined : stageName.get(t.stageId),
        metadata: Object.entries(t.metadata ?? {}),
      })),
    };
  };

  router.get('/greenhouse/companies/:companyId/candidates/:candidateId', (req, res) => {
    const company = companyOf(req);
    const candidate = candidateOf(req, company.id);
    render(req, res, '@greenhouse/candidate', {
      title: `${candidate.firstName} ${candidate.lastName}`,
      script: 'live-reports.js',
      company,
      candidate,
      partner: greenhouse.configured(company.id),
      ...testsPart(company.id, candidate),
    });
  });

  // The tests part alone, which the page asks for while a test is in flight: the score, the
  // results link and the metadata appear once the partner PATCHes and test_status is read.
  router.get('/greenhouse/companies/:companyId/candidates/:candidateId/live', (req, res) => {
    const company = companyOf(req);
    const candidate = candidateOf(req, company.id);
    const part = testsPart(company.id, candidate);
    const html = kit.fragment('@greenhouse/tests', { ...part, company, candidate, partner: greenhouse.configured(company.id) });
    kit.livePart(res, { final: part.final, html });
  });

  // What send_test's resume_url points to: the partner stores the link and never needs to fetch it.
  router.get('/greenhouse/companies/:companyId/candidates/:candidateId/resume', (req, res) => {
    const company = companyOf(req);
    const c = candidateOf(req, company.id);
    res.type('text/plain').send(`${c.firstName} ${c.lastName}\n${c.email}\n\nA sandbox resume: the mock platform's stand-in for the candidate's file.\n`);
  });

  router.post(
    '/greenhouse/companies/:companyId/candidates/:candidateId/send',
    act(candidatePage, async (req) => {
      const company = companyOf(req);
      const candidate = candidateOf(req, company.id);
      const { stage_id } = parseOr422(SendForm, req.body);
      const sent = await greenhouse.send(company.id, candidate.id, stage_id);
      if (!sent.ok) return { kind: 'error', text: sent.message };
      return { kind: 'notice', text: `${sent.value.partnerTestName} was sent (partner_interview_id ${sent.value.partnerInterviewId}).` };
    }),
  );

  router.post(
    '/greenhouse/companies/:companyId/take-home-tests/:testId/check',
    act(
      (req) => {
        const test = idParam(req, 'testId');
        const found = test === undefined ? undefined : store.test(test);
        return found && found.companyId === idParam(req, 'companyId') ? `${companyPage(req)}/candidates/${found.candidateId}` : companyPage(req);
      },
      async (req) => {
        const company = companyOf(req);
        const testId = idParam(req, 'testId');
        if (testId === undefined) throw notFound('Unknown test');
        const checked = await greenhouse.checkNow(company.id, testId);
        if (!checked.ok) return { kind: 'error', text: checked.message };
        return { kind: 'notice', text: `Status: ${checked.value.partnerStatus}.` };
      },
    ),
  );
}
