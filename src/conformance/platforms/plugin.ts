import { z } from 'zod';
import { UsageError } from '../../lib/cli.js';
import type { ReceiverAddress, ReceiverSpec } from '../receiver.js';
import type { ConformanceRun } from '../run.js';
import type { CheckResult } from '../types.js';

/**
 * The seam between the checker and a platform: everything `npm run conformance -- --platform <name>`
 * needs of one platform is in its plugin, one folder of src/conformance/platforms/, listed once in
 * the registry (./index.ts). The command line (../cli.ts) names no platform: it offers each one's
 * options, prints each one's usage, parses the options every platform shares (the results endpoint,
 * the receiver's address, --wait, --json, --yes) and hands the rest to the platform chosen.
 *
 * A plugin's folder imports the checker's shared modules (../../probe.ts, ../../receiver.ts,
 * ../../run.ts, ../../results-checks.ts, ../../types.ts), src/contract and src/lib, never another
 * platform's folder (test/conformance/registry.test.ts).
 */

/** One of a platform's own command-line options, as node:util parseArgs reads it. */
export interface CheckerOption {
  type: 'string' | 'boolean';
  /** Given more than once (`--token A --token B`). */
  multiple?: boolean;
}

/** What parseArgs read for a platform's own options: absent ones are undefined. */
export type OptionValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

/** What a plugin's `parse` is given. */
export interface ArgsInput {
  /** The one positional argument (a base URL, a manifest…), if given: the command refuses more than one. */
  source: string | undefined;
  /** The values of the platform's own options (its `options`), and of no other platform's. */
  values: OptionValues;
  /** CONFORMANCE_* variables a platform may read its credentials from, for CI. */
  env: Readonly<Record<string, string | undefined>>;
  /** Where a manifest's ${PUBLIC_URL} points by default (PUBLIC_URL, else http://HOST:PORT). */
  publicUrl: string;
  /**
   * `--results-secret` (or CONFORMANCE_RESULTS_SECRET), not blank, and `--results-url` when given:
   * the plugin says where the endpoint is by default, with `resultsEndpoint`.
   */
  results?: { secret: string; url?: string };
  /** For a platform with a receiver: where it listens (`--receiver-host`, `--receiver-port`), checked. */
  receiver?: Required<ReceiverAddress>;
}

/**
 * The platform's side that the partner under test must be set up to reach for the run, if the
 * platform needs one: the bundled mock platform (the recruiting platform's `--mock`), or the
 * checker's receiver when the partner finds it through a setting of its own (a platform's API base
 * URL). The run prints the partner's settings for it (`RunIo.partnerSettings`); with `--wait`, it
 * waits for Enter while the partner is (re)started with them.
 */
export interface MockSpec {
  /** What it is, for the usage: `the bundled mock platform`. */
  what: string;
  /** The option that asks for it (`mock`); absent: every run needs it. */
  option?: string;
  /** The partner's settings that point at it, which the run prints: `PLATFORM_URL`, …. */
  settings: readonly string[];
}

/** What the command gives a run: where its lines go, and the person running it. */
export interface RunIo {
  /** Told about each result as soon as it is known (absent with --json). */
  onResult?: (result: CheckResult) => void;
  /** A line for the person running the checker, such as what to do now (on stderr with --json). */
  notice(text: string): void;
  /**
   * The partner under test must run with these settings (the platform's URL, a secret…): printed as
   * `NAME=value …` after `heading`; with --wait, resolves once the person has pressed Enter.
   */
  partnerSettings(heading: string, settings: Readonly<Record<string, string>>): Promise<void>;
}

/** A check as the registry lists it: its stable id (CI refers to it), its section, its name. */
export type CheckInfo = Pick<CheckResult, 'id' | 'section' | 'name'>;

export interface CheckerPlugin<Args = unknown> {
  /** What `--platform` takes: `greenhouse`. Lowercase letters, digits and `-`. */
  name: string;
  /** What the usage calls it: `Greenhouse`. */
  label: string;
  /** The document its checks come from, whose sections the results name: `docs/greenhouse.md`. */
  contract: string;
  /** How the platform calls a partner, for the usage: after "It calls the partner …". */
  calls: string;
  usage: {
    /** What follows `npm run conformance -- --platform <name>` in the usage's first lines. */
    synopsis: string;
    /**
     * Its section of the usage: its positional argument and each of its options, one per line
     * (`  --key KEY                    …`, the text from column 32). The receiver's options and
     * --wait are added after them.
     */
    lines: string;
  };
  /** What its one positional argument is, for the error when more are given: `base URL`. */
  source: string;
  /** Its own options, by name without the dashes; another platform may have one of the same name and type. */
  options: Readonly<Record<string, CheckerOption>>;
  /**
   * The platform's server side the checker plays for the run, where the partner's calls to the
   * platform come (../receiver.ts): with one, the platform takes `--receiver-host` and
   * `--receiver-port`, and its run listens where they say.
   */
  receiver?: ReceiverSpec;
  /** The platform's side the partner must be set up to reach for the run, if any; with one, the platform takes `--wait`. */
  mock?: MockSpec;
  /** Its checks, in the order they run: docs/conformance.md lists each id. */
  checks: readonly CheckInfo[];
  /** Reads its options into what its run needs; throws a UsageError naming what is wrong. */
  parse(input: ArgsInput): Args;
  /** What a run leaves in the partner, said before anything is sent. */
  leaves(args: Args): string;
  /** Runs its checks against the partner; a ConformanceSetupError when the run cannot start. */
  run(args: Args, io: RunIo): Promise<ConformanceRun>;
}

/** A plugin, its types checked against its own arguments. */
export const defineChecker = <Args>(plugin: CheckerPlugin<Args>): CheckerPlugin<Args> => plugin;

const httpUrl = z.url({ protocol: /^https?$/ });

/** An absolute http(s) URL. */
export const isHttpUrl = (url: string): boolean => httpUrl.safeParse(url).success;

/** A string option's value (the last one given), or undefined. */
export function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? value.at(-1) : undefined;
}

/** A string option given any number of times, or undefined when it was not given. */
export function stringsOption(values: OptionValues, name: string): string[] | undefined {
  const value = values[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : undefined;
}

/** Whether a boolean option was given. */
export const flagOption = (values: OptionValues, name: string): boolean => values[name] === true;

/**
 * The results endpoint to use: `--results-url`, else `defaultUrl` (the kit's path beside the
 * partner's endpoints), with `{report_id}` where the id goes; a UsageError when it is not a URL.
 */
export function resultsEndpoint(results: { secret: string; url?: string }, defaultUrl: string): { secret: string; url: string } {
  const url = results.url ?? defaultUrl;
  if (!url.includes('{report_id}') || !isHttpUrl(url.replace('{report_id}', 'x'))) {
    throw new UsageError(`--results-url must be an absolute http(s) URL with {report_id} where the id goes, not ${url}`);
  }
  return { secret: results.secret, url };
}
