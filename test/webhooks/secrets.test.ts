import { describe, expect, it } from 'vitest';
import { WebhookSecretsSetting, webhookSecrets } from '../../src/partner/platforms/hiring-platform/webhooks/secrets.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);

describe('WEBHOOK_SECRETS', () => {
  it('maps each company to its secrets, two during a rotation', () => {
    const parsed = WebhookSecretsSetting.parse(` 1:${A}, 1:${B} ,2:${C},`);
    const secrets = webhookSecrets(parsed);
    expect(secrets(1)).toEqual([A, B]);
    expect(secrets(2)).toEqual([C]);
    expect(secrets(3)).toEqual([]);
  });

  it('is empty when unset', () => {
    expect(WebhookSecretsSetting.parse('').size).toBe(0);
  });

  it('reports every bad entry at once, without echoing any secret', () => {
    const result = WebhookSecretsSetting.safeParse(`x:${A},0:${A},1:short,${A},2:${A},2:${B},2:${C}`);
    expect(result.success).toBe(false);
    const messages = result.error!.issues.map((i) => i.message);
    expect(messages).toEqual([
      'each entry must be <company_id>:<secret> with a positive integer company id',
      'each entry must be <company_id>:<secret> with a positive integer company id',
      'the secret for company 1 must be at least 16 characters',
      'each entry must be <company_id>:<secret> with a positive integer company id',
      'company 2 has 3 secrets; at most 2 (the current one and, during a rotation, the previous one)',
    ]);
    for (const m of messages) {
      expect(m).not.toContain(A);
      expect(m).not.toContain('short');
    }
  });
});
