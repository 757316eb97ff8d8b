import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response, Router } from 'express';
import { ReportId } from '../../../contract/schemas.js';
import { AppError, notFound, unauthorized, unprocessable } from '../../../lib/errors.js';
import { basicKey } from '../../../lib/http/basic-key.js';
import { parseOr422 } from '../../../lib/http/validate.js';
import { jsonBody } from '../../../lib/perf/json-body.js';
import { sendJson } from '../../../lib/perf/send-json.js';
import type { Account } from '../../accounts/store.js';
import type { NewInvitation } from '../../invitations/store.js';
import { NOTICE_LIMITS, type NoticeOutcome } from '../notices.js';
import type { PlatformContext } from '../platform.js';
import { refusedPatchTarget, type PatchTargetRules } from './allowlist.js';
import type { CredentialSealer } from './credential.js';
import { testStatus } from './status.js';
import { ResponseErrorBody, SendTestBody, TestStatusQuery } from './wire.js';
import { inviteToTest } from '../../provider/find-test.js';
import { listingOf } from '../../provider/list-tests.js';

/** Where the routes live: `{PUBLIC_URL}/greenhouse/…`, the four URLs a vendor gives Greenhouse. */
export const GREENHOUSE_PATH = '/greenhouse';
/** Stored with each invitation Greenhouse sends (`invitations.platform`). */
export const GREENHOUSE = 'greenhouse';

/** What `send_test` keeps of Greenhouse's call with the invitation (`invitations.platform_data`). */
export interface GreenhouseData {
  /** Where the PATCH "the test is complete" goes. */
  url: string;
  /** The customer key the call came with, sealed (`credential.ts`): the PATCH carries it. */
  key: string;
  greenhouse_profile_url: string;
  preferred_name: string | null;
  resume_url: string | null;
  sent_by: string | null;
}

export interface GreenhouseRouteDeps {
  context: PlatformContext;
  sealer: CredentialSealer;
  rules: PatchTargetRules;
}

/**
 * Greenhouse's Assessment Partner API (docs/greenhouse.md §2): `list_tests`, `send_test`,
 * `test_status` and `response_error`, each authenticated by the customer's key as the Basic user
 * name. 401 for every authentication problem; 404 for an interview that is not this key's
 * (another customer's answers exactly as one that does not exist); 422 naming each bad field.
 */
