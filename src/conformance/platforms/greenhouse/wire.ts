import { z } from 'zod';
import type { ReceiverSpec } from '../../receiver.js';
import { resultsUrlBeside } from '../../results-checks.js';

/**
 * How Greenhouse calls an assessment partner (docs/greenhouse.md §2), as the checker reads it: the
 * four endpoints under one base URL, Basic authentication with the customer's key as the user name
 * and an empty password, JSON bodies (`jsonRequest` and `basicAuth`, ../../probe.ts), what each
 * answer must hold, and its side of the PATCH, which the checker's receiver plays.
 */

/** The partner's four endpoints: `<base>/list_tests`, `<base>/send_test`, `<base>/test_status`, `<base>/response_error`. */
export interface GreenhouseTargets {
  listTests: string;
  sendTest: string;
  testStatus: string;
  responseError: string;
}

export function greenhouseTargets(baseUrl: string): GreenhouseTargets {
  const base = baseUrl.replace(/\/+$/, '');
  return { listTests: `${base}/list_tests`, sendTest: `${base}/send_test`, testStatus: `${base}/test_status`, responseError: `${base}/response_error` };
}

/**
 * The results endpoint beside a kit partner's Greenhouse endpoints: the base URL without its last
 * `/greenhouse`, then the kit's results path (`{report_id}` where the interview id goes).
 */
export const resultsUrlFromGreenhouse = (baseUrl: string): string => resultsUrlBeside(baseUrl, 'greenhouse');

/** Where the checker's PATCH receiver takes Greenhouse's part: the path of Greenhouse's own `url`. */
export const PATCH_PATH = '/integrations/testing_partners/take_home_tests';

/**
 * Greenhouse's side of the PATCH (§3), played by the checker's receiver: the `url` of each send is
 * on it, so the PATCH the partner sends there is seen, and so is any request a partner makes to a
 * `url` it refused. It answers `200` with no body, as Greenhouse answers with a status code only.
 */
export const PATCH_RECEIVER: ReceiverSpec = { for: 'the PATCH', namedBy: 'the url of each send' };

/** The documented send_test body (§2), its candidate on example.com (reserved: it takes no mail). */
export function sendTestBody(partnerTestId: string, url: string, candidate: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    partner_test_id: partnerTestId,
    candidate: {
      first_name: 'Harry',
      last_name: 'Potter',
      preferred_name: 'The Chosen One',
      email: 'hpotter@example.com',
      phone_number: '123-456-7890',
      resume_url: 'https://example.com/resume',
      greenhouse_profile_url: 'https://app.greenhouse.io/people/17681532?application_id=26234709',
      ...candidate,
    },
    sent_by: 'test_sender@example.org',
    url,
  };
}

/** The documented response_error body (§2). */
export function responseErrorBody(interviewId: string, partnerTestId: string, partnerTestName: string): Record<string, unknown> {
  return {
    api_call: 'test_status',
    errors: ["partner_status is 'complete' but partner_profile url is missing"],
    partner_test_id: partnerTestId,
    partner_test_name: partnerTestName,
    partner_interview_id: interviewId,
    candidate_email: 'hpotter@example.com',
  };
}

/** One test of `list_tests` (§2): both fields strings. */
export const GreenhouseTest = z.object({ partner_test_id: z.string(), partner_test_name: z.string() });
export type GreenhouseTest = z.infer<typeof GreenhouseTest>;

/** send_test's answer (§2). */
export const SendTestAnswer = z.object({ partner_interview_id: z.string().min(1) });

const primitive = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * test_status's answer (§2): `partner_status` a string; `partner_profile_url` an absolute URL (it
 * must be there when complete); `partner_score` a number; `metadata` a flat object whose values are
 * primitives. Each of the last three may be absent, or null ("properties without a value use null").
 */
export const TestStatusAnswer = z.object({
  partner_status: z.string().min(1),
  partner_profile_url: z.url({ protocol: /^https?$/ }).nullish(),
  partner_score: z.number().nullish(),
  metadata: z.record(z.string(), primitive).nullish(),
});
export type TestStatusAnswer = z.infer<typeof TestStatusAnswer>;
