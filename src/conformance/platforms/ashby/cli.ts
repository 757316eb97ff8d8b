import { UsageError } from '../../../lib/cli.js';
import { describeAddress, type ReceiverAddress } from '../../receiver.js';
import { isHttpUrl, resultsEndpoint, stringOption, type ArgsInput, type CheckerOption } from '../plugin.js';
import { DEFAULT_UPDATE_TIMEOUT_MS, type AshbySetup } from './run.js';
import { ADA, EDSGER, GRACE, resultsUrlFromAshby } from './wire.js';

/** `npm run conformance -- --platform ashby …`: its options, what the partner must be set up with, what a run leaves behind. */

export const ASHBY_USAGE = `  <base-url>                   where its three endpoints are, e.g. http://127.0.0.1:3000/ashby: <base>/assessment.list,
                               <base>/assessment.start, <base>/assessment.cancel. The partner must reach this machine's
                               127.0.0.1 (or --receiver-host): its assessment.update comes to the checker there
  --key KEY                    a customer's key, of an account with at least one test
                               (or CONFORMANCE_KEYS=<key>[,<other key>])
  --other-key KEY              a second customer's key, of an account with a test the first has not: checks that it can
                               neither start the first one's assessment type nor cancel its assessment
  --ashby-api-key KEY          the first customer's Ashby API key as the partner has it, which its assessment.update must
                               carry (default: one made up for the run, printed, for you to set in the partner)
  --other-ashby-api-key KEY    the same, of the second customer (or CONFORMANCE_ASHBY_API_KEYS=<key>[,<other key>])
  --results-secret SECRET      post the candidate's progress and the result to the results endpoint, so that the updates
                               come (default --results-url: the base URL without /ashby, then /vendor/reports/{report_id}/result)
  --update-timeout SECONDS     how long to wait for each assessment.update (default ${DEFAULT_UPDATE_TIMEOUT_MS / 1000}); without --results-secret
                               the checker asks you to complete the assessment by hand`;

export const ASHBY_OPTIONS = {
  key: { type: 'string' },
  'other-key': { type: 'string' },
  'ashby-api-key': { type: 'string' },
  'other-ashby-api-key': { type: 'string' },
  'update-timeout': { type: 'string' },
} as const satisfies Record<string, CheckerOption>;

/** Ashby's part of the command line. */
export interface AshbyArgs {
  baseUrl: string;
  key: string;
  otherKey?: string;
  /** The customers' Ashby API keys given; the run makes up the others. */
  apiKeys: { key?: string; otherKey?: string };
  updateTimeoutMs: number;
  results?: { secret: string; url: string };
  /** Where the receiver playing Ashby's API listens: `--receiver-host` (default 127.0.0.1), `--receiver-port` (default 0, a free one). */
  receiver: ReceiverAddress;
}

/** The longest wait for an update: a person completing an assessment by hand takes minutes, not hours. */
const MAX_UPDATE_TIMEOUT_S = 3600;

