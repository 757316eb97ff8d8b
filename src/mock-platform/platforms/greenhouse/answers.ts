import { z } from 'zod';

/**
 * The partner's answers as Greenhouse reads them (docs/greenhouse.md §2). A 2xx answer that breaks
 * these rules is malformed: Greenhouse tells the partner with `POST response_error`, whose `errors`
 * are the sentences `problemsOf` makes, and shows the problem to the recruiter.
 */
/** A field's message: "is required" when it is missing, else what it must be. */
const expected = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : what);

const Text = z.string({ error: expected('must be a string') }).trim().min(1, 'must not be empty').max(500);

/** `GET list_tests`: the tests this key may send. */
export const ListTestsAnswer = z
  .array(z.object({ partner_test_id: Text, partner_test_name: Text }, { error: expected('must be an object') }), {
    error: 'must be an array of tests',
  })
  .max(1000);

/** `POST send_test`: the id of this test instance, used for every later test_status. */
export const SendTestAnswer = z.object({ partner_interview_id: Text }, { error: 'must be an object' });

const Primitive = z.union([z.string(), z.number(), z.boolean(), z.null()], { error: 'must be a string, a number, a boolean or null' });

/**
 * `GET test_status`. `partner_status` is required; `complete` means the results are in, and then
 * `partner_profile_url` is required; `partner_score` is a number; `metadata` a flat object whose
 * values are primitives. `null` stands for "no value", as Greenhouse's own bodies use it.
 */
export const TestStatusAnswer = z
  .object(
    {
      partner_status: z.string({ error: expected('must be a string') }).trim().min(1, 'must not be empty').max(100),
      partner_profile_url: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2000).nullish(),
      partner_score: z.number({ error: 'must be a number' }).nullish(),
      metadata: z.record(z.string().max(200), Primitive).nullish(),
    },
    { error: 'must be an object' },
  )
  // Checked even when another field is wrong, so that response_error lists every problem at once.
  .refine((a) => a.partner_status !== 'complete' || Boolean(a.partner_profile_url), {
    path: ['partner_profile_url'],
    message: "is required when partner_status is 'complete'",
    when: (payload) => {
      const value = payload.value as { partner_status?: unknown; partner_profile_url?: unknown } | null;
      return typeof value === 'object' && value !== null && value.partner_profile_url == null;
    },
  });

/**
 * The answer when it follows `schema`, else one sentence per problem, naming the field
 * ("partner_score must be a number"): what `response_error`'s `errors` carry.
 */
export function readAnswer<S extends z.ZodType>(schema: S, body: unknown): { ok: true; value: z.output<S> } | { ok: false; errors: string[] } {
  const result = schema.safeParse(body, { error: (issue) => (issue.input === undefined ? 'is required' : undefined) });
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    errors: result.error.issues.map((issue) => {
      const field = issue.path.map(String).join('.');
      return field ? `${field} ${issue.message}` : `the answer ${issue.message}`;
    }),
  };
}
