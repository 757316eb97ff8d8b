import { createHash, timingSafeEqual } from 'node:crypto';
import { isoAt } from '../../../lib/clock.js';
import { notFound, unprocessable } from '../../../lib/errors.js';
import type { AshbyClient, Reading } from './client.js';
import { newApiKey } from './seed.js';
import type { Application, Assessment, AshbyCandidate, AshbyCompany, AshbyPartner, AshbyStore, Job, UpdateChange } from './store.js';
import { AssessmentUpdate, CancelAnswer, ListAnswer, SMALLEST_MS_TIMESTAMP, StartAnswer, ashbyError, readBody, type AssessmentData } from './wire.js';

/** Where the partner posts `assessment.update` on the mock: the partner's ASHBY_API_URL is `{mock}` + this. */
export const ASHBY_API_PATH = '/ashby/api';

/** An assessment's state as Ashby shows it: its badge on the candidate's page, `status` to a script. */
export const shownStatus = (a: Assessment): string =>
  a.delivery === 'pending' ? 'starting…' : a.delivery === 'failed' ? 'not started' : a.cancelledAt !== null ? 'Cancelled' : (a.status ?? 'sent');

export interface PartnerAssessment {
  id: string;
  name: string;
  description: string | null;
}

/** An action either went through or failed at the partner, with what the recruiter is shown (`Reading`). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string; refused: boolean };

const failure = (read: Exclude<Reading<unknown>, { kind: 'read' }>) => ({ ok: false, message: read.message, refused: read.refused }) as const;

/** What the receiver answers: a status and Ashby's envelope; the assessment it was about, for the call log. */
export interface UpdateAnswer {
  status: number;
  body: object;
  assessmentId?: string;
}

export type Ashby = ReturnType<typeof ashby>;

/**
 * What Ashby does with an assessment partner (docs/ashby.md): a company connects the partner (its
 * base URL and the key the partner gave the customer) and issues it an Ashby API key; a recruiter
 * lists the partner's assessments and picks one for an interview stage, starts it for a
 * candidate's application, and may cancel it; the partner's `assessment.update`s, authenticated
 * with the company's Ashby API key, change what the candidate's page shows. Every answer is read
 * as Ashby reads it: an error is shown to the recruiter, never stored as a state.
 */
