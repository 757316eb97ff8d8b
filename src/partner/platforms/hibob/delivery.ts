import type { InvitationUpdate } from '../../invitations/update.js';
import type { AnswerVerdict, DeliveryAnswer, DeliveryRequest, DeliveryTarget } from '../platform.js';
import { notConfiguredMessage, type HibobSettings } from './settings.js';
import type { BobTokenKeeper } from './tokens.js';

/**
 * [kit decision] The body of Bob's update-status call (`PATCH /hiring/assessments/{id}`) for the
 * kit's merged update, or undefined when Bob has nothing to hear (docs/hibob.md §6):
 *
 * - a result: `status` `completed` for the kit's `completed` (the process finished; the kit does not
 *   say passed), `failed` for its `failed` (took the test and failed); `score` the number the
 *   vendor's text reads as (`score_value`: "87%" → 87), left out when it reads as none; `resultUrl`
 *   the recruiter's results page (`urls.show`); `verdict` the subtitle; `comments` the properties,
 *   one `label: value` a line;
 * - the start, progress: nothing (Bob's status list beyond `completed`, `passed`, `failed` is not
 *   known; Bob shows the order as it was made until the result);
 * - a cancel, whoever made it: nothing (after Bob's own cancel Bob refuses updates; for the
 *   vendor's, no status of Bob's is known to say it).
 */
export function statusUpdate(update: InvitationUpdate): Record<string, unknown> | undefined {
  if (update.status !== 'completed' && update.status !== 'failed') return undefined;
  const comments = (update.properties ?? []).map((p) => `${p.label}: ${p.value}`).join('\n');
  return {
    status: update.status,
    ...(typeof update.score_value === 'number' && { score: update.score_value }),
    ...(update.urls?.show && { resultUrl: update.urls.show }),
    ...(update.subtitle && { verdict: update.subtitle }),
    ...(comments && { comments }),
  };
}

/**
 * How Bob hears of an invitation's updates: `PATCH {HIBOB_API_URL}/hiring/assessments/{assessmentRequestId}`
 * with the bearer token of the invitation's account's Bob install — the company whose order it is
 * (the order's `company_id` must be the install's: one company's token never touches another's
 * order), refreshed first when due. A request that cannot be made throws: a dead letter, with why —
 * HiBob not configured, no install, an install of another company, a results page that is not
 * https while the partner is reachable from elsewhere (Bob refuses a `resultUrl` that is not
 * HTTPS), a refresh token Bob refused.
 *
 * A 401 is judged a retry, the token marked refused first: the next attempt refreshes it.
 */
export function hibobDelivery(deps: { settings: HibobSettings; tokens: BobTokenKeeper; localOnly: boolean }) {
  const { settings, tokens } = deps;
  /** The token each report's last request carried (this process): a 401 marks that one, not a newer one. */
  const sentWith = new Map<string, string>();
  return {
    async deliveryRequest(target: DeliveryTarget, update: InvitationUpdate): Promise<DeliveryRequest | undefined> {
      const body = statusUpdate(update);
      if (body === undefined) return undefined;
      if (settings.missing.length > 0) throw new Error(`${notConfiguredMessage(settings)}, then retry`);
      const resultUrl = body.resultUrl;
      if (typeof resultUrl === 'string' && !resultUrl.startsWith('https:') && !deps.localOnly) {
        throw new Error(`the results page ${new URL(resultUrl).origin} is not https, and Bob refuses a resultUrl that is not HTTPS: set PUBLIC_URL to the partner's https address, then retry`);
      }
      const companyId = typeof target.data.company_id === 'string' ? target.data.company_id : undefined;
      if (companyId === undefined) throw new Error('the invitation names no Bob company');
      const token = await tokens.accessToken(target.accountId, { companyId, lenient: true });
      sentWith.set(target.reportId, token);
      return {
        url: `${settings.apiUrl}/hiring/assessments/${encodeURIComponent(target.reportId)}`,
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      };
    },

    async judgeAnswer(answer: DeliveryAnswer, target: DeliveryTarget): Promise<AnswerVerdict> {
      const token = sentWith.get(target.reportId);
      sentWith.delete(target.reportId);
      if (answer.status !== 401) return {};
      await tokens.markRefused(target.accountId, token);
      return { outcome: 'retry', reason: 'Bob refused the access token: it is refreshed before the next attempt' };
    },
  };
}
