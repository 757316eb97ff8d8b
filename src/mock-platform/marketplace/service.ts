import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { TERMINAL_REPORT_STATUSES } from '../../contract/decisions.js';
import { TestList, type CancelReportBody, type SendCandidateBody, type TestItem, type ValidateTokenBody } from '../../contract/schemas.js';
import { conflict, notFound, unprocessable } from '../../lib/errors.js';
import type { Candidate, CompanyStore, User } from '../companies/store.js';
import { effectiveInputs, type PartnerStore, type StoredPartner } from '../partners/store.js';
import type { ReportStore, StoredReport } from '../reports/store.js';
import type { Integration, IntegrationStore } from './integrations.js';
import type { Failure } from './outcome.js';
import type { PartnerClient } from './partner-client.js';

/** A user action either succeeded or failed at the partner, shown as the contract's table says. */
export type ActionResult<T> = { ok: true; value: T } | { ok: false; failure: Failure & { callId: number } };

export interface SendRequest {
  companyId: number;
  codename: string;
  candidateId: number;
  testId: string;
  testName: string;
  /**
   * The report id to use. The sandbox's send form carries one, so a double click (the same form
   * submitted twice) sends the same report again — which is what the partner's idempotency is for.
   * Absent: a fresh UUID.
   */
  reportId?: string;
  /** The member who sends; needed when the partner asks for the `admin` input. */
  userId?: number;
}

/** The send_candidate body (§4.3), plus one key per extra input the partner configured. */
type SendCandidatePayload = z.input<typeof SendCandidateBody> & Record<string, unknown>;

export type Marketplace = ReturnType<typeof marketplace>;

/**
 * What a recruiter does in the platform's marketplace (§2): integrate a partner with a token, list
 * its tests, send a candidate, cancel a report. Each action calls the partner through the client,
 * which logs the call; state changes only when the partner said yes.
 */