export function ashby(deps: { store: AshbyStore; client: AshbyClient; publicUrl: string }) {
  const { store, client, publicUrl } = deps;

  const company = (companyId: number): AshbyCompany => {
    const found = store.company(companyId);
    if (!found) throw notFound('Unknown company');
    return found;
  };
  const partner = (companyId: number): AshbyPartner => {
    company(companyId);
    const found = store.partner(companyId);
    if (!found) throw unprocessable("Connect the assessment partner first: its base URL and the API key it gave you.");
    return found;
  };

  const startBody = (c: AshbyCandidate, application: Application, job: Job, assessmentTypeId: string) => ({
    assessment_type_id: assessmentTypeId,
    candidate: {
      ashby_id: c.ashbyId,
      first_name: c.firstName,
      last_name: c.lastName,
      email: c.email,
      ashby_profile_url: `${publicUrl}/ashby/companies/${c.companyId}/candidates/${c.id}`,
    },
    application: { ashby_id: application.ashbyId, status: application.status },
    job: {
      ashby_id: job.ashbyId,
      name: job.name,
      ashby_job_url: `${publicUrl}/ashby/companies/${c.companyId}/jobs/${job.id}`,
      // Optional in Ashby's schema: sent when the job has them, as Ashby does.
      ...(job.reqId !== null && { req_id: job.reqId }),
      ...(job.hiringTeam.length > 0 && { hiringTeam: job.hiringTeam }),
    },
  });

  /**
   * An update taken for an assessment (`assessment.update`, or the start's `update_request`): applied
   * unless it is older than the one shown or the assessment was cancelled, recorded either way.
   */
  const take = (a: Assessment, source: 'start' | 'update', update: AssessmentUpdate, raw: string): void => {
    const odd = update.timestamp < SMALLEST_MS_TIMESTAMP ? `timestamp ${update.timestamp} reads as ${isoAt(update.timestamp)}: Ashby takes milliseconds since the epoch` : null;
    const withOdd = (note: string) => (odd ? `${note}; ${odd}` : note);
    if (a.cancelledAt !== null) return store.keep(a.id, source, raw, update.timestamp, withOdd('arrived after the assessment was cancelled: not applied'));
    if (a.lastTimestamp !== null && update.timestamp < a.lastTimestamp) {
      const note = withOdd(`older than the update shown (timestamp ${update.timestamp} < ${a.lastTimestamp}): not applied`);
      store.keep(a.id, source, raw, update.timestamp, note);
      store.storeProblem(a.id, `An assessment.update ${note}.`);
      return;
    }
    const status = update.assessment_status ? String(update.assessment_status.value) : undefined;
    const change: UpdateChange = {
      timestamp: update.timestamp,
      status,
      // "Started" has Ashby store when the assessment started: the first time it is said.
      startedAt: status === 'Started' && a.startedAt === null ? update.timestamp : undefined,
      result: update.assessment_result ?? undefined,
      completedAt: update.assessment_result ? update.timestamp : undefined,
      profileUrl: update.assessment_profile_url ? String(update.assessment_profile_url.value) : undefined,
      metadata: update.metadata ? mergeMetadata(a.metadata, update.metadata) : undefined,
      cancelledReason: update.cancelled_reason ? String(update.cancelled_reason.value) : undefined,
    };
    store.apply(a.id, source, raw, change, odd);
  };

  return {
    company,
    /** The partner the company connected, if any. */
    configured: (companyId: number): AshbyPartner | undefined => (company(companyId), store.partner(companyId)),
    /** Connects the partner: its name, the base URL Ashby calls, the key it gave the customer. */
    connect(companyId: number, input: { name: string; baseUrl: string; apiKey: string }): AshbyPartner {
      company(companyId);
      return store.savePartner(companyId, { name: input.name, baseUrl: input.baseUrl.replace(/\/+$/, ''), apiKey: input.apiKey });
    },
    /** Issues the company a new Ashby API key: the old one stops working at once. */
    issueApiKey(companyId: number): AshbyCompany {
      company(companyId);
      store.issueApiKey(companyId, newApiKey());
      return company(companyId);
    },

    /** `assessment.list`, as when a recruiter picks an assessment for an interview stage. */
    async listAssessments(companyId: number): Promise<Outcome<PartnerAssessment[]>> {
      const p = partner(companyId);
      const read = await client.call({ call: 'ashby.assessment.list', baseUrl: p.baseUrl, apiKey: p.apiKey, body: {} }, { schema: ListAnswer, partnerName: p.name });
      if (read.kind !== 'read') return failure(read);
      return { ok: true, value: read.value.results.map((r) => ({ id: r.assessment_type_id, name: r.name, description: r.description ?? null })) };
    },

    /** Gives an interview stage an assessment (`null` takes it away). */
    pickAssessment(companyId: number, stageId: number, picked: { id: string; name: string } | null): void {
      company(companyId);
      if (!store.pickAssessment(companyId, stageId, picked)) throw notFound('Unknown interview stage');
    },

    /**
     * Starts the stage's assessment for an application: `assessment.start` with the candidate, the
     * application and the job as Ashby sends them; stores the `assessment_id` answered, and applies
     * the answer's `update_request` as an update.
     */
    async start(companyId: number, applicationId: number, stageId: number): Promise<Outcome<Assessment>> {
      const p = partner(companyId);
      const application = store.application(companyId, applicationId);
      if (!application) throw notFound('Unknown application');
      const candidate = store.candidate(companyId, application.candidateId)!;
      const job = store.jobs(companyId).find((j) => j.id === application.jobId)!;
      const stage = job.stages.find((s) => s.id === stageId);
      if (!stage) throw notFound('Unknown interview stage');
      if (!stage.assessment) throw unprocessable(`Pick an assessment for the stage "${stage.name}" first.`);

      const row = store.createAssessment({ companyId, applicationId, stageId, assessmentTypeId: stage.assessment.id, assessmentName: stage.assessment.name });
      const read = await client.call(
        { call: 'ashby.assessment.start', baseUrl: p.baseUrl, apiKey: p.apiKey, body: startBody(candidate, application, job, stage.assessment.id) },
        { schema: StartAnswer, partnerName: p.name, assessmentId: (answer) => answer.results.assessment_id },
      );
      if (read.kind !== 'read') {
        store.markFailed(row.id, read.message);
        return failure(read);
      }
      const { assessment_id: assessmentId, update_request: updateRequest } = read.value.results;
      // The partner may answer a repeated start with the assessment already under way: the same one.
      const existing = store.byAssessmentId(companyId, assessmentId);
      if (existing) {
        store.remove(row.id);
        return { ok: true, value: existing };
      }
      store.markStarted(row.id, assessmentId);
      if (updateRequest !== undefined) {
        const update = readBody(AssessmentUpdate, updateRequest);
        if (!update.ok) store.storeProblem(row.id, `The start's update_request was not applied: ${update.errors.join('; ')}`);
        else if (update.value.assessment_id !== assessmentId) {
          store.storeProblem(row.id, `The start's update_request is about another assessment (${update.value.assessment_id}): not applied`);
        } else take(store.assessment(row.id)!, 'start', update.value, JSON.stringify(updateRequest));
      }
      return { ok: true, value: store.assessment(row.id)! };
    },

    /** The recruiter cancels: `assessment.cancel`; once the partner agrees, the assessment is cancelled in Ashby. */
    async cancel(companyId: number, id: number): Promise<Outcome<Assessment>> {
      const a = store.assessment(id);
      if (!a || a.companyId !== companyId || a.delivery !== 'started' || a.assessmentId === null) throw notFound('Unknown assessment');
      if (a.cancelledAt !== null) throw unprocessable('The assessment is cancelled already.');
      if (a.result !== null) throw unprocessable('The assessment is complete: there is nothing to cancel.');
      const p = partner(companyId);
      const assessmentId = a.assessmentId;
      const read = await client.call(
        { call: 'ashby.assessment.cancel', baseUrl: p.baseUrl, apiKey: p.apiKey, body: { assessment_id: assessmentId } },
        { schema: CancelAnswer, partnerName: p.name, assessmentId },
      );
      if (read.kind !== 'read') {
        store.storeProblem(id, `Cancelling failed: ${read.message}`);
        return failure(read);
      }
      if (read.value.results.assessment_id !== assessmentId) {
        const message = `${p.name} answered assessment.cancel about another assessment (${read.value.results.assessment_id})`;
        store.storeProblem(id, `Cancelling failed: ${message}`);
        return { ok: false, message, refused: false };
      }
      store.markCancelled(id, 'Cancelled in Ashby');
      return { ok: true, value: store.assessment(id)! };
    },

    /**
     * The partner's `POST assessment.update`, authenticated (`companyOf`) and its body read as JSON:
     * what Ashby answers. A body that breaks the rules, or names no assessment of the company, is
     * refused as Ashby refuses what would be a 4xx: 200 with `success: false`.
     */
    receiveUpdate(company: AshbyCompany, body: unknown): UpdateAnswer {
      const named = (body as { assessment_id?: unknown } | null)?.assessment_id;
      const about = typeof named === 'string' ? store.byAssessmentId(company.id, named) : undefined;
      const read = readBody(AssessmentUpdate, body);
      if (!read.ok) {
        const message = `Request payload is malformed: ${read.errors.join('; ')}`;
        // Shown on the assessment it names, if any: the vendor tries its sandbox, Ashby's recruiter would not see it.
        if (about) store.storeProblem(about.id, `An assessment.update was refused (invalid_input): ${read.errors.join('; ')}`);
        return { status: 200, body: ashbyError('invalid_input', message), assessmentId: about?.assessmentId ?? undefined };
      }
      if (!about) {
        return { status: 200, body: ashbyError('assessment_not_found', `Assessment not found: ${company.name} started no assessment with this assessment_id`), assessmentId: read.value.assessment_id };
      }
      take(about, 'update', read.value, JSON.stringify(body));
      return { status: 200, body: { success: true }, assessmentId: about.assessmentId ?? undefined };
    },

    /**
     * The company whose Ashby API key `key` is, compared in constant time: undefined for a key no
     * company has (a wrong one, or one replaced since).
     */
    companyOf(key: string): AshbyCompany | undefined {
      return store.companyOfKey(key, (a, b) => timingSafeEqual(digest(a), digest(b)));
    },
  };
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** The metadata shown after an update: each identifier's newest value, in the order first seen. */
function mergeMetadata(shown: AssessmentData[], update: AssessmentData[]): AssessmentData[] {
  const merged = new Map(shown.map((d) => [d.identifier, d]));
  for (const d of update) merged.set(d.identifier, d);
  return [...merged.values()];
}
