import { CALLBACK_TIMEOUT_MS } from '../../../contract/decisions.js';
import { RESULTS_CHECKS } from '../../results-checks.js';
import { defineChecker } from '../plugin.js';
import { ANSWER_CHECKS, CALLBACK_CHECKS } from './callback-checks.js';
import { HIRING_PLATFORM_OPTIONS, HIRING_PLATFORM_USAGE, parseHiringPlatformArgs, type HiringPlatformArgs } from './cli.js';
import { PLATFORM_CHECKS } from './mock.js';
import { runConformance } from './run.js';
import { whatTheRunLeaves } from './side-effects.js';

/**
 * The recruiting platform (docs/platform-contract.md), the default of `--platform`: it calls the
 * partner's three callbacks; with `--mock` the bundled mock platform runs for the run, and the
 * report updates the partner sends it are checked too.
 */
export const hiringPlatformChecker = defineChecker<HiringPlatformArgs>({
  name: 'hiring-platform',
  label: 'the recruiting platform',
  contract: 'docs/platform-contract.md',
  calls: `at its three callbacks, with the customer's token as Authorization: Bearer, JSON bodies, a ${CALLBACK_TIMEOUT_MS / 1000}-second timeout`,
  usage: { synopsis: '<callback-base-url | manifest.json> [options]', lines: HIRING_PLATFORM_USAGE },
  source: 'callback base URL or manifest',
  options: HIRING_PLATFORM_OPTIONS,
  mock: { what: 'the bundled mock platform', option: 'mock', settings: ['PLATFORM_URL', 'PARTNER_CODENAME', 'PARTNER_SECRET'] },
  checks: [...CALLBACK_CHECKS, ...RESULTS_CHECKS, ...PLATFORM_CHECKS, ...ANSWER_CHECKS],
  parse: parseHiringPlatformArgs,
  leaves: whatTheRunLeaves,
  run: (args, io) =>
    runConformance({
      targets: args.targets,
      tokens: args.tokens,
      kind: args.kind,
      ...(args.mock && {
        mock: {
          ...args.mock,
          ready: (settings) => io.partnerSettings(`Mock platform running at ${settings.PLATFORM_URL}; the partner under test sends its report updates there:`, { ...settings }),
        },
      }),
      ...(args.results && { results: args.results }),
      ...(io.onResult && { onResult: io.onResult }),
    }),
});
