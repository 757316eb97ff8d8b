import type { Request, RequestHandler, Response, Router } from 'express';
import type { Account, AccountStore } from '../../accounts/store.js';
import { ReportId, SendCandidateBody, ValidateTokenBody } from '../../../contract/schemas.js';
import { conflict, forbidden, notFound, unauthorized, unprocessable } from '../../../lib/errors.js';
import { bearerToken } from '../../../lib/http/authorization.js';
import { jsonBody } from '../../../lib/perf/json-body.js';
import { sendJson } from '../../../lib/perf/send-json.js';
import { parseOr422 } from '../../../lib/http/validate.js';
import type { InvitationLifecycle } from '../../invitations/lifecycle.js';
import type { CreateOutcome, InvitationStore, InvitationToStore } from '../../invitations/store.js';
import type { Provider } from '../../provider/types.js';
import { inviteToTest } from '../../provider/find-test.js';
import { listingOf } from '../../provider/list-tests.js';

export interface CallbackDeps {
  accounts: AccountStore;
  invitations: InvitationStore;
  /**
   * Stores a new invitation (`InvitationStore.create`); the app passes it through `groupCommit`,
   * so that the sends of one event-loop turn share one commit.
   */
  createInvitation: (input: InvitationToStore) => Promise<CreateOutcome>;
  /** Cancels an invitation and queues the report's `canceled` update in the same transaction. */
  lifecycle: Pick<InvitationLifecycle, 'cancel'>;
  provider: Provider;
  bodyLimitBytes: number;
  /** Told about each new invitation so its start need not wait for the next poll. */
  onInvitationCreated?: (reportId: string) => void;
}

/** The platform's name, stored with each invitation it sends. */
export const HIRING_PLATFORM = 'hiring-platform';

/** Where the callbacks are mounted: {PUBLIC_URL}/callbacks/… in the partner record. */
export const CALLBACKS_PATH = '/callbacks';

/** Where the platform cancels a report (§4.4): the callback each report's `urls.cancel` names. */
export const cancelPath = (reportId: string) => `${CALLBACKS_PATH}/reports/${reportId}/cancel`;

/**
 * The partner's callbacks (platform-contract.md §4), each authenticated by the customer token the
 * platform sends as `Authorization: Bearer`. 401/403 mean "invalid token" to the platform and are
 * used for token problems only; other 4xx carry a message the platform shows its user.
 */
export function registerCallbacks(app: Router, deps: CallbackDeps): void {
  const base = CALLBACKS_PATH;
  const { accounts, invitations, provider } = deps;
  const json = jsonBody(deps.bodyLimitBytes);

  const authenticate: RequestHandler = async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    const account = token === undefined ? undefined : await accounts.authenticate(token);
    if (!account) return next(unauthorized());
    res.locals.account = account;
    next();
  };
  const accountOf = (res: Response): Account => res.locals.account as Account;

  // §4.1 — binds the account to the company on the first call. POST carries `{company_id}` and
  // must: its 2xx completes the integration on the platform, and an account bound to no company
  // would then be refused every send (403). GET carries no body; it may name the company in the
  // query string, else it only checks the token.
  const validateToken = async (req: Request, res: Response) => {
    let companyId: unknown;
    if (req.method === 'GET') companyId = (req.query as { company_id?: unknown }).company_id;
    // A body that is no object (`42`, `null`, none) names no company: 422 "company_id is required".
    else companyId = isRecord(req.body) ? req.body.company_id : undefined;
    if (req.method === 'POST' || companyId !== undefined) {
      const { company_id } = parseOr422(ValidateTokenBody, { company_id: companyId });
      if (!(await accounts.bindCompany(accountOf(res), company_id))) {
        throw forbidden('This token is already connected to another company');
      }
    }
    sendJson(res, 200, { ok: true });
  };
  app.post(`${base}/validate_token`, authenticate, json, validateToken);
  app.get(`${base}/validate_token`, authenticate, validateToken);

  // §4.2 — a bare array, [] when the account has no tests. The token and the tests are read
  // together (`listingOf`: one statement where the catalog is the kit's table).
  app.get(`${base}/tests`, async (req, res) => {
    const token = bearerToken(req.headers.authorization);
    const listed = token === undefined ? undefined : await listingOf(accounts, provider, token);
    if (!listed) throw unauthorized();
    sendJson(res, 200, listed.tests);
  });

  // §4.3 — idempotent on report_id: a replay answers as the first call did and creates nothing. A
  // report id used before for anything else — another candidate or test, another account, another
  // platform — answers one 409, the same whoever used it, and changes nothing (docs/callbacks.md).
  // Report ids are one namespace, the key of links and results: an id taken cannot be created again.
  app.post(`${base}/send_candidate`, authenticate, json, async (req, res) => {
    const account = accountOf(res);
    const body = parseOr422(SendCandidateBody, req.body ?? {});
    if (account.companyId !== body.company_id) {
      throw forbidden('This token is not connected to this company');
    }
    // The test looked up and the invitation stored: one statement where the catalog is the kit's table.
    const outcome = await inviteToTest(provider, account, {
      reportId: body.report_id,
      accountId: account.id,
      companyId: body.company_id,
      candidateId: body.candidate_id,
      testId: body.test_id,
      firstName: body.first_name,
      lastName: body.last_name,
      email: body.email,
      phone: body.phone ?? null,
      extraInputs: body.admin ? { admin: body.admin } : {},
      platform: HIRING_PLATFORM,
      platformData: {},
    }, deps.createInvitation);
    if (outcome === 'unknown_test') throw unprocessable('Unknown test', { test_id: ['is not a test of this account'] });
    if (outcome === 'conflict') throw conflict('report_id was already used for another candidate or test');
    if (outcome === 'created') deps.onInvitationCreated?.(body.report_id);
    sendJson(res, 201, { id: body.report_id, status: 'sent' });
  });

  // §4.4 — the platform cancels a report through the `urls.cancel` the partner gave it. The
  // invitation's link stops working and the report is PATCHed `canceled` (queued with the change).
  app.post(`${base}/reports/:reportId/cancel`, authenticate, json, async (req, res) => {
    const reportId = ReportId.safeParse(req.params.reportId);
    const invitation = reportId.success ? await invitations.find(accountOf(res).id, reportId.data) : undefined;
    // Another account's report, and another platform's (a Greenhouse interview of the same
    // customer), answer exactly as an id that does not exist: this platform did not send them.
    if (!invitation || invitation.platform !== HIRING_PLATFORM) throw notFound('Unknown report');
    if (invitation.status === 'completed' || invitation.status === 'failed') {
      throw conflict(`The test was already ${invitation.status} and can no longer be canceled`);
    }
    if (invitation.status === 'sent') {
      const outcome = await deps.lifecycle.cancel(invitation.reportId, 'platform');
      // Another process finished it between the read and the cancel.
      if (outcome === 'completed' || outcome === 'failed') {
        throw conflict(`The test was already ${outcome} and can no longer be canceled`);
      }
    }
    sendJson(res, 200, { id: invitation.reportId, status: 'canceled' });
  });
}

/** A JSON object, not an array or null. */
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
