import type { Account } from '../accounts/store.js';
import type { PartnerKind } from '../../contract/decisions.js';
import type { Clock } from '../../lib/clock.js';
import type { Sql } from '../../lib/sql.js';
import type { Logger } from '../../lib/http/logger.js';
import type { VendorReports } from '../results/api.js';
import type { ProviderResult, ResultDetail } from '../invitations/result.js';

export type { ProviderResult, ResultDetail };

/**
 * The seam between this kit and the vendor's product. The kit owns the platform side (tokens,
 * callbacks, invitations keyed by report_id, e-mail, report delivery, the pages' plumbing); a
 * provider owns what the candidate takes and how it is judged. A fork writes one module that talks
 * to its own product and passes it to `startPartner` (src/partner/index.ts) — the callbacks and
 * pages only ever reach the product through this interface.
 *
 * Two shapes of product fit it:
 * - the test is taken on the kit's own candidate page (`/take`): `candidateTask` and `submit`
 *   say what the candidate sees and how it is judged (the demo provider, `demo/`);
 * - the test is taken in the vendor's product: `startInvitation` creates it there and returns its
 *   link; the product pushes the result back (`POST /vendor/reports/{id}/result`, or
 *   `partner.reports.complete(…)` in process), and the kit's page is not used.
 */
export interface Provider {
  /** What this product is; decides the wording of e-mails and pages and what a result may carry. */
  readonly kind: PartnerKind;

  /** The tests this customer account may send, in the order the platform should show them. */
  listTests(account: Account): Promise<readonly ProviderTest[]>;

  /**
   * One test by the id the platform sends back, always as a string; undefined when unknown.
   * Without it, the kit looks the id up in `listTests`.
   */
  findTest?(account: Account, testId: string): Promise<ProviderTest | undefined>;

  /**
   * Starts the candidate's test in the vendor's product. Called once per invitation, after the
   * platform has had its answer, and retried when it throws; it must be safe to call again for the
   * same `reportId` (the dashboard's "resend invitation" calls it again for a fresh link). Returns
   * the link the candidate is invited to: the kit's candidate page (`kit.candidateUrl(reportId)`)
   * or a page of the vendor's product.
   */
  startInvitation(invitation: InvitationToStart): Promise<{ candidateUrl: string }>;

  /**
   * Tells the vendor's product that an invitation it started was canceled: the product closes the
   * candidate's link (or stops the check). Called after the cancel has committed and been answered,
   * for every cancel the product did not make itself — the platform's (urls.cancel), an operator's
   * (the dashboard), a webhook handler's (candidate deleted or disqualified), and the kit's own when
   * the platform answers 404 to a report it never knew — and never for an invitation the product
   * did not start (`startInvitation` never returned for it). Retried with backoff when it throws,
   * given up after as long as a report update (3 days; the dashboard shows it); it must be safe to
   * call twice for the same `reportId`: a crash between the call and its record calls it again.
   * Absent when there is nothing to tell (the test is taken on the kit's page, whose link stops
   * working with the cancel).
   */
  cancelInvitation?(invitation: InvitationToCancel): Promise<void>;

  /** What the candidate does on the kit's candidate page. Absent when the test is taken in the vendor's product. */
  candidateTask?(invitation: ProviderInvitation): Promise<CandidateTask>;

  /**
   * The candidate's submission from the candidate page (the form's fields). Returns the result when
   * it is known at once (a scored quiz), `pending` when the vendor decides later (a check), or the
   * problems to show the candidate, field by field. Absent when the test is taken in the vendor's product.
   */
  submit?(invitation: ProviderInvitation, form: Record<string, unknown>): Promise<Submission>;

  /**
   * A vendor-side decision from the dashboard (checks): the operator records the outcome. Absent
   * for products whose results only come from the candidate's submission or the product itself.
   */
  decide?(invitation: ProviderInvitation, decision: Decision): Promise<ProviderResult>;

  /** Details for the recruiter's results page (e.g. answers per question); [] or absent when there are none. */
  resultDetails?(invitation: ProviderInvitation): Promise<readonly ResultDetail[]>;

  /**
   * A catalog the kit can add tests to: `npm run accounts -- create "Acme" --test "SQL"` and the
   * demo account of DEMO_SEED use it. Absent when tests live in the vendor's product.
   */
  catalog?: ProviderCatalog;
}

