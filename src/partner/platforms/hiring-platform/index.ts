import { reportKnown } from '../../updates/policy.js';
import { definePlatform, type PlatformDefinition } from '../platform.js';
import { hiringPlatformApi } from './api.js';
import { CALLBACKS_PATH, cancelPath, HIRING_PLATFORM, registerCallbacks } from './callbacks.js';
import { NO_SECRET, reportUpdateRequest } from './delivery.js';
import { HiringPlatformSettings } from './settings.js';
import type { WebhookHandler } from './webhooks/handlers/index.js';
import { webhookProcessor } from './webhooks/processor.js';
import { registerWebhookReceiver, WEBHOOK_PATH } from './webhooks/receiver.js';
import { webhookSecrets } from './webhooks/secrets.js';

export interface HiringPlatformOptions {
  /** By webhook event type; the kit's handlers (`defaultWebhookHandlers`) when not given. */
  webhookHandlers?: Readonly<Record<string, WebhookHandler>>;
}

/**
 * The hiring platform of docs/platform-contract.md: the partner answers its callbacks
 * (validate_token, tests, send_candidate, cancel) and its signed webhooks, and PATCHes its reports
 * with the partner secret. The invitation e-mail waits for the platform's first acceptance of a
 * report update ("the platform first", updates/policy.ts).
 */
export function hiringPlatform(options: HiringPlatformOptions = {}): PlatformDefinition<HiringPlatformSettings> {
  const WEBHOOKS = 'webhook processor';
  return definePlatform({
    name: HIRING_PLATFORM,
    label: 'Hiring platform',
    settings: HiringPlatformSettings,
    api: hiringPlatformApi(),
    create: ({ config, settings, publicUrl }) => ({
      name: HIRING_PLATFORM,
      label: 'Hiring platform',
      emailAfterAcceptance: true,
      home: {
        endpoints: {
          validate_token: `${publicUrl}${CALLBACKS_PATH}/validate_token`,
          tests: `${publicUrl}${CALLBACKS_PATH}/tests`,
          send_candidate: `${publicUrl}${CALLBACKS_PATH}/send_candidate`,
          cancel: `${publicUrl}${cancelPath('{report_id}')}`,
          webhooks: `${publicUrl}${WEBHOOK_PATH}/{company_id}`,
        },
        settings: { integrations_url: settings.url, codename: settings.codename },
      },
      mount(router, context) {
        const { core, provider } = context;
        registerCallbacks(router, {
          accounts: core.accounts,
          invitations: core.invitations,
          createInvitation: context.createInvitation,
          lifecycle: core.lifecycle,
          provider,
          bodyLimitBytes: context.bodyLimitBytes,
          onInvitationCreated: context.onInvitationCreated,
        });
        // Signed webhooks: raw body and signature before anything else; handled after the answer.
        registerWebhookReceiver(router, {
          sql: context.sql,
          clock: context.clock,
          logger: context.logger,
          secrets: webhookSecrets(settings.webhooks.secrets),
          bodyLimitBytes: settings.webhooks.bodyLimitBytes,
          onStored: () => context.kick(WEBHOOKS),
        });
      },
      deliveryRequest: (target, update) => reportUpdateRequest({ ...settings, publicUrl, kind: config.kind }, target, update),
      deliveriesWaiting: () => (settings.secret ? undefined : NO_SECRET),
      judgeAnswer: ({ status }) => ({ report: reportKnown(status) }),
      workers(context) {
        const processor = webhookProcessor({
          sql: context.sql,
          clock: context.clock,
          logger: context.logger,
          handlers: options.webhookHandlers,
          leaseMs: config.jobLeaseMs,
          cancelInvitation: (reportId) => context.core.lifecycle.cancel(reportId, 'platform'),
        });
        return [{ name: WEBHOOKS, runOnce: (stopping) => processor.runOnce(stopping) }];
      },
    }),
  });
}
