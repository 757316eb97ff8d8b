import type { ErrorRequestHandler, RequestHandler, Response, Router } from 'express';
import { ReportId } from '../../../contract/schemas.js';
import { AppError, unauthorized } from '../../../lib/errors.js';
import { basicKey } from '../../../lib/http/basic-key.js';
import { parseOr422 } from '../../../lib/http/validate.js';
import { jsonBody } from '../../../lib/perf/json-body.js';
import { sendJson } from '../../../lib/perf/send-json.js';
import { placeholders, type Sql } from '../../../lib/sql.js';
import type { Account } from '../../accounts/store.js';
import type { ProviderTest } from '../../provider/types.js';
import { listingOf } from '../../provider/list-tests.js';
import type { PlatformContext } from '../platform.js';
import { assessmentId, assessmentTypeId } from './ids.js';
import { invitedUpdate } from './update.js';
import { CancelBody, ListBody, StartBody, type AshbyError } from './wire.js';

/** Where the routes live: `{PUBLIC_URL}/ashby/…`, the base URL a vendor gives Ashby. */
export const ASHBY_PATH = '/ashby';
/** Stored with each invitation Ashby starts (`invitations.platform`), and its connections. */
export const ASHBY = 'ashby';
/** The calls Ashby makes, each `POST {base}/<call>`. */
export const ASHBY_CALLS = ['assessment.list', 'assessment.start', 'assessment.cancel'] as const;

/** How the customer's Ashby API key is set: said where it is missing. */
export const credentialCommand = (accountId: number) => `npm run accounts -- credential set ${accountId} ${ASHBY} <key>`;

/** What `assessment.start` keeps of Ashby's call with the invitation (`invitations.platform_data`). */
export interface AshbyData {
  assessment_type_id: string;
  candidate_ashby_id: string;
  ashby_profile_url: string;
  application_ashby_id: string;
  application_status: string;
  job_ashby_id: string;
  job_name: string;
  ashby_job_url: string;
  req_id: string | null;
}

export interface AshbyRouteDeps {
  context: PlatformContext;
  /** The vendor's name, in each assessment's description. */
  partnerName: string;
}

/**
 * Ashby's Assessments Partner API (docs/ashby.md §2–§4): `assessment.list`, `assessment.start` and
 * `assessment.cancel`, each a `POST` authenticated by the customer's key as the Basic user name.
 * Every refusal is Ashby's error envelope with a `message` (`AshbyError`): 401 for every
 * authentication problem; 422 for a body that breaks the rules, an assessment type that is not
 * this account's, or an account without its Ashby API key; 409 for an application already being
 * assessed with the type; a cancel of an assessment that is not this key's, a 200 with
 * `success: false`, as one that does not exist.
 */
