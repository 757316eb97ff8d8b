/**
 * The contract's numbers and kit decisions, in one place. Each constant names its source:
 * [seed] = a rule of the platform's interface document (restated in docs/platform-contract.md), [public docs] = the real platform's documentation,
 * [kit decision] = chosen by this kit where neither says.
 */

/** [kit decision] How long the platform waits for any partner callback. */
export const CALLBACK_TIMEOUT_MS = 10_000;

/** [seed, platform-contract.md §3.1] Kinds of partner integration. */
export const PARTNER_KINDS = ['assessment', 'background_check', 'reference_check'] as const;
export type PartnerKind = (typeof PARTNER_KINDS)[number];

/** [public docs] Report statuses; `sent` is where every report starts. Note the single "l" in canceled. */
export const REPORT_STATUSES = ['sent', 'completed', 'failed', 'canceled'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const TERMINAL_REPORT_STATUSES: readonly ReportStatus[] = ['completed', 'failed', 'canceled'];

/**
 * [public docs] Longer scores are not shown in the platform's badge. The contract makes no
 * exception for checks: their outcome word must fit too ("Clear"; "Adverse" does not).
 */
export const REPORT_SCORE_MAX_LENGTH = 5;

/**
 * [kit decision] What a partner is told when its score is longer: why, and what fits instead,
 * for an assessment and a check alike.
 */
export const REPORT_SCORE_TOO_LONG =
  `must be at most ${REPORT_SCORE_MAX_LENGTH} characters: the platform's badge shows no more, for checks too ` +
  '(e.g. "76%", "12/15", "Clear"; for an adverse check, status failed with a score such as "Alert", not "Adverse")';

/** [public docs] The header that carries the partner secret on report updates (a Bearer token is refused). */
export const PARTNER_SECRET_HEADER = 'rt-partner-secret';

/** [kit decision] A codename is URL-friendly: lowercase letters, digits, "-" and "_", 2–64 characters. */
export const CODENAME_PATTERN = /^[a-z0-9_-]{2,64}$/;

/** [kit decision] Length of the partner secret the platform generates (base64url characters). */
export const PARTNER_SECRET_LENGTH = 43;

/** [public docs] Inputs the platform sends to send_candidate when a partner configures none. */
export const DEFAULT_PARTNER_INPUTS = [
  { kind: 'first_name', required: true },
  { kind: 'last_name', required: true },
  { kind: 'email', required: true },
] as const;

// --- Webhooks [seed, platform-contract.md §6.1, §1.1, §6.4, §8.3] -------------------------------------------------------------

export const WEBHOOK_USER_AGENT = 'Service-Webhooks';
export const WEBHOOK_SIGNATURE_HEADER = 'x-service-signature';
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Delay before retry n (1-based) after the previous attempt failed: 1 m, 3 m, 10 m, 45 m, 2 h, 5 h, 10 h, 24 h, 48 h. */
export const WEBHOOK_RETRY_DELAYS_MS = [1, 3, 10, 45, 120, 300, 600, 1440, 2880].map((m) => m * 60_000);
export const WEBHOOK_RATE_LIMIT_PER_MINUTE = { trial: 5, standard: 100 } as const;
/** Over-limit requests wait 10 minutes ± 5 minutes. */
export const WEBHOOK_RATE_LIMIT_DELAY_MS = { base: 10 * 60_000, jitter: 5 * 60_000 } as const;
export const WEBHOOK_LOG_RETENTION_MS = 30 * 24 * 60 * 60_000;
/**
 * [kit decision] How long a receiver remembers event ids: longer than the platform keeps its
 * request log (30 days), from which anyone may press "retry now" on an old event, and so longer
 * than the automatic retry schedule (about 3.8 days) too. A retry is always recognised.
 */
export const WEBHOOK_DEDUPE_WINDOW_MS = 31 * 24 * 60 * 60_000;

export const WEBHOOK_EVENT_TYPES = {
  new_candidate: ['email', 'career_site', 'manual', 'imported'],
  candidate_assigned: ['email', 'career_site', 'manual', 'imported'],
  candidate_moved: ['stage_changed', 'disqualified', 'requalified'],
  candidate_deleted: ['manual'],
  offer_published: ['manual'],
  offer_unpublished: ['manual'],
  offer_updated: ['offer_changed', 'status_changed', 'tags_changed'],
} as const;
export type WebhookEventType = keyof typeof WEBHOOK_EVENT_TYPES;
