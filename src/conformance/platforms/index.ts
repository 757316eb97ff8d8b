import { ashbyChecker } from './ashby/index.js';
import { greenhouseChecker } from './greenhouse/index.js';
import { hibobChecker } from './hibob/index.js';
import { hiringPlatformChecker } from './hiring-platform/index.js';
import type { CheckerPlugin } from './plugin.js';

/**
 * The platforms `npm run conformance` checks a partner against, one line each: a platform's
 * checker is its folder here and its line below (docs/conformance.md, "Adding a platform"). The
 * first is the default of `--platform`.
 */
export const CHECKERS: readonly CheckerPlugin[] = [
  hiringPlatformChecker,
  greenhouseChecker,
  ashbyChecker,
  hibobChecker,
];
