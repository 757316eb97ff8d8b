import type { PartnerKind } from '../contract/decisions.js';
import type { Clock } from '../lib/clock.js';
import { DEV_CANDIDATE_LINK_SECRET } from './config.js';
import type { Sql } from '../lib/sql.js';
import { accountStore, type AccountStore } from './accounts/store.js';
import { invitationLifecycle, type InvitationLifecycle } from './invitations/lifecycle.js';
import type { InvitationLinks } from './invitations/links.js';
import { invitationStore, type InvitationStore } from './invitations/store.js';
import { mailOutbox, type MailOutbox } from './mail/outbox.js';
import { vendorReports, type VendorReports } from './results/api.js';
import { updateOutbox, type UpdateOutbox } from './updates/outbox.js';
import type { Queued } from './jobs/wakeups.js';
import { platformNoticeStore, type PlatformNoticeStore } from './platforms/notices.js';
import { connectionStore, type ConnectionStore } from './connections/store.js';

/** The stores and the lifecycle, built once (`partnerCore`, below) and shared by the app and the workers. */
export interface PartnerCore {
  accounts: AccountStore;
  invitations: InvitationStore;
  updates: UpdateOutbox;
  mail: MailOutbox;
  lifecycle: InvitationLifecycle;
  /** Results pushed by the vendor's product, in process and through `POST /vendor/reports/{id}/result`. */
  results: VendorReports;
  /** What platforms report about the partner's answers (Greenhouse's response_error), for the dashboard. */
  notices: PlatformNoticeStore;
  /** Each account's connection to each platform: its company id there, its sealed credential. */
  connections: ConnectionStore;
}

/**
 * The stores, the invitation lifecycle over them and the vendor results API: built once, and
 * shared by the app (callbacks, pages, the results endpoint) and the workers, so every change of
 * an invitation goes through the one lifecycle.
 */
export function partnerCore(
  sql: Sql,
  clock: Clock,
  options: {
    kind: PartnerKind;
    /** Seals the customers' credentials (CANDIDATE_LINK_SECRET); the development key when not given. */
    linkSecret?: string;
    links?: Pick<InvitationLinks, 'resultsUrl'>;
    /** By platform name, whether the invitation e-mail waits for its first acceptance (`Platform.emailAfterAcceptance`). */
    emailAfterAcceptance?: (platform: string) => boolean;
    /** By platform name, whether it hears of the candidate's progress (`Platform.hearsProgress`). */
    hearsProgress?: (platform: string) => boolean;
    wake?: (loops?: Queued) => void;
    /** Whether the provider has a cancel hook: cancels then queue the call to it (lifecycle.ts). */
    hasCancelHook?: () => boolean;
  },
): PartnerCore {
  const accounts = accountStore(sql, clock);
  const invitations = invitationStore(sql, clock);
  const updates = updateOutbox(sql, clock);
  const mail = mailOutbox(sql, clock);
  const lifecycle = invitationLifecycle({
    sql,
    clock,
    updates,
    mail,
    links: options.links,
    wake: options.wake,
    hasCancelHook: options.hasCancelHook,
    emailAfterAcceptance: options.emailAfterAcceptance,
    hearsProgress: options.hearsProgress,
  });
  return {
    accounts,
    invitations,
    updates,
    mail,
    lifecycle,
    results: vendorReports({ lifecycle, clock }),
    notices: platformNoticeStore(sql, clock),
    connections: connectionStore(sql, clock, options.linkSecret ?? DEV_CANDIDATE_LINK_SECRET),
  };
}

