import { CALLBACK_TIMEOUT_MS } from '../../../contract/decisions.js';
import { defineChecker } from '../plugin.js';
import { ASHBY_CHECKS } from './checks.js';
import { ASHBY_OPTIONS, ASHBY_USAGE, ashbySetupHeading, parseAshbyArgs, whatTheAshbyRunLeaves, type AshbyArgs } from './cli.js';
import { runAshbyConformance } from './run.js';
import { UPDATE_RECEIVER } from './wire.js';

/**
 * Ashby's Assessments Partner API (docs/ashby.md): Ashby calls the partner's three endpoints; the
 * partner's `assessment.update` comes to the checker's receiver, playing Ashby's API, which the
 * partner finds through its own setting (ASHBY_API_URL) and calls with each customer's Ashby API key:
 * the run prints both before it sends anything, and with --wait waits for the partner to be set up.
 */
export const ashbyChecker = defineChecker<AshbyArgs>({
  name: 'ashby',
  label: 'Ashby',
  contract: 'docs/ashby.md',
  calls: `at its three endpoints, each a POST with a JSON body and the customer's key as Authorization: Basic base64("<key>:"), a ${CALLBACK_TIMEOUT_MS / 1000}-second timeout`,
  usage: { synopsis: '<base-url> --key KEY [options]', lines: ASHBY_USAGE },
  source: 'base URL',
  options: ASHBY_OPTIONS,
  receiver: UPDATE_RECEIVER,
  mock: { what: "the checker's Ashby API", settings: ['ASHBY_API_URL', "each customer's Ashby API key"] },
  checks: ASHBY_CHECKS,
  parse: parseAshbyArgs,
  leaves: whatTheAshbyRunLeaves,
  run: (args, io) =>
    runAshbyConformance({
      baseUrl: args.baseUrl,
      key: args.key,
      ...(args.otherKey !== undefined && { otherKey: args.otherKey }),
      apiKeys: args.apiKeys,
      ...(args.results && { results: args.results }),
      updateTimeoutMs: args.updateTimeoutMs,
      receiver: args.receiver,
      ready: (setup) => io.partnerSettings(ashbySetupHeading(setup, args.otherKey !== undefined), { ASHBY_API_URL: setup.apiUrl }),
      ...(io.onResult && { onResult: io.onResult }),
      onNotice: (text) => io.notice(text),
    }),
});
