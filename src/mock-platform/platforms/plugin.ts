import type { RequestHandler, Router } from 'express';
import type { Dispatcher } from 'undici';
import type { ApiOperation } from '../../contract/openapi/document.js';
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../lib/db.js';
import type { Logger } from '../../lib/http/logger.js';
import type { CallLog } from '../calls/store.js';
import type { FaultStore } from '../faults/store.js';
import type { PageKit } from '../sandbox/page-kit.js';

/**
 * An applicant tracking system the mock plays beside the hiring platform of
 * docs/platform-contract.md (the mock's main body: marketplace, partners, reports, careers,
 * webhooks): Greenhouse today, Ashby and Bob next. The partner speaks each through a platform of
 * its own (src/partner/platforms/<name>/); the mock plays the other side of each through a plugin
 * of the same name, one folder of `platforms/`, listed in the registry (`platforms/index.ts`, one
 * line a plugin). Everything a plugin adds is here: its tables, its sandbox world, its routes and
 * pages, the calls it makes to the partner (and the faults they take), its card on the sandbox's
 * home page, its operations in the API reference, what `npm run dev` and the test harness do to
 * connect its sandbox company to the partner, and the recruiter's actions as a script runs them
 * (`/_mock/platforms/{name}/…`). The mock's core (`app.ts`, `server.ts`, `db.ts`, `sandbox/`,
 * `faults/`) is given the plugins and names none of them.
 */
export interface PlatformPlugin {
  /**
   * The partner's name for the platform (`greenhouse`, `ashby`, `hibob`): the segment of its
   * `/_mock/platforms/{name}/…` routes, its migrations' prefix, its templates' (`@name/…`), and
   * the first word of its calls' names in the call log and the faults (`greenhouse.send_test`).
   * Lowercase letters, digits and `-`.
   */
  readonly name: string;
  /** How the sandbox names it: `Greenhouse`. */
  readonly label: string;
  /**
   * A folder of `NNN_name.sql` files: its own tables in the mock's SQLite database, named after it
   * (`greenhouse_candidates`), applied after the mock's migrations, each once, tracked as
   * `<name>/NNN_name.sql`.
   */
  readonly migrations?: string;
  /**
   * A folder of Eta templates, its pages: `company.eta` is rendered as `@<name>/company`, inside the
   * sandbox's layout (`<% layout('./layout') %>`), with the helpers every page has (`it.time`).
   */
  readonly views?: string;
  /**
   * The calls it makes to the partner, by their names in the call log (`greenhouse.list_tests`):
   * what a fault with `target: callback` may name. Its endpoints that the partner calls take faults
   * through `PluginSetup.endpoint`.
   */
  readonly callbacks?: readonly string[];
  /**
   * Its endpoints in the mock's OpenAPI document (`GET /openapi.json`, `/api-reference`): the
   * operations the partner calls on it, their tags and credentials (a scheme named after it).
   */
  readonly api?: {
    tags: readonly { name: string; description: string }[];
    securitySchemes?: Readonly<Record<string, Record<string, unknown>>>;
    operations: readonly ApiOperation[];
  };
  /**
   * Puts its sandbox world (a company whose ATS it is, candidates, jobs) into a database that has
   * none, with fixed ids the docs and tests can name; a database that has it is left as it is.
   */
  seed?(db: Db, clock: Clock): void;
  /** What `npm run dev` and the test harness do about it besides `connect` (below). */
  readonly dev?: PluginDev;
  /** Makes its side in one mock, once the mock knows where it is reached. */
  create(setup: PluginSetup): PlatformSide;
}