export function mountGreenhouseRoutes(router: Router, deps: GreenhouseRouteDeps): void {
  const { context, sealer, rules } = deps;
  const { core, provider } = context;
  const json = jsonBody(context.bodyLimitBytes);

  /** The 401 of every authentication problem, with the challenge Basic authentication answers with. */
  const refused = (res: Response) => {
    res.setHeader('WWW-Authenticate', 'Basic realm="greenhouse", charset="UTF-8"');
    return unauthorized('Invalid API key: send it as the Basic user name, with an empty password');
  };
  const authenticate: RequestHandler = async (req, res, next) => {
    const key = basicKey(req.headers.authorization);
    const account = key === undefined ? undefined : await core.accounts.authenticate(key);
    if (!account) return next(refused(res));
    res.locals.account = account;
    res.locals.key = key;
    next();
  };
  const accountOf = (res: Response): Account => res.locals.account as Account;

  // The key and the tests are read together (`listingOf`: one statement where the catalog is the kit's table).
  router.get(`${GREENHOUSE_PATH}/list_tests`, async (req, res) => {
    const key = basicKey(req.headers.authorization);
    const listed = key === undefined ? undefined : await listingOf(core.accounts, provider, key);
    if (!listed) throw refused(res);
    sendJson(res, 200, listed.tests.map((t) => ({ partner_test_id: String(t.id), partner_test_name: t.name })));
  });

  router.post(`${GREENHOUSE_PATH}/send_test`, authenticate, json, async (req, res) => {
    const account = accountOf(res);
    const body = parseOr422(SendTestBody, req.body ?? {});
    const refused = refusedPatchTarget(body.url, rules);
    if (refused) throw unprocessable(`url ${refused}`, { url: [refused] });
    // Greenhouse sends no idempotency key: every call is a new test instance, with an id of the kit's.
    const reportId = randomUUID();
    const { candidate } = body;
    const platformData: GreenhouseData = {
      url: body.url,
      key: sealer.seal(reportId, res.locals.key as string),
      greenhouse_profile_url: candidate.greenhouse_profile_url,
      preferred_name: candidate.preferred_name,
      resume_url: candidate.resume_url,
      sent_by: body.sent_by,
    };
    const invitation: Omit<NewInvitation, 'testName'> = {
      reportId,
      accountId: account.id,
      // Greenhouse names neither a company nor a candidate by number.
      companyId: 0,
      candidateId: 0,
      testId: body.partner_test_id,
      firstName: candidate.first_name,
      lastName: candidate.last_name,
      email: candidate.email,
      phone: candidate.phone_number,
      extraInputs: {},
      platform: GREENHOUSE,
      platformData: { ...platformData },
    };
    // The test looked up and the invitation stored: one statement where the catalog is the kit's table.
    const outcome = await inviteToTest(provider, account, invitation, context.createInvitation);
    if (outcome === 'unknown_test') throw unprocessable('Unknown test', { partner_test_id: ['is not a test of this account'] });
    // A fresh UUID cannot have been used: anything else is a bug, answered 500 by the error handler.
    if (outcome !== 'created') throw new Error(`send_test: a new report id was ${outcome}`);
    context.onInvitationCreated?.(reportId);
    sendJson(res, 200, { partner_interview_id: reportId });
  });

  router.get(`${GREENHOUSE_PATH}/test_status`, authenticate, async (req, res) => {
    const { partner_interview_id: id } = parseOr422(TestStatusQuery, { partner_interview_id: oneValue(req.query.partner_interview_id) });
    const reportId = ReportId.safeParse(id);
    const invitation = reportId.success ? await core.invitations.find(accountOf(res).id, reportId.data) : undefined;
    // Another platform's invitation is no Greenhouse interview: it answers as an unknown one.
    if (!invitation || invitation.platform !== GREENHOUSE) throw notFound('Unknown partner_interview_id');
    const progress = (await core.invitations.progressOf(invitation.reportId)).map((p) => p.stage);
    sendJson(res, 200, testStatus(invitation, progress, () => context.links.resultsUrl(invitation.reportId)));
  });

  // Anyone holding a customer key can report: each account's reports are bounded (notices.ts).
  router.post(`${GREENHOUSE_PATH}/response_error`, authenticate, json, async (req, res) => {
    const body = parseOr422(ResponseErrorBody, req.body ?? {});
    const outcome = await storeNotice(context, accountOf(res), body);
    if (!outcome.stored) {
      const seconds = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
      res.setHeader('Retry-After', String(seconds));
      throw new AppError(
        429,
        'too_many_requests',
        `Too many response_error reports for this key's account: at most ${NOTICE_LIMITS.perWindow} within ${NOTICE_LIMITS.windowMs / 1000} s. Try again in ${seconds} s.`,
      );
    }
    context.logger.warn({ accountId: accountOf(res).id, apiCall: body.api_call, errors: body.errors.length }, 'Greenhouse reported a malformed answer');
    sendJson(res, 200, { status: 200 });
  });
}

/**
 * Stores what Greenhouse reported, for the dashboard's "Reports from platforms": linked to the
 * invitation when it names one of this account's interviews. Refused past the account's rate.
 */
async function storeNotice(context: PlatformContext, account: Account, body: ResponseErrorBody): Promise<NoticeOutcome> {
  const { api_call, errors, ...named } = body;
  const reportId = ReportId.safeParse(named.partner_interview_id);
  const invitation = reportId.success ? await context.core.invitations.find(account.id, reportId.data) : undefined;
  const detail: Record<string, string | string[]> = { errors };
  for (const [key, value] of Object.entries(named)) if (value !== null) detail[key] = value;
  return context.core.notices.add({
    platform: GREENHOUSE,
    accountId: account.id,
    reportId: invitation?.platform === GREENHOUSE ? invitation.reportId : null,
    summary: `Greenhouse found this partner's ${api_call} answer malformed`,
    detail,
  });
}

/** A query parameter given once; a repeated one (`?a=1&a=2`) or a nested one reads as absent. */
const oneValue = (value: Request['query'][string]): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * [kit decision] The name the invitation e-mail greets the candidate by: Greenhouse's
 * `preferred_name` when it reads as a simple name — letters (any script) and the marks, spaces,
 * apostrophes, hyphens and dots of names, at most 50 characters — else `first_name`. Anyone who
 * can edit a candidate in Greenhouse writes that field, and the e-mail goes out under the vendor's
 * name: a preferred name with a link, an address or digits in it is not repeated there.
 */
export function greetingName(candidate: { first_name: string; preferred_name: string | null }): string {
  const preferred = candidate.preferred_name?.trim() ?? '';
  return preferred.length <= 50 && SIMPLE_NAME.test(preferred) ? preferred : candidate.first_name;
}
const SIMPLE_NAME = /^\p{L}[\p{L}\p{M}'’.-]*(?: [\p{L}\p{M}'’.-]+)*$/u;