/** What the kit hands a provider factory: what a provider may need to build itself. */
export interface ProviderKit {
  /**
   * The partner's database (SQLite, or PostgreSQL when DATABASE_URL is set), the provider's own
   * tables migrated (`ProviderFactory.migrations`): one query text with `$1, $2…` for both.
   */
  sql: Sql;
  clock: Clock;
  /** PARTNER_KIND: what this partner is registered as. */
  kind: PartnerKind;
  logger: Logger;
  /**
   * Where the platform, candidates and your product reach this server (PUBLIC_URL): a product that
   * posts results back is told `${publicUrl}/vendor/reports/${reportId}/result`.
   */
  publicUrl: string;
  /** The kit's own candidate page for a report, as a signed link (for products taken on the kit's page). */
  candidateUrl(reportId: string): string;
  /** Results pushed from the product in process (the same lifecycle as `POST /vendor/reports/{id}/result`). */
  reports: VendorReports;
}

/**
 * Builds the provider once the kit has its database and links. A factory may bring tables of its
 * own: `migrations` are applied before it is called (see `ProviderMigrations`).
 */
export interface ProviderFactory {
  (kit: ProviderKit): Provider;
  migrations?: ProviderMigrations;
}

/**
 * A provider's own SQL migrations: the `NNN_name.sql` files of `dir` (SQLite's dialect), or of
 * `postgresDir` on PostgreSQL (DATABASE_URL), applied in order after the kit's, each once. They are
 * tracked in the `schema_migrations` table as `prefix/NNN_name.sql`; `prefix` names the provider
 * (e.g. "demo"). Without `postgresDir`, the partner refuses to start on PostgreSQL.
 */
export interface ProviderMigrations {
  dir: string;
  postgresDir?: string;
  prefix: string;
}

/** A provider as `startPartner` takes it: the object itself, or a factory given the kit. */
export type ProviderSource = Provider | ProviderFactory;

export interface ProviderCatalog {
  /**
   * Adds tests by name to the account's catalog; returns them as `listTests` will list them. `tx` is
   * the kit's transaction that creates the account: a catalog in the kit's database writes through
   * it, so the account and its tests are stored together; a catalog in the vendor's product ignores it.
   */
  addTests(accountId: number, names: readonly string[], tx: Sql): Promise<readonly ProviderTest[]>;
  /** The tests the demo account gets (DEMO_SEED); none when absent. */
  sampleTests?: readonly string[];
  /**
   * `'tests'` when the catalog is the kit's `tests` table (the demo's): `addTests` writes there and
   * `listTests` lists the account's rows by id. The platforms' test listings then read the token
   * and the tests in one statement, one round trip to PostgreSQL instead of two, and their sends
   * store the invitation with an INSERT that reads the test's row (one statement for the test and
   * the send), without calling `listTests` or `findTest` (which still serve the harness and anything
   * else). Absent: the kit checks the token, then calls `listTests`; a send calls `findTest`. A
   * provider built on the demo's whose tests live elsewhere leaves it out.
   */
  table?: 'tests';
}

export interface ProviderTest {
  /** Listed to the platform as-is; it comes back on send_candidate as a string. */
  id: number | string;
  name: string;
}

export interface InvitationToStart {
  reportId: string;
  accountId: number;
  testId: string;
  testName: string;
  candidate: { id: number; firstName: string; lastName: string; email: string; phone: string | null };
}

/** A canceled invitation, as `cancelInvitation` gets it: no personal data (a deleted candidate's is erased by then). */
export interface InvitationToCancel {
  reportId: string;
  accountId: number;
  testId: string;
  testName: string;
  /** Who canceled: the platform (its cancel, a webhook, a report it does not know) or the vendor's operator (the dashboard). */
  canceledBy: 'platform' | 'vendor';
  canceledAt: string;
}

/** The invitation as a provider sees it on the candidate page, the dashboard and the results page. */
export interface ProviderInvitation {
  reportId: string;
  accountId: number;
  testId: string;
  testName: string;
  openedAt: string | null;
}

/**
 * What the candidate page shows: a quiz, a consent form, or — when the test cannot be taken any
 * more (removed from the catalog, say) — why not, which the kit shows as a "no longer available" page.
 */
export type CandidateTask =
  | { kind: 'quiz'; intro: string; questions: readonly Question[] }
  | { kind: 'consent'; intro: string; statements: readonly string[] }
  | { kind: 'unavailable'; text: string };

export interface Question {
  /** The form field the answer comes back in. */
  field: string;
  prompt: string;
  choices: readonly { value: string; label: string }[];
}

export type Submission =
  | { outcome: 'result'; result: ProviderResult }
  | { outcome: 'pending' }
  | { outcome: 'invalid'; errors: Record<string, string> }
  | { outcome: 'unavailable'; text: string };

/** An operator's decision on a check: clear (completed) or adverse (failed). */
export type Decision = 'clear' | 'adverse';

