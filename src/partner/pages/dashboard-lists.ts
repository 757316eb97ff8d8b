import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { REPORT_STATUSES } from '../../contract/decisions.js';
import type { AccountStore } from '../accounts/store.js';
import type { Invitation, InvitationStore } from '../invitations/store.js';
import { KitReportId } from '../invitations/report-id.js';
import type { Platform } from '../platforms/platform.js';
import { pagerOf } from './dashboard-accounts.js';
import { CursorParam, type DashboardReads } from './dashboard-reads.js';

/** What the invitation list and search need of the dashboard. */
export interface ListPagesDeps {
  accounts: AccountStore;
  invitations: Pick<InvitationStore, 'get'>;
  platforms: readonly Pick<Platform, 'name' | 'label'>[];
  reads: DashboardReads;
  page: (req: Request, res: Response, template: string, data: Record<string, unknown>, status?: number) => void;
}

/** Results of each kind a search shows; one more is read, to say there are more. */
export const SEARCH_SHOWN = 20;
/** The longest search: an e-mail address, a report id or an account's name fits. */
const Search = z.object({ q: z.string().max(200).default('') });

/**
 * The list of invitations, a page at a time, newest first, all or those of one status (a keyset:
 * `after` / `before` the invitation that ends the page next to it), and search: by a candidate's
 * e-mail (its beginning, in any case), a report id (whole), an account's name (its beginning, in
 * any case) or number. Each reads through an index (dashboard-reads.ts): neither slows down as
 * invitations pile up.
 */
export function listPages(router: Router, deps: ListPagesDeps): void {
  const { reads, page } = deps;
  const platformLabels = new Map(deps.platforms.map((p) => [p.name, p.label]));
  const namesOf = (list: readonly Invitation[]) => deps.accounts.namesOf([...new Set(list.map((i) => i.accountId))]);

  router.get('/invitations', async (req, res) => {
    const status = REPORT_STATUSES.find((s) => s === req.query.status);
    const after = CursorParam.safeParse(req.query.after);
    const before = CursorParam.safeParse(req.query.before);
    const paged = after.success || before.success;
    const found = await reads.invitations({ status }, { after: after.success ? after.data : undefined, before: before.success ? before.data : undefined });
    // Newer ones asked for where there are none now (the page was the first): the first page.
    if (before.success && found.rows.length === 0) return res.redirect(303, `/admin/invitations${status ? `?status=${status}` : ''}`);
    page(req, res, './admin/invitations', {
      pageTitle: 'Invitations',
      section: 'invitations',
      invitations: found.rows,
      invitationFilter: status,
      reportStatuses: REPORT_STATUSES,
      pager: pagerOf('/admin/invitations', status ? { status } : {}, found, paged),
      paged,
      accountNames: await namesOf(found.rows),
      platformLabels,
    });
  });

  router.get('/search', async (req, res) => {
    const given = Search.safeParse(req.query);
    const q = given.success ? given.data.q.trim() : '';
    if (q === '') return page(req, res, './admin/search', { pageTitle: 'Search', query: '', searched: false, tooLong: !given.success });
    const reportId = KitReportId.safeParse(q);
    const byReport = reportId.success ? await deps.invitations.get(reportId.data) : undefined;
    const byEmail = await reads.byEmail(q, SEARCH_SHOWN + 1);
    const number = /^#?([1-9]\d{0,11})$/.exec(q);
    const byNumber = number ? await deps.accounts.find(Number(number[1])) : undefined;
    const byName = await deps.accounts.named(q, SEARCH_SHOWN + 1);
    const invitations = [...(byReport ? [byReport] : []), ...byEmail.slice(0, SEARCH_SHOWN).filter((i) => i.reportId !== byReport?.reportId)];
    const accounts = [...(byNumber ? [byNumber] : []), ...byName.slice(0, SEARCH_SHOWN).filter((a) => a.id !== byNumber?.id)];
    page(req, res, './admin/search', {
      pageTitle: `Search: ${q}`,
      query: q,
      searched: true,
      byReport,
      invitations,
      moreInvitations: byEmail.length > SEARCH_SHOWN,
      accounts,
      moreAccounts: byName.length > SEARCH_SHOWN,
      shown: SEARCH_SHOWN,
      accountNames: await namesOf(invitations),
      platformLabels,
    });
  });
}
