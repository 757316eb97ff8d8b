import { isIP } from 'node:net';
import { z } from 'zod';
import { UsageError } from '../../lib/cli.js';
import { DEFAULT_PATCH_TIMEOUT_MS } from './run.js';
import { resultsUrlFromGreenhouse } from './wire.js';

/** `npm run conformance -- --platform greenhouse …`: its options, what a run leaves behind. */

export const GREENHOUSE_USAGE = `Greenhouse (--platform greenhouse, docs/greenhouse.md):
  <base-url>                   where its four endpoints are, e.g. http://127.0.0.1:3000/greenhouse:
                               <base>/list_tests, <base>/send_test, <base>/test_status, <base>/response_error.
                               The partner must reach this machine's 127.0.0.1 (or --receiver-host): the PATCH
                               comes to the checker there.
  --key KEY                    a customer's key, of an account with at least one test
                               (or CONFORMANCE_KEYS=<key>[,<other key>])
  --other-key KEY              a second customer's key: checks that it cannot read the first one's interview,
                               and that the first key cannot send a test only the second customer has
  --patch-timeout SECONDS      how long to wait for the PATCH once the test is complete (default ${DEFAULT_PATCH_TIMEOUT_MS / 1000});
                               without --results-secret the checker asks you to complete the test by hand
  --receiver-port PORT         the port the checker listens on for the PATCH (default: a free one), where
                               only some ports may be opened
  --receiver-host ADDRESS      the address it listens on, which the url of each send names (default
                               127.0.0.1): an IP address of this machine that the partner reaches`;

/** Greenhouse's part of the command line. */
export interface GreenhouseArgs {
  baseUrl: string;
  key: string;
  otherKey?: string;
  patchTimeoutMs: number;
  results?: { secret: string; url: string };
  /** Where the receiver of the PATCH listens: `--receiver-host` (default 127.0.0.1), `--receiver-port` (default 0, a free one). */
  receiver: { host: string; port: number };
}

const httpUrl = z.url({ protocol: /^https?$/ });
/** The longest wait for the PATCH: a person completing a test by hand takes minutes, not hours. */
const MAX_PATCH_TIMEOUT_S = 3600;

export function parseGreenhouseArgs(
  source: string | undefined,
  values: { key?: string; 'other-key'?: string; 'patch-timeout'?: string; 'receiver-port'?: string; 'receiver-host'?: string },
  results: { secret: string; url?: string } | undefined,
  env: Record<string, string | undefined>,
): GreenhouseArgs {
  if (source === undefined) throw new UsageError('Give the base URL of the partner\'s Greenhouse endpoints, e.g. http://127.0.0.1:3000/greenhouse');
  if (!/^https?:\/\//i.test(source) || !httpUrl.safeParse(source).success) {
    throw new UsageError(`--platform greenhouse takes the base URL of the partner's four endpoints (e.g. http://127.0.0.1:3000/greenhouse), not ${source}`);
  }
  const fromEnv = (env.CONFORMANCE_KEYS ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  const key = values.key ?? fromEnv[0];
  const otherKey = values['other-key'] ?? (values.key === undefined ? fromEnv[1] : undefined);
  if (key === undefined || key.trim() === '') throw new UsageError('Give a customer key (--key KEY, or CONFORMANCE_KEYS=<key>[,<other key>]): an account with at least one test');
  if (otherKey !== undefined && (otherKey.trim() === '' || otherKey === key)) throw new UsageError('--other-key must be the key of another customer');
  if (fromEnv.length > 2) throw new UsageError(`CONFORMANCE_KEYS holds a key and another customer's key at most, not ${fromEnv.length}`);

  let patchTimeoutMs = DEFAULT_PATCH_TIMEOUT_MS;
  if (values['patch-timeout'] !== undefined) {
    const seconds = Number(values['patch-timeout']);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_PATCH_TIMEOUT_S) {
      throw new UsageError(`--patch-timeout must be a number of seconds above 0, at most ${MAX_PATCH_TIMEOUT_S}, not ${values['patch-timeout']}`);
    }
    patchTimeoutMs = Math.round(seconds * 1000);
  }

  return {
    baseUrl: source,
    key,
    ...(otherKey !== undefined && { otherKey }),
    patchTimeoutMs,
    receiver: receiverAddress(values['receiver-host'], values['receiver-port']),
    ...(results && { results: { secret: results.secret, url: results.url ?? resultsUrlFromGreenhouse(source) } }),
  };
}

/** `--receiver-host` and `--receiver-port`: an IP address to listen on (not a wildcard: the url names it) and a port. */
function receiverAddress(host: string | undefined, port: string | undefined): GreenhouseArgs['receiver'] {
  const address = host?.trim().replace(/^\[(.*)\]$/, '$1') ?? '127.0.0.1';
  if (isIP(address) === 0) throw new UsageError(`--receiver-host must be an IP address of this machine (e.g. 127.0.0.1), not ${host}`);
  if (address === '0.0.0.0' || address === '::') {
    throw new UsageError(`--receiver-host must be one address, not ${address}: the url of each send names it, and the partner must reach it`);
  }
  const number = port === undefined ? 0 : /^\d{1,5}$/.test(port.trim()) ? Number(port) : NaN;
  if (!Number.isInteger(number) || number < 0 || number > 65535) throw new UsageError(`--receiver-port must be a port number (1 to 65535), not ${port}`);
  return { host: address, port: number };
}

/**
 * What a run leaves in the partner, said before anything is sent: the checker acts as Greenhouse,
 * so its sends are real test instances. Kept beside the checks it counts (checks.ts).
 */
export function whatTheGreenhouseRunLeaves(args: GreenhouseArgs): string {
  const partner = new URL(args.baseUrl).origin;
  const lines = [
    `Before it runs: this run acts as Greenhouse, so it creates real test instances in the partner at ${partner}, and so in your product behind it:`,
    `  • 2 tests sent with the first key, to hpotter@example.com and hgranger@example.com, their urls on a receiver the checker runs on ${receiverOrigin(args)} for the run; ` +
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

/** `127.0.0.1 (a free port)`, `127.0.0.1:4100`, `[::1]:4100`. */
function receiverOrigin(args: GreenhouseArgs): string {
  const host = isIP(args.receiver.host) === 6 ? `[${args.receiver.host}]` : args.receiver.host;
  return args.receiver.port === 0 ? `${host} (a free port)` : `${host}:${args.receiver.port}`;
}