/** What a plugin is made with: the mock's parts, never another plugin's. */
export interface PluginSetup {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Where the mock is reached: the URLs it gives the partner (Greenhouse's PATCH url) are built from it. */
  publicUrl: string;
  /** The call log: every call it makes to the partner is recorded there. */
  calls: CallLog;
  /**
   * The armed faults: `take(name, 'callback')` before each call it makes to the partner. A fault
   * its receiver answers in the platform's own words (Ashby's 200 with `success: false`) is a
   * platform endpoint of its own, `register(name)`ed when mounted and `take(name)`n after
   * `endpoint(...)`'s handlers, so the call is logged with it.
   */
  faults: FaultStore;
  /** How long each call to the partner may take. */
  callbackTimeoutMs: number;
  /** For its calls to the partner; undici's global dispatcher when absent. */
  dispatcher?: Dispatcher;
  /** The largest JSON body its routes accept. */
  bodyLimitBytes: number;
  /**
   * The handlers to put before a route the partner calls: the call is logged, and can be given
   * faults, under `name` (`greenhouse.take_home_tests.update`).
   */
  endpoint(name: string): RequestHandler[];
}

/** A plugin, made: its routes, its pages, its home card, its scripted recruiter, its background work. */
export interface PlatformSide {
  /**
   * Mounts its HTTP routes other than pages: what the partner calls (Greenhouse's PATCH, Ashby's
   * `assessment.update`, Bob's token URL and API) and its own JSON API, on paths it chooses. They
   * are mounted before the sandbox's pages; errors answer in the kit's JSON shape.
   */
  mount(router: Router): void;
  /**
   * Registers its sandbox pages in the sandbox's router, where every form post passes the same-site
   * check and is read as a form, and errors answer as pages. `kit.render` takes `@<name>/<template>`.
   */
  pages?(router: Router, kit: PageKit): void;
  /** Its section of the sandbox's home page. */
  home(): HomeSection;
  /** The recruiter's actions as a script runs them: `/_mock/platforms/{name}/…`, the harness, `npm run dev`. */
  script: ScriptedPlatform;
  /**
   * Background work (Bob's signed webhooks and their retries): started once the mock listens
   * (unless the mock's workers are off, as some tests keep them), stopped before it closes, and
   * woken when `POST /_mock/clock` moves the clock, so that what fell due goes out.
   */
  worker?: { start(): void; stop(): Promise<void>; wake(): void };
}

/** A plugin's section of the sandbox's home page: a heading, a sentence, a card per company. */
export interface HomeSection {
  title: string;
  /** One sentence, plain text. */
  intro: string;
  /** Where the partner answers this platform, shown as code after the sentence (`/greenhouse/…`). */
  partnerPaths?: string;
  cards: { href: string; name: string; detail: string }[];
}

/**
 * An action's result: its value, or what the recruiter is shown. `refused`: the partner answered
 * and refused (a 4xx, its message) — 422 on `/_mock/platforms`; else it failed (no answer, a 5xx,
 * an answer that breaks the platform's rules) — 502.
 */
export type ScriptOutcome<T> = { ok: true; value: T } | { ok: false; refused: boolean; message: string };

/** A candidate of its sandbox company, as a script names one. */
export interface ScriptedCandidate {
  id: string;
  name: string;
  email: string;
}

/**
 * A test sent from the platform, as the platform shows it. Platforms say the same things in
 * different words: `status` is the platform's own (Greenhouse's `partner_status`), `complete`
 * whether the platform holds the result by its own rule.
 */
export interface ScriptedReport {
  /** The partner's id for it, which is the kit's report id: what the results endpoint takes. */
  id: string;
  test: { id: string; name: string };
  candidate: ScriptedCandidate;
  /** As the platform's page shows it: `sending…`, `sent`, `not sent`, or what the partner last said. */
  status: string;
  /** The platform holds the result (Greenhouse: `partner_status` is `complete`). */
  complete: boolean;
  /** As the platform shows it: Greenhouse's a number; null until there is one. */
  score: number | string | null;
  resultsUrl: string | null;
  /** The result's other values the platform shows (Greenhouse's `metadata`). */
  details: Record<string, string | number | boolean | null>;
  /** What went wrong with the last thing the platform asked the partner about it, if anything. */
  problem: string | null;
  /** Its page in the sandbox (a path). */
  page: string;
  updatedAt: string;
}

/** The partner a sandbox company is connected to: where it is, its name, the customer's token. */
export interface SandboxPartner {
  /** The partner's public URL (its `PUBLIC_URL`). */
  url: string;
  name: string;
  /** The customer account's token (`npm run accounts`): the credential the platform presents to the partner. */
  token: string;
}

/** A sandbox company connected to a partner. */
export interface Connected {
  /** What the platform shows of the connection, never a secret. */
  connection: Record<string, unknown>;
  /**
   * The credential the customer gives the partner for this platform, when the partner needs one to
   * reach it (Ashby's API key, which authenticates `assessment.update`): `npm run dev` and the
   * harness store it on the customer's account as `npm run accounts -- credential set` does. A
   * sandbox's own, issued by the mock: not a secret of anyone's.
   */
  credential?: string;
}

/**
 * The recruiter's actions on the plugin's sandbox company, for scripts: the same actions its pages
 * perform, with the same calls to the partner. Ids are text, whatever the platform's are.
 */
export interface ScriptedPlatform {
  /** The sandbox company these act for (seeded), and its page (a path). */
  company(): { id: string; name: string; page: string };
  candidates(): ScriptedCandidate[];
  /**
   * Connects the sandbox company to a partner, as its customer does on that platform (Greenhouse:
   * the partnerships team enters the partner's URLs and the customer's key).
   */
  connect(partner: SandboxPartner): Promise<ScriptOutcome<Connected>>;
  /** The tests the partner lists to the company, asked as the platform asks. */
  listTests(): Promise<ScriptOutcome<{ id: string; name: string }[]>>;
  /**
   * Sends the test to a candidate (the first seeded one unless named), as a recruiter does on that
   * platform. Without `testName` the platform lists the partner's tests first and sends one of them.
   */
  send(input: { testId: string; testName?: string; candidateId?: string }): Promise<ScriptOutcome<ScriptedReport>>;
  /** A test sent, by the partner's id for it; undefined when the platform sent none with that id. */
  report(reportId: string): ScriptedReport | undefined;
}

/** What `npm run dev` (scripts/dev.ts) and the test harness (src/testing/) do for a plugin. */
export interface PluginDev {
  /**
   * Settings the partner needs to reach this platform's mock, as in `.env` (`ASHBY_API_URL`, Bob's
   * token URL and client), given the mock's address; set before the partner starts.
   */
  partnerSettings?(mockUrl: string): Record<string, string>;
  /**
   * `npm run dev`'s banner: its link in the list of addresses, and the steps to try it (the first
   * line says whether `connect` went through). A plugin without one is connected all the same.
   */
  banner?(context: { mockUrl: string; partnerName: string; connected: { ok: true } | { ok: false; message: string } }): {
    link: { label: string; url: string };
    steps: string[];
  };
}

/** Type-checks a plugin where it is written. */
export const definePlatformPlugin = (plugin: PlatformPlugin): PlatformPlugin => plugin;

/** What a plugin's `name` may be. */
export const PLUGIN_NAME = /^[a-z][a-z0-9-]{0,39}$/;
