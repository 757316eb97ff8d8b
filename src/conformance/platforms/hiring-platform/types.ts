import type { PartnerKind } from '../../../contract/decisions.js';
import type { CheckResult } from '../../types.js';

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
