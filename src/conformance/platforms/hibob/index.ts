import { defineChecker } from '../plugin.js';
import { HIBOB_CHECKS } from './checks.js';
import { HIBOB_OPTIONS, HIBOB_USAGE, hibobSettings, hibobSetupHeading, parseHibobArgs, whatTheHibobRunLeaves, type HibobArgs } from './cli.js';
import { runHibobConformance } from './run.js';
import { BOB_RECEIVER, LISTENER_TIMEOUT_MS } from './wire.js';

/**
 * HiBob's Hiring Assessments API (docs/hibob.md), the platform that pushes its orders: the checker
 * plays Bob — it installs two companies through the partner's OAuth callback and sends signed
 * events to its listener, and its receiver is Bob's token URL and API, which the partner finds
 * through its own settings (HIBOB_API_URL, HIBOB_TOKEN_URL) and calls with each company's tokens.
 * The run prints those settings and the app's credentials before it sends anything, and with --wait
 * waits for the partner to be set up.
 */
export const hibobChecker = defineChecker<HibobArgs>({
  name: 'hibob',
  label: 'HiBob',
  contract: 'docs/hibob.md',
  calls:
    'at its OAuth callback with an install\'s one-time code (GET, as Bob sends the browser) and at its webhook listener with signed events ' +
    `(POST, Bob-Signature: Base64 of the HMAC-SHA512 of the body), a ${LISTENER_TIMEOUT_MS / 1000}-second timeout; the partner calls the checker's Bob back with each company's OAuth tokens`,
  usage: { synopsis: '<base-url> [--company ID] [options]', lines: HIBOB_USAGE },
  source: 'base URL',
  options: HIBOB_OPTIONS,
  receiver: BOB_RECEIVER,
  mock: {
    what: "the checker's Bob (its token URL and API)",
    settings: ['HIBOB_API_URL', 'HIBOB_TOKEN_URL', 'HIBOB_CLIENT_ID', 'HIBOB_CLIENT_SECRET', 'HIBOB_WEBHOOK_SECRET'],
  },
  checks: HIBOB_CHECKS,
  parse: parseHibobArgs,
  leaves: whatTheHibobRunLeaves,
  run: (args, io) =>
    runHibobConformance({
      baseUrl: args.baseUrl,
      companies: args.companies,
      app: args.app,
      ...(args.results && { results: args.results }),
      callTimeoutMs: args.callTimeoutMs,
      receiver: args.receiver,
      ready: (setup) => io.partnerSettings(hibobSetupHeading(setup), hibobSettings(setup)),
      ...(io.onResult && { onResult: io.onResult }),
    }),
});
