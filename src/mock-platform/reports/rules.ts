import { z } from 'zod';
import { REPORT_SCORE_MAX_LENGTH, TERMINAL_REPORT_STATUSES, type PartnerKind } from '../../contract/decisions.js';
import { ReportUpdate } from '../../contract/schemas.js';
import { unprocessable } from '../../lib/errors.js';
import type { ReportFields, StoredReport } from './store.js';

/**
 * [kit decision] The longest score the platform stores. The contract (§3.2) asks partners to keep a
 * score to REPORT_SCORE_MAX_LENGTH characters because longer text "is not shown in full in the
 * badge" — it is accepted, stored whole and shown cut (see `badgeScore`). Only text beyond this
 * sane bound is refused.
 */
export const STORED_SCORE_MAX_LENGTH = 100;

/** What the reports API accepts: the contract's update, with a score up to the stored maximum. */
export const AcceptedReportUpdate = ReportUpdate.extend({
  score: z
    .string()
    .max(STORED_SCORE_MAX_LENGTH, `must be at most ${STORED_SCORE_MAX_LENGTH} characters`)
    .nullable()
    .optional(),
});

/**
 * A score as the candidate's badge shows it: up to REPORT_SCORE_MAX_LENGTH characters as they are;
 * longer ones cut to that many plus "…", with the whole text for a tooltip (`title`).
 */
export function badgeScore(score: string): { text: string; title: string | null } {
  const chars = [...score];
  if (chars.length <= REPORT_SCORE_MAX_LENGTH) return { text: score, title: null };
  return { text: `${chars.slice(0, REPORT_SCORE_MAX_LENGTH).join('')}…`, title: score };
}

/**
 * The contract's `urls` names `cancel` and `show` and lets other keys through; the platform still
 * needs every value to be a link it can show or call, under a plain key.
 */
const ReportUrlEntry = z.tuple([
  z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a lowercase key'),
  z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }),
]);

/**
 * Applies a partner's report update (§3.2, §5) to the stored report: absent fields stay as they
 * are, `urls` merges key by key. Throws a 422 naming each refused field:
 * - a terminal status (completed, failed, canceled) never moves back to `sent`;
 * - `subtitle` and `properties` come from assessment partners only.
 */
export function applyReportUpdate(report: StoredReport, partnerKind: PartnerKind, update: ReportUpdate): ReportFields {
  const errors: Record<string, string[]> = {};
  const refuse = (field: string, message: string) => (errors[field] ??= []).push(message);

  if (update.status === 'sent' && TERMINAL_REPORT_STATUSES.includes(report.status)) {
    refuse('status', `cannot move from ${report.status} back to sent`);
  }
  if (partnerKind !== 'assessment') {
    if (update.subtitle !== undefined) refuse('subtitle', 'is accepted from assessment partners only');
    if (update.properties !== undefined) refuse('properties', 'is accepted from assessment partners only');
  }
  const urls: Record<string, string> = {};
  for (const entry of Object.entries(update.urls ?? {})) {
    const parsed = ReportUrlEntry.safeParse(entry);
    if (parsed.success) urls[parsed.data[0]] = parsed.data[1];
    else for (const issue of parsed.error.issues) refuse(`urls.${entry[0]}`, issue.message);
  }

  const fields = Object.keys(errors);
  if (fields.length > 0) {
    throw unprocessable(fields.map((f) => `${f} ${errors[f]![0]}`).join('; '), errors);
  }
  return {
    status: update.status ?? report.status,
    score: update.score !== undefined ? update.score : report.score,
    completedAt: update.completed_at !== undefined ? update.completed_at : report.completedAt,
    subtitle: update.subtitle !== undefined ? update.subtitle : report.subtitle,
    properties: update.properties ?? report.properties,
    urls: { ...report.urls, ...urls },
  };
}
