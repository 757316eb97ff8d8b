import type { PartnerKind } from '../contract/decisions.js';

/** One check's outcome: what `--json` prints, one per check. */
export interface CheckResult {
  /** Stable, e.g. `send_candidate.replay`: what CI and docs/conformance.md refer to. */
  id: string;
  /** The section of docs/platform-contract.md the check comes from, e.g. `§4.3`. */
  section: string;
  name: string;
  ok: boolean;
  /** What was observed: the status, or what was wrong. */
  detail: string;
  /** How long the check took. */
  ms: number;
}

/** What a check's run decides. */
export interface Verdict {
  ok: boolean;
  detail: string;
}

/** What a check's run decides when what it needs turned out missing: it is listed as not run, with why. */
export interface NotRun {
  notRun: string;
}

export interface Check<C> {
  id: string;
  section: string;
  name: string;
  /**
   * Whether the check can run, asked right before it would: a string says why not (an option not
   * given, or an earlier check it builds on that did not pass), and the check is reported "not run"
   * rather than failed for what another check already reports.
   */
  applies?: (ctx: C) => true | string;
  run(ctx: C): Promise<Verdict | NotRun>;
}

/** The partner's callback URLs, as registered on the platform (§3.1 `urls`). */
export interface Targets {
  validateToken: string;
  tests: string;
  sendCandidate: string;
}

/** Customer tokens the partner issued, of accounts not bound to a company yet. */
export interface Tokens {
  /** Two accounts with at least one test each. */
  a: string;
  b: string;
  /** An account without tests, to check the empty list; optional. */
  empty?: string;
}

export interface PlatformSettings {
  PLATFORM_URL: string;
  PARTNER_CODENAME: string;
  PARTNER_SECRET: string;
}

export interface PlatformOptions {
  /** The mock's port (0 or absent: a free one). */
  port?: number;
  codename: string;
  /** The partner record to register; its callback `urls` are the targets checked. */
  record?: { name?: string; description?: string; helpArticle?: string };
  /**
   * Called once the mock runs and the partner is registered, with the settings the partner needs
   * to send report updates there. Print them, or start the partner under test with them; return
   * its callback URLs and tokens when they are known only now (the record is then registered
   * again with those URLs; the secret stays the same).
   */
  ready?: (settings: PlatformSettings) => Promise<{ targets?: Targets; tokens?: Tokens } | void>;
  /** How long to wait for each report update the partner should send (default 10 s). */
  updateTimeoutMs?: number;
}

export interface ConformanceOptions {
  /** Absent only when `platform.ready` supplies them. */
  targets?: Targets;
  tokens?: Tokens;
  /** What the partner is: decides which report fields it may send (default assessment). */
  kind?: PartnerKind;
  /** The platform's callback timeout (default 10 s, CALLBACK_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Start the bundled mock platform and check the report updates the partner sends to it (`--mock`). */
  mock?: PlatformOptions;
  /**
   * Check the partner's results endpoint too, signed with its VENDOR_RESULTS_SECRET; `url` has
   * `{report_id}` where the report id goes (default: the kit's path beside the callbacks).
   */
  results?: { secret: string; url?: string };
  /** Told about each result as soon as it is known (the CLI prints it). */
  onResult?: (result: CheckResult) => void;
}