export function mountAshbyRoutes(router: Router, deps: AshbyRouteDeps): void {
  const { context, partnerName } = deps;
  const { core, provider } = context;
  const json = jsonBody(context.bodyLimitBytes);

  /** The 401 of every authentication problem, with the challenge Basic authentication answers with. */
  const refused = (res: Response) => {
    res.setHeader('WWW-Authenticate', 'Basic realm="ashby", charset="UTF-8"');
    return unauthorized('Invalid API key: send it as the Basic user name, with an empty password');
  };
  /** The key's account, and its tests with it (one statement where the catalog is the kit's table). */
  const withTests: RequestHandler = async (req, res, next) => {
    const key = basicKey(req.headers.authorization);
    const listed = key === undefined ? undefined : await listingOf(core.accounts, provider, key);
    if (!listed) return next(refused(res));
    res.locals.account = listed.account;
    res.locals.tests = listed.tests;
    next();
  };
  const authenticate: RequestHandler = async (req, res, next) => {
    const key = basicKey(req.headers.authorization);
    const account = key === undefined ? undefined : await core.accounts.authenticate(key);
    if (!account) return next(refused(res));
    res.locals.account = account;
    next();
  };
  const accountOf = (res: Response): Account => res.locals.account as Account;
  const testsOf = (res: Response): readonly ProviderTest[] => res.locals.tests as readonly ProviderTest[];

  router.post(`${ASHBY_PATH}/assessment.list`, withTests, json, (req, res) => {
    parseOr422(ListBody, req.body ?? {});
    sendJson(res, 200, {
      success: true,
      results: testsOf(res).map((t) => ({ assessment_type_id: assessmentTypeId(String(t.id)), name: t.name, description: `${t.name}, by ${partnerName}` })),
    });
  });

  router.post(`${ASHBY_PATH}/assessment.start`, withTests, json, async (req, res) => {
    const account = accountOf(res);
    const body = parseOr422(StartBody, req.body ?? {});
    // Refused here rather than a dead letter later: without the key, no update could reach Ashby.
    if (!(await core.connections.get(account.id, ASHBY))?.hasCredential) {
      // The account uses Ashby from now on: the dashboard lists the connection and flags the missing key.
      await core.connections.ensure(account.id, ASHBY);
      // Said on the dashboard too ("Reports from platforms"): the vendor's operator is the one to set it.
      // Bounded per account as every notice is; past its rate the refusal is still answered.
      await core.notices.add({
        platform: ASHBY,
        accountId: account.id,
        reportId: null,
        summary: 'Ashby asked to start an assessment, refused: this account has no Ashby API key',
        detail: { assessment_type_id: body.assessment_type_id, set_it_with: credentialCommand(account.id) },
      });
      throw new AppError(
        422,
        'missing_api_key',
        `The assessment provider has no Ashby API key for this account, so it could not tell Ashby how the assessment goes. ` +
          `It sets one with: ${credentialCommand(account.id)}`,
      );
    }
    const test = testsOf(res).find((t) => assessmentTypeId(String(t.id)) === body.assessment_type_id);
    // Another customer's type answers exactly as one that does not exist.
    if (!test) throw new AppError(422, 'unknown_assessment_type', 'Unknown assessment_type_id: it is none of the assessments assessment.list lists for this key');

    const slot = await assessmentSlot(context.sql, account.id, body.assessment_type_id, body.application.ashby_id);
    if ('active' in slot) throw alreadyAssessed(slot.active);
    const { candidate, application, job } = body;
    const platformData: AshbyData = {
      assessment_type_id: body.assessment_type_id,
      candidate_ashby_id: candidate.ashby_id,
      ashby_profile_url: candidate.ashby_profile_url,
      application_ashby_id: application.ashby_id,
      application_status: application.status,
      job_ashby_id: job.ashby_id,
      job_name: job.name,
      ashby_job_url: job.ashby_job_url,
      req_id: job.req_id,
    };
    const outcome = await context.createInvitation({
      reportId: slot.free,
      accountId: account.id,
      // Ashby names neither a company nor a candidate by number: its ids are in platformData.
      companyId: 0,
      candidateId: 0,
      testId: String(test.id),
      testName: test.name,
      firstName: candidate.first_name,
      lastName: candidate.last_name,
      email: candidate.email,
      phone: null,
      extraInputs: {},
      platform: ASHBY,
      platformData: { ...platformData },
    });
    // The same start at the same moment, on this instance or another, took the id first.
    if (outcome !== 'created') throw alreadyAssessed(slot.free);
    context.onInvitationCreated?.(slot.free);
    sendJson(res, 200, { success: true, results: { assessment_id: slot.free, update_request: invitedUpdate(slot.free, context.clock.now()) } });
  });

  router.post(`${ASHBY_PATH}/assessment.cancel`, authenticate, json, async (req, res) => {
    const { assessment_id: id } = parseOr422(CancelBody, req.body ?? {});
    const reportId = ReportId.safeParse(id);
    const invitation = reportId.success ? await core.invitations.find(accountOf(res).id, reportId.data) : undefined;
    // Another customer's, and another platform's invitation, answer as an unknown assessment.
    const outcome = invitation?.platform === ASHBY ? await core.lifecycle.cancel(invitation.reportId, 'platform', 'Canceled in Ashby') : 'unknown';
    switch (outcome) {
      case 'canceled':
      case 'already_canceled':
        return sendJson(res, 200, { success: true, results: { assessment_id: invitation!.reportId } });
      case 'completed':
      case 'failed':
        return sendJson(res, 200, ashbyError('assessment_complete', 'This assessment is complete: its result was sent to Ashby, and it can no longer be canceled'));
      case 'unknown':
        return sendJson(res, 200, ashbyError('assessment_not_found', 'Unknown assessment_id: no assessment of this key has this id'));
    }
  });

  // After the routes: their errors, and only theirs, are answered in Ashby's envelope.
  router.use(ASHBY_PATH, ashbyErrors);
}

/** 409, with the assessment under way: the same customer's, so its id may be named. */
const alreadyAssessed = (id: string) =>
  new AppError(409, 'already_assessed', `The candidate is already being assessed with this assessment (assessment_id ${id}): cancel it before starting it again`);

/** Ashby's error envelope, with `message` beside it (`AshbyError`). */
export function ashbyError(code: string, message: string, fields?: Record<string, string[]>): AshbyError {
  return { success: false, message, errors: [code], errorInfo: { code, message, ...(fields && { meta: { fields } }) } };
}

/** The kit's error codes as Ashby's words: a body that breaks the rules is Ashby's `invalid_input`. */
const CODES: Record<string, string> = { unprocessable: 'invalid_input', bad_request: 'invalid_input' };

/** The routes' errors in Ashby's envelope; anything that is not an `AppError` is the kit's (a 500). */
const ashbyErrors: ErrorRequestHandler = (err, _req, res, next) => {
  if (!(err instanceof AppError) || res.headersSent) return next(err);
  // A body refused unread may still be arriving: close the connection after answering.
  if (err.status === 413) res.set('Connection', 'close');
  sendJson(res, err.status, ashbyError(CODES[err.code] ?? err.code, err.message, err.fields));
};

/** Looked up at a time: a count of earlier assessments of one application and type beyond this is rare. */
const SLOTS_PER_READ = 8;

/**
 * The id a start of this account's application with this type takes (`assessmentId`): the first
 * that no invitation has, `free`; or, when the one before it is still `sent`, that one, `active`.
 */
async function assessmentSlot(sql: Sql, accountId: number, typeId: string, applicationId: string): Promise<{ free: string } | { active: string }> {
  for (let first = 0; ; first += SLOTS_PER_READ) {
    const ids = Array.from({ length: SLOTS_PER_READ }, (_, i) => assessmentId(accountId, typeId, applicationId, first + i));
    const rows = await sql.all<{ report_id: string; status: string }>(
      `SELECT report_id, status FROM invitations WHERE report_id IN (${placeholders(ids.length)})`,
      ids,
    );
    const status = new Map(rows.map((r) => [r.report_id, r.status]));
    for (const id of ids) {
      const found = status.get(id);
      if (found === undefined) return { free: id };
      if (found === 'sent') return { active: id };
    }
  }
}
