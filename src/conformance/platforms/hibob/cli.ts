import { UsageError } from '../../../lib/cli.js';
import { describeAddress, type ReceiverAddress } from '../../receiver.js';
import { isHttpUrl, resultsEndpoint, stringOption, type ArgsInput, type CheckerOption } from '../plugin.js';
import { DEFAULT_CALL_TIMEOUT_MS, type HibobSetup } from './run.js';
import { ADA, ALAN, BARBARA, COMPANY_ID, GRACE, KATHERINE, MARGARET, resultsUrlFromHibob } from './wire.js';

/** `npm run conformance -- --platform hibob …`: its options, what the partner must be set up with, what a run leaves behind. */

export const HIBOB_USAGE = `  <base-url>                   the partner's HiBob base, e.g. http://127.0.0.1:3000/hibob: <base>/oauth/callback (where Bob
                               sends the browser after an install) and <base>/webhooks (its listener). The partner must
                               reach this machine's 127.0.0.1 (or --receiver-host): Bob's token URL and API are the checker
  --company ID                 the Bob company whose orders the run makes (default: one made up): its account must have
                               tests, which its catalog registers (a kit partner: link the company to such an account first)
  --other-company ID           the second Bob company, which must not touch the first one's orders (default: one made up)
  --client-id ID               the partner's HIBOB_CLIENT_ID (default: one made up for the run, printed)
  --client-secret SECRET       the partner's HIBOB_CLIENT_SECRET (or CONFORMANCE_HIBOB_CLIENT_SECRET; default: made up,
                               printed; one given is never printed)
  --webhook-secret SECRET      the partner's HIBOB_WEBHOOK_SECRET, which the run signs with (or
                               CONFORMANCE_HIBOB_WEBHOOK_SECRET; default: made up, printed; one given is never printed)
  --results-secret SECRET      post the orders' results to the results endpoint, so that the PATCHes come (default
                               --results-url: the base URL without /hibob, then /vendor/reports/{report_id}/result);
                               without it the update checks are not run
  --call-timeout SECONDS       how long to wait for each call the partner makes to Bob (default ${DEFAULT_CALL_TIMEOUT_MS / 1000})`;

export const HIBOB_OPTIONS = {
  company: { type: 'string' },
  'other-company': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'webhook-secret': { type: 'string' },
  'call-timeout': { type: 'string' },
} as const satisfies Record<string, CheckerOption>;

/** HiBob's part of the command line. */
export interface HibobArgs {
  baseUrl: string;
  companies: { a?: string; b?: string };
  /** The app's credentials and webhook secret given; the run makes up the others. */
  app: { clientId?: string; clientSecret?: string; webhookSecret?: string };
  callTimeoutMs: number;
  results?: { secret: string; url: string };
  /** Where the receiver playing Bob listens: `--receiver-host` (default 127.0.0.1), `--receiver-port` (default 0, a free one). */
  receiver: ReceiverAddress;
}

/** The longest wait for one call: a partner's retry after a refused token may take its backoff, not hours. */
const MAX_CALL_TIMEOUT_S = 3600;

export function parseHibobArgs({ source, values, env, results, receiver }: ArgsInput): HibobArgs {
  if (source === undefined) throw new UsageError("Give the partner's HiBob base URL, e.g. http://127.0.0.1:3000/hibob");
  if (!/^https?:\/\//i.test(source) || !isHttpUrl(source)) {
    throw new UsageError(`--platform hibob takes the partner's HiBob base URL (e.g. http://127.0.0.1:3000/hibob), not ${source}`);
  }
  const a = stringOption(values, 'company');
  const b = stringOption(values, 'other-company');
  for (const [flag, value] of [['--company', a], ['--other-company', b]] as const) {
    if (value !== undefined && !COMPANY_ID.test(value)) throw new UsageError(`${flag} must be a Bob company id: letters, digits and . _ : -, at most 100, not ${JSON.stringify(value)}`);
  }
  if (a !== undefined && a === b) throw new UsageError('--other-company must be another Bob company than --company');

  const clientId = stringOption(values, 'client-id');
  const clientSecret = stringOption(values, 'client-secret') ?? (env.CONFORMANCE_HIBOB_CLIENT_SECRET || undefined);
  const webhookSecret = stringOption(values, 'webhook-secret') ?? (env.CONFORMANCE_HIBOB_WEBHOOK_SECRET || undefined);
  for (const [flag, value] of [['--client-id', clientId], ['--client-secret', clientSecret], ['--webhook-secret', webhookSecret]] as const) {
    // Kept as set, surrounding spaces aside, as a kit partner reads its settings.
    if (value !== undefined && value.trim() === '') throw new UsageError(`${flag} is empty`);
  }

  let callTimeoutMs = DEFAULT_CALL_TIMEOUT_MS;
  const timeout = stringOption(values, 'call-timeout');
  if (timeout !== undefined) {
    const seconds = Number(timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_CALL_TIMEOUT_S) {
      throw new UsageError(`--call-timeout must be a number of seconds above 0, at most ${MAX_CALL_TIMEOUT_S}, not ${timeout}`);
    }
    callTimeoutMs = Math.round(seconds * 1000);
  }

  return {
    baseUrl: source,
    companies: { ...(a !== undefined && { a }), ...(b !== undefined && { b }) },
    app: {
      ...(clientId !== undefined && { clientId: clientId.trim() }),
      ...(clientSecret !== undefined && { clientSecret: clientSecret.trim() }),
      ...(webhookSecret !== undefined && { webhookSecret: webhookSecret.trim() }),
    },
    callTimeoutMs,
    receiver: receiver ?? {},
    ...(results && { results: resultsEndpoint(results, resultsUrlFromHibob(source)) }),
  };
}

