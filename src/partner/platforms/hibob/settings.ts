import { z } from 'zod';
import { isLoopbackHost } from '../../defaults.js';

/** Where Bob's API is unless HIBOB_API_URL says otherwise (docs/hibob.md §7). */
export const HIBOB_API_DEFAULT = 'https://api.hibob.com/v1';
/**
 * Where Bob's OAuth tokens are issued unless HIBOB_TOKEN_URL says otherwise. Not on HiBob's own
 * pages as far as they could be read: the default of Prismatic's HiBob connector and of the
 * api-evangelist description of Bob's authentication (docs/hibob.md §7).
 */
export const HIBOB_TOKEN_DEFAULT = 'https://auth.app.hibob.com/oauth2/v1/apps/token';

/**
 * [kit decision] A base URL of Bob's, as the operator sets it: `https`, or `http` on a loopback
 * address (the mock, a sandbox, the tests) whatever PUBLIC_URL is — the operator's word, never a
 * caller's: nothing Bob sends names a host. No user name or password, query or fragment; a path is
 * kept (Bob's `/v1`, a proxy's prefix), without its trailing slashes.
 */
const BobUrl = (what: string) =>
  z
    .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' })
    .superRefine((value, ctx) => {
      if (!URL.canParse(value)) return;
      const url = new URL(value);
      if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not hold a user name or password' });
      if (url.search || url.hash) ctx.addIssue({ code: 'custom', message: 'must not hold a query or a fragment' });
      if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
        ctx.addIssue({ code: 'custom', message: `must be https: ${what} (plain http is allowed only on a loopback address)` });
      }
    })
    .transform((value) => {
      const url = new URL(value);
      return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    });

/** A secret Bob's Developer Portal gives the vendor: kept as set, surrounding spaces aside; blank is unset. */
const Secret = z
  .string()
  .trim()
  .max(4096)
  .optional()
  .transform((value) => value || undefined);

/** HiBob's settings (.env.example, docs/configuration.md, docs/hibob.md §7). */
export const HibobSettings = z
  .object({
    HIBOB_API_URL: z.string().trim().default(HIBOB_API_DEFAULT).pipe(BobUrl("each company's access token travels with every call")),
    HIBOB_TOKEN_URL: z.string().trim().default(HIBOB_TOKEN_DEFAULT).pipe(BobUrl('the client secret and the tokens travel with every call')),
    HIBOB_CLIENT_ID: Secret,
    HIBOB_CLIENT_SECRET: Secret,
    HIBOB_WEBHOOK_SECRET: Secret,
  })
  .transform((s) => ({
    apiUrl: s.HIBOB_API_URL,
    tokenUrl: s.HIBOB_TOKEN_URL,
    clientId: s.HIBOB_CLIENT_ID,
    clientSecret: s.HIBOB_CLIENT_SECRET,
    webhookSecret: s.HIBOB_WEBHOOK_SECRET,
    /** The settings HiBob cannot work without that are not set: while any is, its routes answer 503 and its workers do nothing. */
    missing: [
      ...(s.HIBOB_CLIENT_ID ? [] : ['HIBOB_CLIENT_ID']),
      ...(s.HIBOB_CLIENT_SECRET ? [] : ['HIBOB_CLIENT_SECRET']),
      ...(s.HIBOB_WEBHOOK_SECRET ? [] : ['HIBOB_WEBHOOK_SECRET']),
    ],
  }));
export type HibobSettings = z.output<typeof HibobSettings>;

/** The settings of a HiBob that is configured: the app's credentials and the webhook secret are all set. */
export type ConfiguredHibob = HibobSettings & { clientId: string; clientSecret: string; webhookSecret: string };

export const isConfigured = (s: HibobSettings): s is ConfiguredHibob => s.missing.length === 0;

/** Why HiBob's routes answer 503: the settings to set, named. */
export const notConfiguredMessage = (s: HibobSettings): string =>
  `HiBob is not configured on this partner: set ${s.missing.join(', ')} (docs/hibob.md)`;
