/**
 * How the platform shows a callback's answer to its user (platform-contract.md §4):
 *
 *   2xx                               success
 *   401 or 403                        "Invalid token"
 *   other 4xx                         the partner's own `{"error": "..."}` message, else the generic text
 *   5xx, timeout, connection error,   "There was a problem with the {name} API"
 *   anything unexpected
 */
export type FailureKind = 'invalid_token' | 'partner_error' | 'problem';

export interface Failure {
  kind: FailureKind;
  message: string;
}

export const INVALID_TOKEN_MESSAGE = 'Invalid token';
/** A partner's own message longer than this is cut: the platform shows it in a one-line notice. */
const MAX_PARTNER_MESSAGE = 300;

export const problemMessage = (partnerName: string) => `There was a problem with the ${partnerName} API`;

/** The failure a received answer means, or undefined for a 2xx. */
export function failureOf(status: number, body: unknown, partnerName: string): Failure | undefined {
  if (status >= 200 && status < 300) return undefined;
  if (status === 401 || status === 403) return { kind: 'invalid_token', message: INVALID_TOKEN_MESSAGE };
  if (status >= 400 && status < 500) {
    const error = (body as { error?: unknown } | null)?.error;
    if (typeof error === 'string' && error.trim() !== '') {
      const message = error.trim();
      return {
        kind: 'partner_error',
        message: message.length > MAX_PARTNER_MESSAGE ? `${message.slice(0, MAX_PARTNER_MESSAGE)}…` : message,
      };
    }
  }
  return { kind: 'problem', message: problemMessage(partnerName) };
}
