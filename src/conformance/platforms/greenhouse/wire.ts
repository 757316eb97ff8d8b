import { z } from 'zod';
import { RESULTS_URL_TEMPLATE } from '../results-checks.js';
import { USER_AGENT } from '../probe.js';
import type { CallbackHttpRequest } from '../../contract/partner-calls.js';

/**
 * How Greenhouse calls an assessment partner (docs/greenhouse.md §2), as the checker reads it: the
 * four endpoints under one base URL, Basic authentication with the customer's key as the user name
 * and an empty password, JSON bodies, and what each answer must hold.
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
export function resultsUrlFromGreenhouse(baseUrl: string): string {
  const url = new URL(baseUrl);
  const base = url.pathname.replace(/\/+$/, '').replace(/\/greenhouse$/, '');
  return `${url.origin}${base}${RESULTS_URL_TEMPLATE}`;
}

/** `Authorization: Basic base64("<user>:<password>")`; Greenhouse sends the key with an empty password. */
export const basicAuth = (user: string, password = ''): string => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

export interface GreenhouseCall {
  method: 'GET' | 'POST';
  url: string;
  /** The `Authorization` header: `basicAuth(key)` as Greenhouse sends it, another to test the partner, or none. */
  authorization: string | undefined;
  /** Serialised as JSON; absent: no body (a GET). */
  body?: unknown;
  /** Query parameters (test_status's `partner_interview_id`). */
  query?: Record<string, string>;
}

/** The request on the wire for `call`. */
export function greenhouseRequest(call: GreenhouseCall): CallbackHttpRequest {
  const url = new URL(call.url);
  for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
  if (call.authorization !== undefined) headers.authorization = call.authorization;
  const body = call.body === undefined ? undefined : JSON.stringify(call.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { method: call.method, url: url.href, headers, ...(body !== undefined && { body }) };
}

/** Where the checker's PATCH receiver takes Greenhouse's part: the path of Greenhouse's own `url`. */
export const PATCH_PATH = '/integrations/testing_partners/take_home_tests';

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