export function marketplace(deps: {
  companies: CompanyStore;
  partners: PartnerStore;
  integrations: IntegrationStore;
  reports: ReportStore;
  client: PartnerClient;
}) {
  const { companies, partners, integrations, reports, client } = deps;

  const company = (companyId: number) => {
    const found = companies.find(companyId);
    if (!found) throw notFound('Unknown company');
    return found;
  };
  const partner = (codename: string): StoredPartner => {
    const found = partners.find(codename);
    if (!found) throw notFound('Unknown partner');
    return found;
  };
  const integrated = (companyId: number, p: StoredPartner): Integration => {
    const found = integrations.find(companyId, p.codename);
    if (!found) throw conflict(`${p.name} is not integrated yet: integrate it with a token first`);
    return found;
  };

  return {
    async integrate(
      companyId: number,
      codename: string,
      token: string,
    ): Promise<ActionResult<{ integration: Integration; created: boolean }>> {
      company(companyId);
      const p = partner(codename);
      const body: z.input<typeof ValidateTokenBody> = { company_id: companyId };
      const result = await client.call({
        endpoint: 'validate_token',
        method: 'POST',
        url: p.urls.validate_token,
        token,
        body,
        partner: p,
        companyId,
      });
      if (!result.ok) return { ok: false, failure: { ...result.failure, callId: result.callId } };
      return { ok: true, value: integrations.save(companyId, p.codename, token) };
    },

    disconnect(companyId: number, codename: string): void {
      company(companyId);
      if (!integrations.remove(companyId, codename)) throw notFound('Unknown integration');
    },

    async listTests(companyId: number, codename: string): Promise<ActionResult<TestItem[]>> {
      company(companyId);
      const p = partner(codename);
      const integration = integrated(companyId, p);
      const result = await client.call(
        { endpoint: 'tests', method: 'GET', url: p.urls.tests, token: integration.token, partner: p, companyId },
        TestList,
      );
      if (!result.ok) return { ok: false, failure: { ...result.failure, callId: result.callId } };
      return { ok: true, value: result.value };
    },

    /**
     * Creates the report (`sent`) and calls send_candidate. A failed send hides the report again
     * (the candidate shows no badge), unless an earlier send of the same report was delivered.
     */
    async send(req: SendRequest): Promise<ActionResult<{ report: StoredReport; created: boolean }>> {
      company(req.companyId);
      const p = partner(req.codename);
      const integration = integrated(req.companyId, p);
      const candidate = companies.candidate(req.companyId, req.candidateId);
      if (!candidate) throw notFound('Unknown candidate');
      const user =
        req.userId === undefined ? companies.users(req.companyId)[0] : companies.user(req.companyId, req.userId);
      if (req.userId !== undefined && !user) throw unprocessable('user_id is not a member of this company', { user_id: ['is unknown'] });

      const reportId = req.reportId ?? randomUUID();
      const payload = sendCandidatePayload(p, candidate, user, req, reportId);
      const { report, created } = reports.create({
        id: reportId,
        codename: p.codename,
        companyId: req.companyId,
        candidateId: candidate.id,
        testId: req.testId,
        testName: req.testName,
        sentByUserId: user?.id ?? null,
      });
      if (!created) {
        const same =
          report.codename === p.codename &&
          report.companyId === req.companyId &&
          report.candidateId === candidate.id &&
          report.testId === req.testId;
        if (!same) throw conflict('This report id was already used to send another test');
        if (report.status !== 'sent') throw conflict(`This report is already ${report.status}`);
      }

      const result = await client.call({
        endpoint: 'send_candidate',
        method: 'POST',
        url: p.urls.send_candidate,
        token: integration.token,
        body: payload,
        partner: p,
        companyId: req.companyId,
        reportId: report.id,
      });
      if (!result.ok) {
        reports.markFailed(report.id, result.failure.message);
        return { ok: false, failure: { ...result.failure, callId: result.callId } };
      }
      return { ok: true, value: { report: reports.markDelivered(report.id), created } };
    },

    /**
     * Asks the partner to cancel through the report's `urls.cancel` (§4.4). The status changes when
     * the partner PATCHes `canceled`; until then the report shows that a cancel was requested.
     */
    async cancel(companyId: number, reportId: string): Promise<ActionResult<StoredReport>> {
      company(companyId);
      const report = reports.findVisible(reportId);
      if (!report || report.companyId !== companyId) throw notFound('Unknown report');
      const p = partner(report.codename);
      if (TERMINAL_REPORT_STATUSES.includes(report.status)) throw conflict(`This report is already ${report.status}`);
      const cancelUrl = report.urls.cancel;
      if (!cancelUrl) {
        throw conflict(`${p.name} gave this report no cancel link (urls.cancel); it can only be canceled by ${p.name}`);
      }
      const integration = integrated(companyId, p);
      const body: z.input<typeof CancelReportBody> = { report_id: report.id, company_id: companyId };
      const result = await client.call({
        endpoint: 'cancel',
        method: 'POST',
        url: cancelUrl,
        token: integration.token,
        body,
        partner: p,
        companyId,
        reportId: report.id,
      });
      if (!result.ok) return { ok: false, failure: { ...result.failure, callId: result.callId } };
      return { ok: true, value: reports.markCancelRequested(report.id) };
    },
  };
}

/**
 * §4.3: the default inputs are always sent; each extra input adds a key named by its `name` (else
 * its kind). A required input the platform has no value for stops the send before any report
 * exists. `test_id` is sent as a string, whatever type the tests list used.
 */
function sendCandidatePayload(
  p: StoredPartner,
  candidate: Candidate,
  user: User | undefined,
  req: SendRequest,
  reportId: string,
): SendCandidatePayload {
  const [firstName, lastName] = splitName(candidate.name);
  const payload: SendCandidatePayload = {
    first_name: firstName,
    last_name: lastName,
    email: candidate.email,
    candidate_id: candidate.id,
    company_id: req.companyId,
    report_id: reportId,
    test_id: String(req.testId),
    test_name: req.testName,
  };
  for (const input of effectiveInputs(p)) {
    const key = input.name ?? input.kind;
    if (input.kind === 'phone') {
      if (candidate.phone === null && input.required) {
        throw unprocessable(`${p.name} needs the candidate's phone number, and ${candidate.name} has none`, {
          phone: ['is required by this partner'],
        });
      }
      payload[key] = candidate.phone;
    } else if (input.kind === 'admin') {
      if (!user && input.required) {
        throw unprocessable(`${p.name} needs the sending team member, and this company has none`, {
          user_id: ['is required by this partner'],
        });
      }
      payload[key] = user ? { id: user.id, name: user.name, email: user.email } : null;
    }
  }
  return payload;
}

/** "Ada King Lovelace" → ["Ada", "King Lovelace"]; a single name leaves last_name empty. */
export function splitName(name: string): [string, string] {
  const parts = name.trim().split(/\s+/);
  return [parts[0] ?? '', parts.slice(1).join(' ')];
}
