import type { Account } from '../accounts/store.js';
import type { PartnerKind } from '../../contract/decisions.js';

/**
 * The seam between this kit and the vendor's product. The kit owns the platform side (tokens,
 * callbacks, invitations keyed by report_id, e-mail, report delivery, the pages' plumbing); a
 * provider owns what the candidate takes and how it is judged. A fork replaces `demo/` with a module
 * that talks to its own product and passes it to `createApp` — the callbacks and pages only ever
 * reach the product through this interface.
 */
export interface Provider {
  /** What this product is; decides the wording of e-mails and pages and what a result may carry. */
  readonly kind: PartnerKind;

  /** The tests this customer account may send, in the order the platform should show them. */
  listTests(account: Account): Promise<readonly ProviderTest[]>;

  /** One test by the id the platform sends back, always as a string; undefined when unknown. */
  findTest(account: Account, testId: string): Promise<ProviderTest | undefined>;

  /**
   * Starts the candidate's test in the vendor's product. Called once per invitation, after the
   * platform has had its answer, and retried when it throws; it must be safe to call again for the
   * same `reportId` (the dashboard's "resend invitation" calls it again for a fresh link). Returns
   * the link the candidate is invited to.
   */
  startInvitation(invitation: InvitationToStart): Promise<{ candidateUrl: string }>;

  /** What the candidate does on the kit's candidate page. */
  candidateTask(invitation: ProviderInvitation): Promise<CandidateTask>;

  /**
   * The candidate's submission from the candidate page (the form's fields). Returns the result when
   * it is known at once (a scored quiz), `pending` when the vendor decides later (a check), or the
   * problems to show the candidate, field by field.
   */
  submit(invitation: ProviderInvitation, form: Record<string, unknown>): Promise<Submission>;

  /**
   * A vendor-side decision from the dashboard (checks): the operator records the outcome. Absent
   * for products whose results only come from the candidate's submission.
   */
  decide?(invitation: ProviderInvitation, decision: Decision): Promise<ProviderResult>;

  /** Details for the recruiter's results page (e.g. answers per question); [] when there are none. */
  resultDetails(invitation: ProviderInvitation): Promise<readonly ResultDetail[]>;
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

/** The invitation as a provider sees it on the candidate page, the dashboard and the results page. */
export interface ProviderInvitation {
  reportId: string;
  accountId: number;
  testId: string;
  testName: string;
  openedAt: string | null;
}

export type CandidateTask =
  | { kind: 'quiz'; intro: string; questions: readonly Question[] }
  | { kind: 'consent'; intro: string; statements: readonly string[] };

export interface Question {
  /** The form field the answer comes back in. */
  field: string;
  prompt: string;
  choices: readonly { value: string; label: string }[];
}

export type Submission =
  | { outcome: 'result'; result: ProviderResult }
  | { outcome: 'pending' }
  | { outcome: 'invalid'; errors: Record<string, string> };

/**
 * A finished test or check. `score` is shown in the platform's badge (at most 5 characters);
 * `subtitle` and `properties` reach the platform for assessments only — the kit drops them for the
 * check kinds, whose reports may not carry them.
 */
export interface ProviderResult {
  status: 'completed' | 'failed';
  score: string;
  subtitle?: string;
  properties?: readonly { label: string; value: string }[];
}

/** An operator's decision on a check: clear (completed) or adverse (failed). */
export type Decision = 'clear' | 'adverse';

export interface ResultDetail {
  label: string;
  value: string;
  ok?: boolean;
}
