import { CALLBACK_TIMEOUT_MS } from '../../../contract/decisions.js';
import { defineChecker } from '../plugin.js';
import { GREENHOUSE_CHECKS } from './checks.js';
import { GREENHOUSE_OPTIONS, GREENHOUSE_USAGE, parseGreenhouseArgs, whatTheGreenhouseRunLeaves, type GreenhouseArgs } from './cli.js';
import { runGreenhouseConformance } from './run.js';
import { PATCH_RECEIVER } from './wire.js';

/**
 * Greenhouse's assessment partner API (docs/greenhouse.md): Greenhouse calls the partner's four
 * endpoints; the partner's PATCH, once a test is complete, comes to the checker's receiver, where
 * the `url` of each send points.
 */
export const greenhouseChecker = defineChecker<GreenhouseArgs>({
  name: 'greenhouse',
  label: 'Greenhouse',
  contract: 'docs/greenhouse.md',
  calls: `at its four endpoints, with the customer's key as Authorization: Basic base64("<key>:"), JSON bodies, a ${CALLBACK_TIMEOUT_MS / 1000}-second timeout`,
  usage: { synopsis: '<base-url> --key KEY [options]', lines: GREENHOUSE_USAGE },
  source: 'base URL',
  options: GREENHOUSE_OPTIONS,
  receiver: PATCH_RECEIVER,
  checks: GREENHOUSE_CHECKS,
  parse: parseGreenhouseArgs,
  leaves: whatTheGreenhouseRunLeaves,
  run: (args, io) =>
    runGreenhouseConformance({
      baseUrl: args.baseUrl,
      key: args.key,
      ...(args.otherKey !== undefined && { otherKey: args.otherKey }),
      ...(args.results && { results: args.results }),
      patchTimeoutMs: args.patchTimeoutMs,
      receiver: args.receiver,
      ...(io.onResult && { onResult: io.onResult }),
      onNotice: (text) => io.notice(text),
    }),
});
