import express, { Router, type Request, type Response } from 'express';
import { NOTICE_LIMITS, type PlatformNoticeStore } from '../platforms/notices.js';
import type { Platform, PlatformDefinition } from '../platforms/platform.js';
import type { ConnectionStore } from '../connections/store.js';
import { z } from 'zod';
import type { AccountStore } from '../accounts/store.js';
import type { Config } from '../config.js';
import { REPORT_STATUSES, type PartnerKind } from '../../contract/decisions.js';
import { KitReportId } from '../invitations/report-id.js';
import type { Clock } from '../../lib/clock.js';
import { notFound } from '../../lib/errors.js';
import type { Logger } from '../../lib/http/logger.js';
import { KIND_WORDING } from '../invitations/kinds.js';
import type { InvitationLifecycle } from '../invitations/lifecycle.js';
import type { InvitationLinks } from '../invitations/links.js';
import type { Invitation, InvitationStore } from '../invitations/store.js';
import { accountPages } from './dashboard-accounts.js';
import { listPages } from './dashboard-lists.js';
import { dashboardReads } from './dashboard-reads.js';
import { overviewView } from './overview.js';
import type { MailOutbox, QueuedMail } from '../mail/outbox.js';
import type { Provider } from '../provider/types.js';
import type { UpdateOutbox, UpdateStatus } from '../updates/outbox.js';
import { adminDoor, publicHostOnly, sameOriginOnly } from './admin-auth.js';
import { adminSessions } from './admin-session.js';
import type { Sql } from '../../lib/sql.js';
import { resultDetailsOf, toInvitationToStart, toProviderInvitation } from '../invitations/for-provider.js';
import { linkify, mailPreviewHtml, parseJson, prettyJson, shortUrl, urlsIn } from './present.js';
import { pageErrors, renderPage } from './render.js';

export interface DashboardDeps {
  /** The partner's database: the sessions' key, and the pages' own reads (keyset pages, search, the overview). */
  sql: Sql;
  accounts: AccountStore;
  invitations: InvitationStore;
  lifecycle: InvitationLifecycle;
  /** Marks a candidate link the operator follows from an e-mail as the operator's, not the candidate's. */
  links: Pick<InvitationLinks, 'sign'>;
  updates: UpdateOutbox;
  mail: MailOutbox;
  provider: Provider;
  logger: Logger;
  /** Counts the window of failed sign-ins (sign-in-throttle.ts). */
  clock: Clock;
  admin: Config['admin'];
  publicUrl: string;
  /** What platforms reported about the partner's answers: "Reports from platforms". */
  notices: Pick<PlatformNoticeStore, 'byAccount'>;
  /** The platforms the partner speaks: their settings at the top, their names on each invitation, what each hears of it. */
  platforms: readonly Pick<Platform, 'name' | 'label' | 'home' | 'details' | 'hears'>[];
  /** The accounts' connections to platforms: company ids, credentials masked; set and removed on an account's page. */
  connections: Pick<ConnectionStore, 'ofAccounts' | 'ofAccount' | 'get' | 'setCredential' | 'removeCredential' | 'connect'>;
  /**
   * The platforms' definitions (`PlatformDefinition.credential`): which keep a credential per
   * customer, how it is named, and whether updates need it; the platforms a credential may be set for.
   */
  credentials: readonly Pick<PlatformDefinition, 'name' | 'label' | 'credential'>[];
  mailSettings: Pick<Config['mail'], 'transport'>;
  /** The vendor's name, in the header and the window's title. */
  vendorName?: string;
  /** Why report deliveries cannot run (no partner secret), if they cannot. */
  deliveriesWaiting: () => string | undefined;
  /** Wakes the workers after an action queued something. */
  wake?: () => void;
}