/**
 * What the partner under test must be set up with, said as the receiver listens: the settings the
 * command prints after this heading (its HIBOB_* settings — a made-up secret shown, a given one
 * never), and the two companies the run installs.
 */
export function hibobSetupHeading(setup: HibobSetup): string {
  const given = [setup.madeUp.clientSecret ? [] : ['HIBOB_CLIENT_SECRET'], setup.madeUp.webhookSecret ? [] : ['HIBOB_WEBHOOK_SECRET']].flat();
  return [
    `The checker plays Bob for the run: its token URL and API are at ${setup.apiUrl.replace(/\/v1$/, '')}, and it installs the Bob companies A = ${setup.companies.a} and B = ${setup.companies.b}.`,
    `Company A's orders are of its catalog: a kit partner connects each company to the account linked to it beforehand, else to a new account without tests, so link company A to an account with tests first (docs/hibob.md §2).`,
    `The partner runs with${given.length > 0 ? ` ${given.join(' and ')} as given (not printed), and` : ''}:`,
  ].join('\n');
}

/** The settings the command prints for the partner: the receiver's URLs, the client id, and each secret the run made up. */
export function hibobSettings(setup: HibobSetup): Record<string, string> {
  return {
    HIBOB_API_URL: setup.apiUrl,
    HIBOB_TOKEN_URL: setup.tokenUrl,
    HIBOB_CLIENT_ID: setup.clientId,
    ...(setup.madeUp.clientSecret && { HIBOB_CLIENT_SECRET: setup.clientSecret }),
    ...(setup.madeUp.webhookSecret && { HIBOB_WEBHOOK_SECRET: setup.webhookSecret }),
  };
}

/**
 * What a run leaves in the partner, said before anything is sent: the checker acts as Bob, so its
 * installs and orders are real. Kept beside the checks it counts (checks.ts).
 */
export function whatTheHibobRunLeaves(args: HibobArgs): string {
  const partner = new URL(args.baseUrl).origin;
  const company = (id: string | undefined) => (id === undefined ? 'made up for the run' : id);
  const completed = args.results ? `, which get the result completed, "87%"` : '';
  const lines = [
    `Before it runs: this run acts as Bob, so it installs two Bob companies in the partner at ${partner} and orders assessments there, and so in your product behind it:`,
    `  • The installs of company A (${company(args.companies.a)}), three times (the install, its page reloaded, an install again), and of company B (${company(args.companies.b)}). ` +
      'A kit partner connects each to the account linked to it beforehand, else to a new account named after it; each registers its catalog with the checker\'s Bob.',
    `  • 6 of company A's orders, each an invitation: ${ADA.email}'s and ${BARBARA.email}'s${completed}; ${GRACE.email}'s, canceled in Bob; ` +
      `${ALAN.email}'s, ${KATHERINE.email}'s and ${MARGARET.email}'s, left open. One more if the partner acts on company B's event naming an order of company A's. ` +
      'The candidates are fake: example.com is reserved and takes no mail.',
    `  • Bob's token URL and API are a receiver the checker runs on ${describeAddress(args.receiver)} for the run: the partner's HIBOB_API_URL and HIBOB_TOKEN_URL must name it, ` +
      'and its HIBOB_CLIENT_ID, HIBOB_CLIENT_SECRET and HIBOB_WEBHOOK_SECRET be the run\'s. The tokens the partner keeps for the two companies are good for nothing after it.',
    '  To clean up a kit partner: its dashboard (/admin) shows each invitation, with Cancel invitation. ' +
      'Your product keeps what its startInvitation created for these candidates: remove it there.',
  ];
  return lines.join('\n');
}
