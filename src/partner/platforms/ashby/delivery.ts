import { basicHeader } from '../../../lib/http/basic-key.js';
import type { InvitationUpdate } from '../../invitations/update.js';
import type { AnswerVerdict, DeliveryAnswer, DeliveryRequest, DeliveryTarget } from '../platform.js';
import { assessmentUpdate } from './update.js';
import { UpdateReply } from './wire.js';

/**
 * How Ashby hears of an invitation's updates (docs/ashby.md §6): `POST {ASHBY_API_URL}/assessment.update`
 * with the customer's Ashby API key as the Basic user name and an empty password, the body
 * `update.ts` writes. Nothing for what Ashby has no word for (the invitation's start, its own
 * cancel): the update is settled without a request.
 *
 * Without a key — removed since the start, which refuses to begin without one — the request
 * cannot be made: it throws, a dead letter saying how to set one; "Retry now" sends it once set.
 */
export async function ashbyDeliveryRequest(
  target: DeliveryTarget,
  update: InvitationUpdate,
  deps: { apiUrl: string; now: () => number; accountsCommand: (accountId: number) => string },
): Promise<DeliveryRequest | undefined> {
  const body = assessmentUpdate(target.reportId, update, deps.now());
  if (body === undefined) return undefined;
  const key = await target.credential();
  if (key === undefined) {
    throw new Error(`the account has no Ashby API key: set it with ${deps.accountsCommand(target.accountId)}, then retry`);
  }
  return {
    url: `${deps.apiUrl}/assessment.update`,
    method: 'POST',
    headers: {
      authorization: basicHeader(key),
      'content-type': 'application/json',
      // As Ashby's own examples call its API.
      accept: 'application/json; version=1',
    },
    body: JSON.stringify(body),
  };
}

/**
 * [kit decision] What Ashby's answer to `assessment.update` means (docs/ashby.md §6). Ashby answers
 * what would be a 4xx as a 200 with `success: false` and an `errorInfo`:
 *
 * - a 2xx with `success: false` whose `errorInfo.code` says the request itself is wrong — the body
 *   (`invalid_input`), or the key (`invalid_…`, `missing_…`, `…permission…`, `unauthorized`,
 *   `forbidden`) — is a dead letter at once: the same request would be refused again;
 * - any other `success: false` (a code the kit cannot place, none, an assessment Ashby does not
 *   find yet) is retried as a 5xx is, and a dead letter after the same 3 days;
 * - every other answer goes by its status; an `errorInfo` found in it is the reason shown.
 */
export function judgeAshbyAnswer(answer: DeliveryAnswer): AnswerVerdict {
  const reply = replyOf(answer.body);
  const code = reply?.errorInfo?.code ?? (typeof reply?.errors?.[0] === 'string' ? reply.errors[0] : undefined);
  const message = reply?.errorInfo?.message;
  const reason = code === undefined ? message : message ? `${code}: ${message}` : code;
  const ok = answer.status >= 200 && answer.status < 300;
  if (ok && reply?.success === false) {
    return { outcome: code !== undefined && REFUSED.test(code) ? 'dead' : 'retry', reason: `success: false${reason ? `, ${reason}` : ''}` };
  }
  return reason === undefined ? {} : { reason };
}

/** The codes of a request Ashby will refuse again, whatever the wait. */
const REFUSED = /^(invalid_|missing_|unauthori[sz]ed$|forbidden$)|permission/;

function replyOf(body: string): UpdateReply | undefined {
  try {
    const parsed = UpdateReply.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
type UpdateReply = ReturnType<typeof UpdateReply.parse>;
