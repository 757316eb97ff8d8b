import { z } from 'zod';

/**
 * The webhook secrets the partner knows, per platform company. The platform generates one secret
 * per webhook configuration, and each customer company creates its own configuration, so a secret
 * is only ever valid for the company it came from: a request is verified against the secrets of
 * the company its URL names, never against every secret the partner holds.
 */
export type WebhookSecrets = (companyId: number) => readonly string[];

/** A company's current secret and, during a rotation, the previous one. */
export const MAX_SECRETS_PER_COMPANY = 2;
const MIN_SECRET_LENGTH = 16;

/**
 * `WEBHOOK_SECRETS`: comma-separated `<company_id>:<secret>` pairs, e.g.
 * `1:3f9c…,1:77ab…,2:e01d…` (company 1 in the middle of a rotation). Empty: no webhooks are
 * accepted (test requests still get their 200). Parses to company id → secrets.
 */
export const WebhookSecretsSetting = z.string().transform((value, ctx) => {
  const secrets = new Map<number, string[]>();
  for (const entry of value.split(',').map((e) => e.trim()).filter(Boolean)) {
    const colon = entry.indexOf(':');
    const companyId = colon === -1 ? NaN : Number(entry.slice(0, colon).trim());
    const secret = colon === -1 ? '' : entry.slice(colon + 1).trim();
    // Never echo the entry: it holds a secret.
    if (!Number.isSafeInteger(companyId) || companyId <= 0 || !/^\d+$/.test(entry.slice(0, colon).trim())) {
      ctx.addIssue({ code: 'custom', message: 'each entry must be <company_id>:<secret> with a positive integer company id' });
      continue;
    }
    if (secret.length < MIN_SECRET_LENGTH) {
      ctx.addIssue({ code: 'custom', message: `the secret for company ${companyId} must be at least ${MIN_SECRET_LENGTH} characters` });
      continue;
    }
    const list = secrets.get(companyId) ?? [];
    if (!list.includes(secret)) list.push(secret);
    secrets.set(companyId, list);
  }
  for (const [companyId, list] of secrets) {
    if (list.length > MAX_SECRETS_PER_COMPANY) {
      ctx.addIssue({
        code: 'custom',
        message: `company ${companyId} has ${list.length} secrets; at most ${MAX_SECRETS_PER_COMPANY} (the current one and, during a rotation, the previous one)`,
      });
    }
  }
  return secrets;
});

/** Secrets from a parsed `WEBHOOK_SECRETS` (or any map a fork builds from its own store). */
export function webhookSecrets(byCompany: ReadonlyMap<number, readonly string[]>): WebhookSecrets {
  return (companyId) => byCompany.get(companyId) ?? [];
}
