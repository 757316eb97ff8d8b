/** One check's outcome: what `--json` prints, one per check. */
export interface CheckResult {
  /** Stable, e.g. `send_candidate.replay`: what CI and docs/conformance.md refer to. */
  id: string;
  /** The section of the platform's contract the check comes from, e.g. `§4.3` (docs/platform-contract.md), `§2` (docs/greenhouse.md). */
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
