import express, { Router, type Response } from 'express';
import type { PartnerKind } from '../../contract/decisions.js';
import { KIND_WORDING } from '../invitations/kinds.js';
import type { InvitationLifecycle } from '../invitations/lifecycle.js';
import type { InvitationLinks } from '../invitations/links.js';
import type { Invitation, InvitationStore } from '../invitations/store.js';
import type { Logger } from '../../lib/http/logger.js';
import { toProviderInvitation } from '../invitations/for-provider.js';
import type { CandidateTask, Provider } from '../provider/types.js';
import { pageErrors, renderMessage, renderPage } from './render.js';

export interface CandidatePagesDeps {
  invitations: InvitationStore;
  lifecycle: InvitationLifecycle;
  links: Pick<InvitationLinks, 'verify'>;
  provider: Provider;
  logger: Logger;
  /** The vendor's name, in the page header: `config.partnerName`, the name the e-mail came from. */
  vendorName?: string;
}

const LINK_PROBLEMS = {
  invalid: {
    status: 400,
    title: 'This link does not work',
    text: 'The link is incomplete or was changed. Open it again from the e-mail you received, or copy the whole link.',
  },
  expired: {
    status: 410,
    title: 'This link has expired',
    text: 'Invitation links work for a limited time. Ask the recruiter to send you a new invitation.',
  },
} as const;

/**
 * The candidate's pages, reached through the signed link in the invitation e-mail:
 *   GET  /take?token=…   the test (or, for checks, the consent form); the first GET marks the
 *                        invitation opened, unless `&preview=…` says the dashboard's operator opened it
 *   POST /take           the answers; then POST → redirect → GET shows the thank-you page
 * A tampered, expired or unknown link gets a friendly page; so does a canceled invitation, whose
 * link stops working the moment it is canceled.
 */
export function candidatePages(deps: CandidatePagesDeps): Router {
  const { invitations, lifecycle, links, provider } = deps;
  const kind: PartnerKind = provider.kind;
  const wording = KIND_WORDING[kind];
  const vendor = deps.vendorName;
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 200 });

  /** The invitation the link opens, or undefined after answering with the reason it cannot. */
  const open = async (res: Response, token: unknown): Promise<{ invitation: Invitation; token: string } | undefined> => {
    const verified = links.verify('candidate', token);
    const invitation = verified.ok ? await invitations.get(verified.reportId) : undefined;
    if (!invitation) {
      const problem = LINK_PROBLEMS[verified.ok ? 'invalid' : verified.reason];
      renderMessage(res, problem.status, problem, { vendor });
      return undefined;
    }
    if (invitation.status === 'canceled') {
      renderMessage(res, 410, {
        title: 'This invitation was canceled',
        text: `The recruiter no longer needs this ${wording.noun}. Nothing more to do — thank you.`,
      }, { vendor });
      return undefined;
    }
    if (invitation.status !== 'sent' || invitation.submittedAt !== null) {
      renderPage(res, './candidate/done', { pageTitle: 'Thank you', invitation, wording, vendor });
      return undefined;
    }
    return { invitation, token: token as string };
  };

  /** A test the provider cannot show here: taken in the vendor's own product, or no longer offered. */
  const unavailable = (res: Response, text = `This ${wording.noun} is not taken on this page. Please use the link in your invitation e-mail.`) =>
    renderMessage(res, 410, { title: 'No longer available', text }, { vendor });

  const showTask = async (
    res: Response,
    opened: { invitation: Invitation; token: string },
    state: { errors?: Record<string, string>; values?: Record<string, unknown> } = {},
    status = 200,
  ) => {
    const task: CandidateTask | undefined = await provider.candidateTask?.(toProviderInvitation(opened.invitation));
    if (!task || task.kind === 'unavailable') return unavailable(res, task?.text);
    renderPage(
      res,
      './candidate/task',
      {
        pageTitle: opened.invitation.testName,
        invitation: opened.invitation,
        token: opened.token,
        task,
        wording,
        vendor,
        errors: state.errors ?? {},
        values: state.values ?? {},
      },
      status,
    );
  };

  router.get('/take', async (req, res) => {
    const opened = await open(res, req.query.token);
    if (!opened) return;
    // An operator following the link from the dashboard's e-mail preview is not the candidate.
    const preview = links.verify('preview', req.query.preview);
    if (!preview.ok || preview.reportId !== opened.invitation.reportId) await invitations.markOpened(opened.invitation.reportId);
    await showTask(res, opened);
  });

  router.post('/take', form, async (req, res) => {
    const fields = (req.body ?? {}) as Record<string, unknown>;
    const opened = await open(res, fields.token);
    if (!opened) return;
    const submission = await provider.submit?.(toProviderInvitation(opened.invitation), fields);
    if (!submission || submission.outcome === 'unavailable') return unavailable(res, submission?.text);
    if (submission.outcome === 'invalid') {
      return showTask(res, opened, { errors: submission.errors, values: fields }, 422);
    }
    // A second submit that lost the race finds the invitation finished: it sees the thank-you page too.
    if (submission.outcome === 'result') await lifecycle.finish(opened.invitation.reportId, submission.result);
    else await lifecycle.submitted(opened.invitation.reportId);
    res.redirect(303, `/take?token=${encodeURIComponent(opened.token)}`);
  });

  router.use(pageErrors(deps.logger, { vendor }));
  return router;
}