/** What a finished action says; the redirect carries only the key, so no text is reflected from a URL. */
const NOTICES = {
  retried: { kind: 'ok', text: 'The update will be sent again now.' },
  'not-retried': { kind: 'error', text: 'That update was already delivered or superseded: nothing to retry.' },
  stopped: { kind: 'ok', text: 'Retries canceled: the update will not be sent.' },
  'not-stopped': { kind: 'error', text: 'Only a pending update can have its retries canceled.' },
  canceled: { kind: 'ok', text: 'The invitation was canceled; the platform will be told.' },
  'not-canceled': { kind: 'error', text: 'Only an invitation that is still open can be canceled.' },
  decided: { kind: 'ok', text: 'The result was recorded; the platform will be told.' },
  'not-decided': { kind: 'error', text: 'A result can be recorded only for an open invitation whose candidate has given consent.' },
  resent: { kind: 'ok', text: 'A new invitation e-mail with a fresh link is on its way.' },
  'not-resent': { kind: 'error', text: 'Only an open invitation whose e-mail went out (the platform has accepted its report) can be sent again.' },
  revoked: { kind: 'ok', text: 'Revoked: the platform’s calls with it are refused from now on.' },
  'not-revoked': { kind: 'error', text: 'No token that still works was named: nothing was revoked.' },
  'credential-set': { kind: 'ok', text: 'The credential was stored, sealed; it is used from the next delivery on. Only its last four characters are shown.' },
  'credential-removed': { kind: 'ok', text: 'The credential was removed.' },
  'credential-none': { kind: 'error', text: 'There was no credential to remove.' },
} as const;
type Notice = keyof typeof NOTICES;

const UPDATE_STATUSES: readonly UpdateStatus[] = ['pending', 'delivered', 'dead', 'canceled', 'superseded'];
const IdParam = z.string().regex(/^\d{1,12}$/).transform(Number);
const Back = z.string().regex(/^\/admin(\/[\w-]+)*$/);
const Decision = z.object({ decision: z.enum(['clear', 'adverse']) });

/**
 * The vendor's operator dashboard at /admin, behind its sign-in page (or the admin credentials on
 * each request, for scripts): the overview (the last 30 days in charts, dead letters, the newest
 * invitations, the delivery log of report updates with "retry now" / "cancel retries", platforms'
 * reports, e-mail), the invitations a page at a time, search, the Accounts pages
 * (dashboard-accounts.ts), and the vendor-side actions (cancel an invitation, decide a check,
 * resend an invitation). Forms POST, then redirect (POST → redirect → GET); deciding a check or
 * revoking a token, which cannot be undone, first shows a confirmation page (GET), whose button
 * makes the POST. Requests for another host than PUBLIC_URL's, and posts from other origins, are
 * refused (admin-auth.ts). Every page reads a bounded number of rows (dashboard-reads.ts).
 */
