import type { InvitationUpdate } from '../../invitations/update.js';
import type { DeliveryRequest, DeliveryTarget } from '../platform.js';
import { refusedPatchTarget, type PatchTargetRules } from './allowlist.js';
import { CredentialError, type CredentialSealer } from './credential.js';

/**
 * How Greenhouse hears of an invitation's updates (docs/greenhouse.md §3): only that the test is
 * complete — a result, `completed` or `failed` — by a body-less `PATCH {url}` carrying the
 * customer's key as Greenhouse sent it, `Authorization: Basic base64("<key>:")`. Greenhouse then
 * asks `test_status`. Every other update (the start, a cancel) has nothing to tell it: undefined,
 * and the update is settled without a request.
 *
 * A PATCH that cannot be made — its key does not open (CANDIDATE_LINK_SECRET was rotated), or its
 * url is no longer allowed (GREENHOUSE_PATCH_HOSTS changed, the server is now reachable from
 * elsewhere) — throws an `UndeliverableError`: a dead letter, with the reason, on the dashboard.
 */
export function greenhouseDeliveryRequest(
  target: DeliveryTarget,
  update: InvitationUpdate,
  deps: { sealer: CredentialSealer; rules: PatchTargetRules },
): DeliveryRequest | undefined {
  if (update.status !== 'completed' && update.status !== 'failed') return undefined;
  const { url, key } = target.data;
  if (typeof url !== 'string') throw new UndeliverableError('the invitation has no Greenhouse url to PATCH');
  const refused = refusedPatchTarget(url, deps.rules);
  if (refused) throw new UndeliverableError(`the Greenhouse url is no longer allowed: it ${refused}`);
  let plain: string;
  try {
    plain = deps.sealer.open(target.reportId, key);
  } catch (err) {
    if (err instanceof CredentialError) throw new UndeliverableError(err.message);
    throw err;
  }
  // Once Greenhouse has it, nothing else will be sent: the key is forgotten with the delivery.
  const { key: _forgotten, ...rest } = target.data;
  return {
    url,
    method: 'PATCH',
    headers: { authorization: `Basic ${Buffer.from(`${plain}:`, 'utf8').toString('base64')}` },
    platformDataAfter: rest,
  };
}

/** A delivery that can never be made as stored: the update becomes a dead letter with this message. */
export class UndeliverableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndeliverableError';
  }
}
