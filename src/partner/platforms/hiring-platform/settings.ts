import { z } from 'zod';
import { Codename } from '../../../contract/schemas.js';
import { PARTNER_DEFAULTS } from '../../defaults.js';
import { WebhookSecretsSetting } from './webhooks/secrets.js';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' });

/**
 * The hiring platform's settings (.env.example, docs/configuration.md): where its reports API is,
 * the partner's codename and secret there, and its webhooks' secrets.
 */
export const HiringPlatformSettings = z
  .object({
    /** The platform's integrations base URL; report updates go to {PLATFORM_URL}/api/p/{codename}/reports/{id}. */
    PLATFORM_URL: httpUrl.default(PARTNER_DEFAULTS.PLATFORM_URL),
    /** This partner's codename on the platform (as registered). */
    PARTNER_CODENAME: Codename.default(PARTNER_DEFAULTS.PARTNER_CODENAME),
    /** The partner secret returned on registration (RT-PARTNER-SECRET). Unset: report updates wait. */
    PARTNER_SECRET: z.string().trim().min(1).optional(),
    /** The secret of each platform company's webhook configuration: <company_id>:<secret>,… (two per company during a rotation). */
    WEBHOOK_SECRETS: z.string().default('').pipe(WebhookSecretsSetting),
    /** Largest webhook body accepted, in bytes. */
    WEBHOOK_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10 * 1024 * 1024).default(256 * 1024),
  })
  .transform((s) => ({
    url: s.PLATFORM_URL.replace(/\/+$/, ''),
    codename: s.PARTNER_CODENAME,
    /** undefined until the partner is registered: report updates wait, and the dashboard says why. */
    secret: s.PARTNER_SECRET,
    webhooks: { secrets: s.WEBHOOK_SECRETS, bodyLimitBytes: s.WEBHOOK_BODY_LIMIT_BYTES },
  }));
export type HiringPlatformSettings = z.output<typeof HiringPlatformSettings>;