/** A comma-separated list of at most two keys from the environment. */
function keysFromEnv(env: ArgsInput['env'], name: string): string[] {
  const keys = (env[name] ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  if (keys.length > 2) throw new UsageError(`${name} holds a key and another customer's key at most, not ${keys.length}`);
  return keys;
}

export function parseAshbyArgs({ source, values, env, results, receiver }: ArgsInput): AshbyArgs {
  if (source === undefined) throw new UsageError("Give the base URL of the partner's Ashby endpoints, e.g. http://127.0.0.1:3000/ashby");
  if (!/^https?:\/\//i.test(source) || !isHttpUrl(source)) {
    throw new UsageError(`--platform ashby takes the base URL of the partner's three endpoints (e.g. http://127.0.0.1:3000/ashby), not ${source}`);
  }
  const fromEnv = keysFromEnv(env, 'CONFORMANCE_KEYS');
  const keyOption = stringOption(values, 'key');
  const key = keyOption ?? fromEnv[0];
  const otherKey = stringOption(values, 'other-key') ?? (keyOption === undefined ? fromEnv[1] : undefined);
  if (key === undefined || key.trim() === '') throw new UsageError('Give a customer key (--key KEY, or CONFORMANCE_KEYS=<key>[,<other key>]): an account with at least one test');
  if (otherKey !== undefined && (otherKey.trim() === '' || otherKey === key)) throw new UsageError('--other-key must be the key of another customer');

  const apiFromEnv = keysFromEnv(env, 'CONFORMANCE_ASHBY_API_KEYS');
  const apiKeyOption = stringOption(values, 'ashby-api-key');
  const apiKey = apiKeyOption ?? apiFromEnv[0];
  const otherApiKey = stringOption(values, 'other-ashby-api-key') ?? (apiKeyOption === undefined ? apiFromEnv[1] : undefined);
  for (const [flag, value] of [['--ashby-api-key', apiKey], ['--other-ashby-api-key', otherApiKey]] as const) {
    // Sent as the Basic user name, which may hold no colon (RFC 7617).
    if (value !== undefined && (value.trim() === '' || value.includes(':') || /\s/.test(value))) throw new UsageError(`${flag} must be an Ashby API key: no spaces, no colon`);
  }
  if (apiKey !== undefined && apiKey === otherApiKey) throw new UsageError("--other-ashby-api-key must be another customer's Ashby API key");

  let updateTimeoutMs = DEFAULT_UPDATE_TIMEOUT_MS;
  const timeout = stringOption(values, 'update-timeout');
  if (timeout !== undefined) {
    const seconds = Number(timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_UPDATE_TIMEOUT_S) {
      throw new UsageError(`--update-timeout must be a number of seconds above 0, at most ${MAX_UPDATE_TIMEOUT_S}, not ${timeout}`);
    }
    updateTimeoutMs = Math.round(seconds * 1000);
  }

  return {
    baseUrl: source,
    key,
    ...(otherKey !== undefined && { otherKey }),
    apiKeys: { ...(apiKey !== undefined && { key: apiKey }), ...(otherApiKey !== undefined && { otherKey: otherApiKey }) },
    updateTimeoutMs,
    receiver: receiver ?? {},
    ...(results && { results: resultsEndpoint(results, resultsUrlFromAshby(source)) }),
  };
}

/**
 * What the partner under test must be set up with, said as the receiver listens: its ASHBY_API_URL
 * (the line the command prints after this heading) and each customer's Ashby API key — a made-up
 * one shown, for the person to set; one given (`--ashby-api-key`) never printed.
 */
export function ashbySetupHeading(setup: AshbySetup, withOtherKey: boolean): string {
  const keyOf = (made: boolean, key: string, flag: string) => (made ? key : `the one given with ${flag}`);
  const keys = [`of the customer of --key to ${keyOf(setup.madeUp.key, setup.apiKeys.key, '--ashby-api-key')}`];
  if (withOtherKey) keys.push(`of the customer of --other-key to ${keyOf(setup.madeUp.otherKey, setup.apiKeys.otherKey, '--other-ashby-api-key')}`);
  return [
    `The checker plays Ashby's API at ${setup.apiUrl} for the run: the partner under test posts assessment.update there, with each customer's Ashby API key.`,
    `Set the Ashby API key ${keys.join(', and ')} (a kit partner: npm run accounts -- credential set <account-id> ashby <key>); the partner runs with:`,
  ].join('\n');
}

/**
 * What a run leaves in the partner, said before anything is sent: the checker acts as Ashby, so its
 * starts are real assessments. Kept beside the checks it counts (checks.ts).
 */
export function whatTheAshbyRunLeaves(args: AshbyArgs): string {
  const partner = new URL(args.baseUrl).origin;
  const other = args.otherKey !== undefined;
  const lines = [
    `Before it runs: this run acts as Ashby, so it starts real assessments in the partner at ${partner}, and so in your product behind it:`,
    `  • With the first key: ${ADA.email}'s, ${args.results ? 'which gets the progress "started" and the result completed, "87%"' : 'which you complete by hand when asked'}; ` +
      `${GRACE.email}'s, started by 5 identical starts at once and canceled during the run.` +
      (other ? ` With the other key: ${EDSGER.email}'s, canceled during the run.` : '') +
      ` Up to ${other ? 15 : 12} more if the partner takes starts it should refuse (wrong authentication, an unknown type, repeats${other ? ", the other customer's type" : ''}). ` +
      'The candidates are fake: example.com is reserved and takes no mail.',
    `  • The partner's assessment.update requests go to a receiver the checker runs on ${describeAddress(args.receiver)} for the run, playing Ashby's API: ` +
      "the partner's ASHBY_API_URL must name it, and each customer's Ashby API key must be the one the run prints (or --ashby-api-key gives). " +
      'A key set for the run stays set: use accounts made for the check, or set the real key again after it.',
    '  To clean up a kit partner: its dashboard (/admin) shows each invitation, with Cancel invitation. ' +
      'Your product keeps what its startInvitation created for these candidates: remove it there.',
  ];
  return lines.join('\n');
}
