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

/** A line of the recruiter's results page (an answer per question, say); `ok` marks it right or wrong. */
export interface ResultDetail {
  label: string;
  value: string;
  ok?: boolean;
}
