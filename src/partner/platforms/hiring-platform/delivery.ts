import { PARTNER_SECRET_HEADER, type PartnerKind } from '../../../contract/decisions.js';
import { ReportUpdate } from '../../../contract/schemas.js';
import type { InvitationUpdate } from '../../invitations/update.js';
import type { DeliveryRequest, DeliveryTarget } from '../platform.js';
import { cancelPath } from './callbacks.js';

/** Why deliveries wait when the partner is not registered yet; the dashboard shows it. */
export const NO_SECRET = 'PARTNER_SECRET is not set: run `npm run register` and put the secret it prints into PARTNER_SECRET';

/**
 * A report update, `PATCH {PLATFORM_URL}/api/p/{codename}/reports/{id}` with the partner secret
 * (platform-contract.md §3.2): the kit's update in the contract's words. A started invitation's
 * first update also names `urls.cancel`, where the platform cancels the report. The contract has
 * no word for the candidate's progress, the score as a number, when a change happened or why a
 * report was canceled: those are left out, and an update of nothing else is not sent. A check
 * (PARTNER_KIND other than assessment) may not send subtitle or properties (§3.2): dropped.
 */
export function reportUpdateRequest(
  platform: { url: string; codename: string; secret: string | undefined; publicUrl: string; kind: PartnerKind },
  target: DeliveryTarget,
  update: InvitationUpdate,
): DeliveryRequest | undefined {
  const { started, urls, status, score, completed_at, subtitle, properties } = update;
  const shown = platform.kind === 'assessment' ? { subtitle, properties } : {};
  const body = Object.fromEntries(Object.entries({ status, score, completed_at, ...shown }).filter(([, v]) => v !== undefined)) as ReportUpdate;
  if (urls || started) body.urls = { ...urls, ...(started && { cancel: `${platform.publicUrl}${cancelPath(target.reportId)}` }) };
  if (Object.keys(body).length === 0) return undefined;
  return {
    method: 'PATCH',
    url: `${platform.url}/api/p/${encodeURIComponent(platform.codename)}/reports/${encodeURIComponent(target.reportId)}`,
    headers: { 'content-type': 'application/json', [PARTNER_SECRET_HEADER]: platform.secret ?? '' },
    body: JSON.stringify(ReportUpdate.parse(body)),
  };
}
