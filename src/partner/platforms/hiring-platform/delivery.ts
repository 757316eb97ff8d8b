import { PARTNER_SECRET_HEADER } from '../../../contract/decisions.js';
import { ReportUpdate } from '../../../contract/schemas.js';
import type { InvitationUpdate } from '../../invitations/update.js';
import type { DeliveryRequest, DeliveryTarget } from '../platform.js';
import { cancelPath } from './callbacks.js';

/** Why deliveries wait when the partner is not registered yet; the dashboard shows it. */
export const NO_SECRET = 'PARTNER_SECRET is not set: run `npm run register` and put the secret it prints into PARTNER_SECRET';


/**
 * A report update, `PATCH {PLATFORM_URL}/api/p/{codename}/reports/{id}` with the partner secret
 * (platform-contract.md §3.2). The body is the kit's update in the contract's words: a started
 * invitation's first update also names `urls.cancel`, where the platform cancels the report.
 */
export function reportUpdateRequest(
  platform: { url: string; codename: string; secret: string | undefined; publicUrl: string },
  target: DeliveryTarget,
  update: InvitationUpdate,
): DeliveryRequest {
  const { started, urls, ...fields } = update;
  const body: ReportUpdate = { ...fields };
  if (urls || started) body.urls = { ...urls, ...(started && { cancel: `${platform.publicUrl}${cancelPath(target.reportId)}` }) };
  return {
    method: 'PATCH',
    url: `${platform.url}/api/p/${encodeURIComponent(platform.codename)}/reports/${encodeURIComponent(target.reportId)}`,
    headers: { 'content-type': 'application/json', [PARTNER_SECRET_HEADER]: platform.secret ?? '' },
    body: JSON.stringify(ReportUpdate.parse(body)),
  };
}
