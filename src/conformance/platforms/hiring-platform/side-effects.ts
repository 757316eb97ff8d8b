import type { Targets } from './types.js';

/**
 * What a run leaves in the partner under test, said before anything is sent: the checker acts as
 * the platform, so its sends are real invitations there, and in the vendor's product behind it.
 * Kept beside the checks it counts (callback-checks.ts, mock.ts, ../../results-checks.ts): a check
 * that creates something more says so here.
 */

/** The sends that create an invitation in a partner that follows the contract. */
const CALLBACK_SENDS = [
  { check: 'send_candidate.create', email: 'ada@example.com', token: 'A' },
  { check: 'send_candidate.concurrent', email: 'edsger@example.com', token: 'B' },
] as const;
/** Sends a partner following the contract refuses (415, 413), but a lenient one turns into invitations. */
const LENIENT_SENDS = ['robust.send_candidate.content_type', 'robust.send_candidate.oversize'] as const;
/** The mock marketplace's sends with --mock: its own reports, for its seeded candidates. */
const PLATFORM_SENDS = [
  { check: 'platform.send', email: 'grace@example.com', end: 'canceled by the platform during the run' },
  { check: 'platform.concurrent', email: 'alan@example.com', end: 'left open' },
] as const;

export function whatTheRunLeaves(args: { targets: Targets; mock?: unknown; results?: unknown }): string {
  const partner = new URL(args.targets.sendCandidate).origin;
  const least = CALLBACK_SENDS.length + (args.mock ? PLATFORM_SENDS.length : 0);
  const lines = [
    `Before it runs: this run acts as the platform, so it creates real invitations in the partner at ${partner}, and so in your product behind it:`,
    `  • ${least} invitations (up to ${least + LENIENT_SENDS.length} if the partner takes the text/plain and 1 MB sends it should refuse): ` +
      CALLBACK_SENDS.map((s) => `${s.email} (token ${s.token})`).join(', ') +
      (args.mock ? `, and through the mock's marketplace ${PLATFORM_SENDS.map((s) => `${s.email} (${s.end})`).join(', ')}` : '') +
      '. The candidates are fake: example.com is reserved and takes no mail.',
    args.mock
      ? "  • The checker records the reports of its own sends on the mock before it sends them, as the platform does: the mock accepts every report update, " +
        'and a kit partner e-mails all these candidates.'
      : "  • The reports of the checker's own sends are unknown to any platform: where the partner delivers their report updates, the platform answers 404, " +
        "they end as dead letters on the partner's dashboard, and a kit partner cancels those invitations and e-mails no one.",
  ];
  if (args.results) {
    lines.push(
      `  • With the results secret: ${CALLBACK_SENDS[0].email}'s report gets the result completed, "87%"${args.mock ? '' : ' (unless the partner canceled it first)'}, one more report update; ` +
        `${CALLBACK_SENDS[1].email}'s gets the progress stage "opened".`,
    );
  }
  lines.push(
    '  To clean up a kit partner: its dashboard (/admin) shows each invitation, with Cancel invitation, and each dead letter, with Cancel retries. ' +
      'Your product keeps what its startInvitation created for these candidates: remove it there.',
  );
  return lines.join('\n');
}