export function dashboard(deps: DashboardDeps): Router {
  const { accounts, invitations, lifecycle, updates, mail, provider } = deps;
  const kind: PartnerKind = provider.kind;
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20 });
  const door = adminDoor(deps.admin, {
    clock: deps.clock,
    logger: deps.logger,
    sessions: adminSessions({ sql: deps.sql, clock: deps.clock, admin: deps.admin, publicUrl: deps.publicUrl }),
    vendorName: deps.vendorName,
  });
  // The host first (DNS rebinding), then every form's origin (CSRF), the sign-in page's included;
  // then the sign-in page and sign-out, which need no session; then the session or credentials.
  router.use(publicHostOnly(deps.publicUrl), sameOriginOnly(deps.publicUrl), door.routes, door.guard);

  const storedOnly = deps.mailSettings.transport === 'json';
  /**
   * An e-mail's status as an operator should read it: the JSON transport keeps a "sent" e-mail in
   * the database and sends nothing, so that e-mail is "stored" (as is one whose message was kept).
   */
  const mailStatus = (m: QueuedMail) => (m.status === 'sent' && (storedOnly || m.message !== null) ? 'stored' : m.status);
  const page = (req: Request, res: Response, template: string, data: Record<string, unknown>, status = 200) => {
    const key = typeof req.query.notice === 'string' ? req.query.notice : undefined;
    const notice = key !== undefined && Object.hasOwn(NOTICES, key) ? NOTICES[key as Notice] : undefined;
    renderPage(
      res,
      template,
      {
        admin: true,
        vendor: deps.vendorName,
        operator: res.locals.operator,
        notice,
        kind,
        wording: KIND_WORDING[kind],
        waiting: deps.deliveriesWaiting(),
        canDecide: provider.decide !== undefined,
        mailStatus,
        shortUrl,
        parseJson,
        prettyJson,
        ...data,
      },
      status,
    );
  };
  const done = (req: Request, res: Response, notice: Notice) => {
    const back = Back.safeParse((req.body as { back?: unknown } | undefined)?.back);
    res.redirect(303, `${back.success ? back.data : '/admin'}?notice=${notice}`);
  };
  /** For outbox actions: the lifecycle wakes the workers itself, the outbox does not. */
  const doneAndWake = (req: Request, res: Response, ok: boolean, yes: Notice, no: Notice) => {
    if (ok) deps.wake?.();
    done(req, res, ok ? yes : no);
  };
  const reportIdOf = (req: Request) => {
    const id = KitReportId.safeParse(req.params.reportId);
    if (!id.success) throw notFound('Unknown report');
    return id.data;
  };
  const invitationOf = async (req: Request) => {
    const invitation = await invitations.get(reportIdOf(req));
    if (!invitation) throw notFound('Unknown report');
    return invitation;
  };

  const reads = dashboardReads(deps.sql, deps.clock);
  const platformLabels = new Map(deps.platforms.map((p) => [p.name, p.label]));

  router.get('/', async (req, res) => {
    // The invitations of one status have a page of their own now; an older link is taken there.
    const invitationFilter = REPORT_STATUSES.find((s) => s === req.query.invitations);
    if (invitationFilter) return res.redirect(303, `/admin/invitations?status=${invitationFilter}`);
    const updateFilter = UPDATE_STATUSES.find((s) => s === req.query.updates);
    // Independent reads in three chains at once: on PostgreSQL each statement is a round trip, and
    // the page waits for the longest chain, not for all of them, holding at most three of the
    // pool's connections (the callbacks need the others); on SQLite they run one after another.
    const [overview, [newest, counts, nextDueAt], [deadLetters, listed, mails, noticeGroups, accountsTotal]] = await Promise.all([
      reads.overview(),
      (async () => [await reads.invitations({}, {}, INVITATIONS_SHOWN), await reads.updateCounts(UPDATE_STATUSES), await updates.nextDueAt()] as const)(),
      (async () =>
        [
          await updates.recent({ status: 'dead', limit: DEAD_LETTERS_SHOWN }),
          // At a glance the newest few; filtered on a status (the dead letters, say), up to 100 of them.
          await updates.recent({ status: updateFilter, limit: updateFilter ? 100 : UPDATES_SHOWN }),
          await mail.recent(20),
          await deps.notices.byAccount(NOTICES_SHOWN),
          await accounts.count(),
        ] as const)(),
    ]);
    const named = await accounts.namesOf([...new Set([...newest.rows.map((i) => i.accountId), ...noticeGroups.map((g) => g.accountId)])]);
    page(req, res, './admin/overview', {
      pageTitle: 'Dashboard',
      section: 'overview',
      platforms: deps.platforms,
      mailSettings: deps.mailSettings,
      overview: overviewView(overview, deps.platforms),
      invitations: newest.rows,
      moreInvitations: newest.older !== undefined,
      accountNames: named,
      accountsTotal,
      deadLetters,
      updates: listed,
      updateFilter,
      updatesShown: UPDATES_SHOWN,
      updateStatuses: UPDATE_STATUSES,
      counts,
      mails,
      nextDueAt,
      noticeGroups,
      noticesShown: NOTICES_SHOWN,
      noticesKept: NOTICE_LIMITS.keptPerAccount,
      noticeAccounts: named,
      platformLabels,
    });
  });

  accountPages(router, { sql: deps.sql, clock: deps.clock, accounts, connections: deps.connections, platforms: deps.platforms, credentials: deps.credentials, provider, reads, page });
  listPages(router, { accounts, invitations, platforms: deps.platforms, reads, page });

  router.get('/reports/:reportId', async (req, res) => {
    const invitation = await invitationOf(req);
    page(req, res, './admin/report', {
      pageTitle: `Report ${invitation.reportId}`,
      invitation,
      account: await accounts.find(invitation.accountId),
      tokens: await accounts.activeTokens(invitation.accountId),
      updates: await updates.ofReport(invitation.reportId),
      attempts: await updates.attemptsOf(invitation.reportId),
      mails: await mail.ofReport(invitation.reportId),
      details: await resultDetailsOf(provider, invitation),
      progress: await invitations.progressOf(invitation.reportId),
      platform: deps.platforms.find((p) => p.name === invitation.platform),
      platformDetails: deps.platforms.find((p) => p.name === invitation.platform)?.details?.(invitation.platformData) ?? [],
    });
  });

  /** The e-mail the path names, with what the JSON transport kept of it. */
  const mailOf = async (req: Request) => {
    const id = IdParam.safeParse(req.params.id);
    const message = id.success ? await mail.find(id.data) : undefined;
    if (!message) throw notFound('Unknown e-mail');
    return { message, content: mailContent(message.message) };
  };
  const candidateLinkPrefix = `${deps.publicUrl}/take?`;
  const isCandidateLink = (url: string) => url.startsWith(candidateLinkPrefix);

  router.get('/mail/:id', async (req, res) => {
    const { message, content } = await mailOf(req);
    // The candidate link, followed from this page, goes through /open: the candidate did not open it.
    const hrefOf = (url: string) => (isCandidateLink(url) ? `${deps.publicUrl}/admin/mail/${message.id}/open` : url);
    page(req, res, './admin/mail', {
      pageTitle: `E-mail ${message.id}`,
      message,
      content,
      previewHtml: typeof content?.html === 'string' ? mailPreviewHtml(content.html, hrefOf) : undefined,
      textHtml: typeof content?.text === 'string' ? linkify(content.text, hrefOf) : undefined,
      links: (typeof content?.text === 'string' ? urlsIn(content.text) : []).map((url) => ({ url, href: hrefOf(url), candidate: isCandidateLink(url) })),
    });
  });

  /** The e-mail's candidate link, marked as opened by the operator (a new tab, from the preview). */
  router.get('/mail/:id/open', async (req, res) => {
    const { message, content } = await mailOf(req);
    const link = typeof content?.text === 'string' ? urlsIn(content.text).find(isCandidateLink) : undefined;
    if (!link) throw notFound('This e-mail has no candidate link');
    const url = new URL(link);
    url.searchParams.set('preview', deps.links.sign('preview', message.reportId));
    res.redirect(303, url.href);
  });

  router.post('/updates/:id/retry', form, async (req, res) => {
    const id = IdParam.safeParse(req.params.id);
    doneAndWake(req, res, id.success && (await updates.retryNow(id.data)), 'retried', 'not-retried');
  });

  router.post('/updates/:id/cancel', form, async (req, res) => {
    const id = IdParam.safeParse(req.params.id);
    done(req, res, id.success && (await updates.cancelRetries(id.data)) ? 'stopped' : 'not-stopped');
  });

  router.post('/reports/:reportId/cancel', form, async (req, res) => {
    const outcome = await lifecycle.cancel((await invitationOf(req)).reportId, 'vendor');
    done(req, res, outcome === 'canceled' ? 'canceled' : 'not-canceled');
  });

  /** Whether the operator can record a result for this invitation now; the decision, if so. */
  const decidable = (invitation: Invitation, fields: unknown) => {
    const parsed = Decision.safeParse(fields ?? {});
    const open = provider.decide !== undefined && invitation.status === 'sent' && invitation.submittedAt !== null;
    return open && parsed.success ? parsed.data.decision : undefined;
  };
  /** A result cannot be taken back: the operator confirms it on a page of its own first (no script needed). */
  const confirmDecision = (req: Request, res: Response, invitation: Invitation, decision: 'clear' | 'adverse') =>
    page(req, res, './admin/confirm', { pageTitle: `Record result: ${decision}`, invitation, decision });

  router.get('/reports/:reportId/decide', async (req, res) => {
    const invitation = await invitationOf(req);
    const decision = decidable(invitation, req.query);
    if (!decision) return res.redirect(303, `/admin/reports/${invitation.reportId}?notice=not-decided`);
    confirmDecision(req, res, invitation, decision);
  });

  router.post('/reports/:reportId/decide', form, async (req, res) => {
    const invitation = await invitationOf(req);
    const decision = decidable(invitation, req.body);
    if (!provider.decide || !decision) return done(req, res, 'not-decided');
    // Only the confirmation page's button says yes; any other post (an older page) is asked first.
    if ((req.body as { confirm?: unknown } | undefined)?.confirm !== 'yes') return confirmDecision(req, res, invitation, decision);
    const result = await provider.decide(toProviderInvitation(invitation), decision);
    done(req, res, (await lifecycle.finish(invitation.reportId, result)) ? 'decided' : 'not-decided');
  });

  router.post('/reports/:reportId/resend', form, async (req, res) => {
    const invitation = await invitationOf(req);
    // Before the platform accepted the report no e-mail went out: there is nothing to resend yet.
    if (invitation.status !== 'sent' || invitation.startedAt === null || invitation.platformAcceptedAt === null) return done(req, res, 'not-resent');
    const { candidateUrl } = await provider.startInvitation(toInvitationToStart(invitation));
    done(req, res, (await lifecycle.resend(invitation.reportId, candidateUrl)) ? 'resent' : 'not-resent');
  });

  router.use(pageErrors(deps.logger, { admin: true }));
  return router;
}

