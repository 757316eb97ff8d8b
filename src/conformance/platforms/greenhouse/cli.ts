import { UsageError } from '../../../lib/cli.js';
import { describeAddress, type ReceiverAddress } from '../../receiver.js';
import { isHttpUrl, resultsEndpoint, stringOption, type ArgsInput, type CheckerOption } from '../plugin.js';
import { DEFAULT_PATCH_TIMEOUT_MS } from './run.js';
import { resultsUrlFromGreenhouse } from './wire.js';

/** `npm run conformance -- --platform greenhouse …`: its options, what a run leaves behind. */

export const GREENHOUSE_USAGE = `  <base-url>                   where its four endpoints are, e.g. http://127.0.0.1:3000/greenhouse:
                               <base>/list_tests, <base>/send_test, <base>/test_status, <base>/response_error.
                               The partner must reach this machine's 127.0.0.1 (or --receiver-host): the PATCH
                               comes to the checker there.
  --key KEY                    a customer's key, of an account with at least one test
                               (or CONFORMANCE_KEYS=<key>[,<other key>])
  --other-key KEY              a second customer's key: checks that it cannot read the first one's interview,
                               and that the first key cannot send a test only the second customer has
  --results-secret SECRET      post the interview's result to the results endpoint, so that the test is complete
                               and the PATCH comes (default --results-url: the base URL without /greenhouse,
                               then /vendor/reports/{report_id}/result)
  --patch-timeout SECONDS      how long to wait for the PATCH once the test is complete (default ${DEFAULT_PATCH_TIMEOUT_MS / 1000});
                               without --results-secret the checker asks you to complete the test by hand`;

export const GREENHOUSE_OPTIONS = {
  key: { type: 'string' },
  'other-key': { type: 'string' },
  'patch-timeout': { type: 'string' },
} as const satisfies Record<string, CheckerOption>;

/** Greenhouse's part of the command line. */
export interface GreenhouseArgs {
  baseUrl: string;
  key: string;
  otherKey?: string;
  patchTimeoutMs: number;
  results?: { secret: string; url: string };
  /** Where the receiver of the PATCH listens: `--receiver-host` (default 127.0.0.1), `--receiver-port` (default 0, a free one). */
  receiver: ReceiverAddress;
}

/** The longest wait for the PATCH: a person completing a test by hand takes minutes, not hours. */
const MAX_PATCH_TIMEOUT_S = 3600;

export function parseGreenhouseArgs({ source, values, env, results, receiver }: ArgsInput): GreenhouseArgs {
  if (source === undefined) throw new UsageError('Give the base URL of the partner\'s Greenhouse endpoints, e.g. http://127.0.0.1:3000/greenhouse');
  if (!/^https?:\/\//i.test(source) || !isHttpUrl(source)) {
    throw new UsageError(`--platform greenhouse takes the base URL of the partner's four endpoints (e.g. http://127.0.0.1:3000/greenhouse), not ${source}`);
  }
  const fromEnv = (env.CONFORMANCE_KEYS ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  const keyOption = stringOption(values, 'key');
  const key = keyOption ?? fromEnv[0];
  const otherKey = stringOption(values, 'other-key') ?? (keyOption === undefined ? fromEnv[1] : undefined);
  if (key === undefined || key.trim() === '') throw new UsageError('Give a customer key (--key KEY, or CONFORMANCE_KEYS=<key>[,<other key>]): an account with at least one test');
  if (otherKey !== undefined && (otherKey.trim() === '' || otherKey === key)) throw new UsageError('--other-key must be the key of another customer');
  if (fromEnv.length > 2) throw new UsageError(`CONFORMANCE_KEYS holds a key and another customer's key at most, not ${fromEnv.length}`);

  let patchTimeoutMs = DEFAULT_PATCH_TIMEOUT_MS;
  const timeout = stringOption(values, 'patch-timeout');
  if (timeout !== undefined) {
    const seconds = Number(timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_PATCH_TIMEOUT_S) {
      throw new UsageError(`--patch-timeout must be a number of seconds above 0, at most ${MAX_PATCH_TIMEOUT_S}, not ${timeout}`);
    }
    patchTimeoutMs = Math.round(seconds * 1000);
  }

  return {
    baseUrl: source,
    key,
    ...(otherKey !== undefined && { otherKey }),
    patchTimeoutMs,
    receiver: receiver ?? {},
    ...(results && { results: resultsEndpoint(results, resultsUrlFromGreenhouse(source)) }),
  };
}

/**
 * What a run leaves in the partner, said before anything is sent: the checker acts as Greenhouse,
 * so its sends are real test instances. Kept beside the checks it counts (checks.ts).
 */
export function whatTheGreenhouseRunLeaves(args: GreenhouseArgs): string {
  const partner = new URL(args.baseUrl).origin;
  const lines = [
    `Before it runs: this run acts as Greenhouse, so it creates real test instances in the partner at ${partner}, and so in your product behind it:`,
    `  • 2 tests sent with the first key, to hpotter@example.com and hgranger@example.com, their urls on a receiver the checker runs on ${describeAddress(args.receiver)} for the run; ` +
      `up to ${args.otherKey === undefined ? 10 : 11} more if the partner takes the sends it should refuse (unknown tests${args.otherKey === undefined ? '' : ", the other customer's test"}, no e-mail, urls not allowed, wrong authentication). ` +
      'The candidates are fake: example.com is reserved and takes no mail.',
    '  • 1 response_error report, which a kit partner shows on its dashboard.',
    args.results
      ? '  • With the results secret: the first test gets the result completed, "87%", and the partner sends its PATCH to the receiver.'
      : `  • Without the results secret, you complete the first test by hand when asked; the checker waits up to ${args.patchTimeoutMs / 1000} s for the PATCH.`,
    '  To clean up a kit partner: its dashboard (/admin) shows each invitation, with Cancel invitation. ' +
      'Your product keeps what its startInvitation created for these candidates: remove it there.',
  ];
  return lines.join('\n');
}
