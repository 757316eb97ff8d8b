import { existsSync } from 'node:fs';
import { PARTNER_KINDS, type PartnerKind } from '../../../contract/decisions.js';
import { ManifestError, readManifest } from '../../../contract/manifest.js';
import { Codename } from '../../../contract/schemas.js';
import { UsageError } from '../../../lib/cli.js';
import { flagOption, isHttpUrl, resultsEndpoint, stringOption, stringsOption, type ArgsInput, type CheckerOption } from '../plugin.js';
import type { Targets, Tokens } from './types.js';
import { callbackTargets, resultsUrlFromCallbacks } from './wire.js';

/** `npm run conformance -- [--platform hiring-platform] …`: its options and what they mean. */

export const HIRING_PLATFORM_USAGE = `The partner's callbacks, one of:
  <callback-base-url>          e.g. http://127.0.0.1:3000/callbacks: <base>/validate_token, <base>/tests,
                               <base>/send_candidate
  <manifest.json>              a partner manifest (scripts/partner-manifest.json): its urls
  --public-url URL             replaces \${PUBLIC_URL} in the manifest (default: PUBLIC_URL, else http://HOST:PORT)
  --validate-token-url URL, --tests-url URL, --send-candidate-url URL
                               each callback explicitly (over the above)
Customer tokens the partner issued (npm run accounts -- create "<name>" --test "<test>"):
  --token TOKEN                twice: two accounts not bound to a company yet, each with a test
                               (or CONFORMANCE_TOKENS=<a>,<b>). The run binds them to companies 1 and 2.
  --empty-token TOKEN          an unbound account without tests, to check the empty list (bound to company 3)
  --kind KIND                  assessment | background_check | reference_check (default: the manifest's,
                               else assessment): which report fields the partner may send
  --results-secret SECRET      check the results endpoint too (default --results-url: the callbacks' base
                               without /callbacks, then /vendor/reports/{report_id}/result)
  --mock                       also start the bundled mock platform, register the partner there, send
                               candidates through its marketplace and check the report updates the partner
                               sends back. Prints PLATFORM_URL, PARTNER_CODENAME and PARTNER_SECRET: the
                               partner must send its report updates there, with that secret.
  --mock-port PORT             the mock's port (default: a free one)
  --codename NAME              the codename registered on the mock (default: the manifest's, else conformance)`;

export const HIRING_PLATFORM_OPTIONS = {
  'public-url': { type: 'string' },
  'validate-token-url': { type: 'string' },
  'tests-url': { type: 'string' },
  'send-candidate-url': { type: 'string' },
  token: { type: 'string', multiple: true },
  'empty-token': { type: 'string' },
  kind: { type: 'string' },
  mock: { type: 'boolean' },
  'mock-port': { type: 'string' },
  codename: { type: 'string' },
} as const satisfies Record<string, CheckerOption>;

/** What a run against the recruiting platform's contract is given on the command line. */
export interface HiringPlatformArgs {
  targets: Targets;
  tokens: Tokens;
  kind: PartnerKind;
  results?: { secret: string; url: string };
  /** `--mock`: the bundled mock platform, started for the run. */
  mock?: { port: number; codename: string; record: { name?: string; description?: string; helpArticle?: string } };
}

const flagOf = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}-url`;

export function parseHiringPlatformArgs({ source, values, env, publicUrl: defaultPublicUrl, results: given }: ArgsInput): HiringPlatformArgs {
  let fromSource: Partial<Targets> = {};
  let manifest: ReturnType<typeof readManifest> | undefined;
  const publicUrlOption = stringOption(values, 'public-url');
  if (source !== undefined) {
    if (/^https?:\/\//i.test(source)) {
      if (!isHttpUrl(source)) throw new UsageError(`Not a URL: ${source}`);
      fromSource = callbackTargets(source);
    } else {
      if (!existsSync(source)) throw new UsageError(`${source} is neither an http(s) URL nor a manifest file`);
      const publicUrl = publicUrlOption ?? defaultPublicUrl;
      if (!isHttpUrl(publicUrl)) throw new UsageError(`--public-url must be an absolute http(s) URL, not ${publicUrl}`);
      try {
        manifest = readManifest(source, publicUrl);
      } catch (err) {
        if (err instanceof ManifestError) throw new UsageError(`The manifest cannot be used:\n  ${err.problems.join('\n  ')}`);
        throw err;
      }
      const urls = manifest.partner.urls;
      fromSource = { validateToken: urls.validate_token, tests: urls.tests, sendCandidate: urls.send_candidate };
    }
  } else if (publicUrlOption !== undefined) {
    throw new UsageError('--public-url goes with a manifest');
  }

  const targets = {
    validateToken: stringOption(values, 'validate-token-url') ?? fromSource.validateToken,
    tests: stringOption(values, 'tests-url') ?? fromSource.tests,
    sendCandidate: stringOption(values, 'send-candidate-url') ?? fromSource.sendCandidate,
  };
  const missing = Object.entries(targets).filter(([, url]) => url === undefined);
  if (missing.length === 3) throw new UsageError('Give the partner\'s callbacks: a base URL, a manifest, or the three --…-url options');
  if (missing.length > 0) throw new UsageError(`Missing callback URL${missing.length > 1 ? 's' : ''}: ${missing.map(([k]) => flagOf(k)).join(', ')}`);
  for (const [key, url] of Object.entries(targets)) {
    if (!isHttpUrl(url!)) throw new UsageError(`${flagOf(key)} must be an absolute http(s) URL, not ${url}`);
  }

  const tokens = stringsOption(values, 'token') ?? (env.CONFORMANCE_TOKENS ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  if (tokens.length !== 2) {
    throw new UsageError(
      `Give two customer tokens (--token A --token B, or CONFORMANCE_TOKENS=A,B), not ${tokens.length}: accounts not bound to a company, each with a test`,
    );
  }
  if (tokens[0] === tokens[1]) throw new UsageError('The two tokens must be of two different accounts');
  const empty = stringOption(values, 'empty-token');
  if (empty !== undefined && tokens.includes(empty)) throw new UsageError('--empty-token must be a third account, without tests');

  const kind = stringOption(values, 'kind') ?? manifest?.partner.kind ?? 'assessment';
  if (!(PARTNER_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind must be one of ${PARTNER_KINDS.join(', ')}, not ${kind}`);

  const results = given && resultsEndpoint(given, resultsUrlFromCallbacks(targets.sendCandidate!));

  let mock: HiringPlatformArgs['mock'];
  if (flagOption(values, 'mock')) {
    const portOption = stringOption(values, 'mock-port');
    const port = Number(portOption ?? '0');
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--mock-port must be a port number, not ${portOption}`);
    const codename = stringOption(values, 'codename') ?? manifest?.codename ?? 'conformance';
    if (!Codename.safeParse(codename).success) throw new UsageError(`--codename must be 2–64 lowercase letters, digits, "-" or "_", not ${codename}`);
    const partner = manifest?.partner;
    mock = {
      port,
      codename,
      record: {
        ...(partner && { name: partner.name, helpArticle: partner.urls.help_article }),
        ...(partner?.description && { description: partner.description }),
      },
    };
  } else {
    for (const flag of ['mock-port', 'codename'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} goes with --mock`);
    }
  }

  return {
    targets: targets as Targets,
    tokens: { a: tokens[0]!, b: tokens[1]!, ...(empty !== undefined && { empty }) },
    kind: kind as PartnerKind,
    ...(results && { results }),
    ...(mock && { mock }),
  };
}