/**
 * What the dashboard shows of an e-mail the JSON transport rendered (the JSON text kept in its
 * outbox row): undefined for SMTP, an erased e-mail, or a row sent before messages were kept.
 */
function mailContent(
  message: string | null,
): { from?: unknown; to?: unknown; subject?: unknown; text?: unknown; html?: unknown } | undefined {
  if (!message) return undefined;
  try {
    const parsed = JSON.parse(message) as Record<string, unknown>;
    // nodemailer renders addresses as {name, address} objects (a list for `to`).
    const one = (x: { name?: string; address?: string }) => (x.name ? `${x.name} <${x.address}>` : x.address);
    const address = (a: unknown) =>
      Array.isArray(a) ? a.map(one).join(', ') : a !== null && typeof a === 'object' ? one(a as { name?: string }) : a;
    return { from: address(parsed.from), to: address(parsed.to), subject: parsed.subject, text: parsed.text, html: parsed.html };
  } catch {
    return undefined;
  }
}

/**
 * Reports from platforms the overview lists: per account, so that one customer's many reports
 * cannot hide another's — the accounts that reported last, each with its newest few.
 */
const NOTICES_SHOWN = { accounts: 20, each: 3 };

/** The newest invitations the overview lists; the Invitations page has them all, a page at a time. */
const INVITATIONS_SHOWN = 10;

/** The report updates the overview lists unfiltered: the newest. */
const UPDATES_SHOWN = 20;

/** The newest dead letters the overview names; "Report updates" filtered on `dead` lists them all. */
const DEAD_LETTERS_SHOWN = 5;
