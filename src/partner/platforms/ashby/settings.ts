import { z } from 'zod';
import { isLoopbackHost } from '../../defaults.js';

/** Where Ashby's API is unless ASHBY_API_URL says otherwise. */
export const ASHBY_API_DEFAULT = 'https://api.ashbyhq.com';

/**
 * [kit decision] ASHBY_API_URL, the base `assessment.update` is posted to with the customer's Ashby
 * API key (docs/ashby.md §5). The operator's word, never a caller's: nothing Ashby sends names a
 * host. `https`, or `http` on a loopback address (the mock, the tests: the key then never leaves
 * the machine); no user name or password, query or fragment; a path is kept (a proxy's prefix),
 * without its trailing slashes.
 */
export const AshbyApiUrl = z
  .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' })
  .superRefine((value, ctx) => {
    // Not a URL: said by the check above (zod runs the refinements of a failed check too).
    if (!URL.canParse(value)) return;
    const url = new URL(value);
    if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not hold a user name or password: the customer\'s key is sent as the Basic credentials' });
    if (url.search || url.hash) ctx.addIssue({ code: 'custom', message: 'must not hold a query or a fragment' });
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      ctx.addIssue({ code: 'custom', message: 'must be https: the customer\'s Ashby API key travels with each update (plain http is allowed only on a loopback address)' });
    }
  })
  .transform((value) => {
    const url = new URL(value);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  });

/** Ashby's settings (.env.example, docs/configuration.md, docs/ashby.md §5). */
export const AshbySettings = z
  .object({
    ASHBY_API_URL: z.string().trim().default(ASHBY_API_DEFAULT).pipe(AshbyApiUrl),
  })
  .transform((s) => ({ apiUrl: s.ASHBY_API_URL }));
export type AshbySettings = z.output<typeof AshbySettings>;
