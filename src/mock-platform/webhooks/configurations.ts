import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../../lib/clock.js';
import { isoAt } from '../../lib/clock.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../contract/decisions.js';
import { IntegerId } from '../../contract/schemas.js';
import { WEBHOOK_TEST_BODY } from '../../contract/webhook-payloads.js';
import { AppError, conflict, forbidden, notFound, unprocessable } from '../../lib/errors.js';
import { exampleEvent } from './examples.js';
import { signedRequest, type WebhookSender } from './sender.js';
import type { Delivery, RequestKind, WebhookConfig, WebhookRequest, WebhookStore } from './store.js';

const EVENT_TYPES = Object.keys(WEBHOOK_EVENT_TYPES) as [WebhookEventType, ...WebhookEventType[]];

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * [seed, platform-contract.md §6.4] An HTTPS POST URL. Plain http is accepted for loopback hosts only [kit decision: the
 * sandbox delivers to a partner running on the same machine].
 */
export const WebhookUrl = z
  .string()
  .trim()
  .max(2000, 'must be at most 2000 characters')
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an absolute https URL' }))
  .refine((url) => {
    // zod runs this even after the URL check failed; that failure is already reported.
    if (!URL.canParse(url)) return true;
    const u = new URL(url);
    return u.protocol !== 'http:' || LOOPBACK_HOSTS.test(u.hostname);
  }, 'must be an https URL (plain http only for localhost)');

export const WebhookInput = z.object({
  name: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
  url: WebhookUrl,
  /** May be empty: a configuration can exist before it listens to anything [seed, platform-contract.md §6.4]. */
  events: z.array(z.enum(EVENT_TYPES)).max(EVENT_TYPES.length * 2).default([]),
  notify_user_ids: z.array(IntegerId).max(100).default([]),
});
export type WebhookInput = z.output<typeof WebhookInput>;
export const WebhookPatch = WebhookInput.partial();
export type WebhookPatch = z.output<typeof WebhookPatch>;
export const TestPayloadInput = z.object({ event_type: z.enum(EVENT_TYPES).optional() });

/**
 * What a member with "Manage webhooks" does [seed, platform-contract.md §1.1, §6.4, §6.1]. Every method takes the acting
 * member and checks the ability first. A configuration is stored only after its URL answered the
 * test request `{"test":true}` — signed with the configuration's new secret — with exactly 200.
 */
export function webhookConfigurations(deps: { store: WebhookStore; send: WebhookSender; clock: Clock; generateSecret?: () => string }) {
  const { store, send, clock } = deps;
  const generateSecret = deps.generateSecret ?? (() => randomBytes(32).toString('hex'));

  /** The acting member must belong to the company and have the ability. */
  function authorize(companyId: number, userId: number | undefined): number {
    if (userId === undefined) {
      throw new AppError(401, 'unauthorized', 'Say which member is acting: the X-Mock-User header (a user id)');
    }
    const member = store.member(companyId, userId);
    if (!member) throw forbidden(`User ${userId} is not a member of this company`);
    if (!member.canManageWebhooks) throw forbidden('Managing webhooks requires the "Manage webhooks" ability');
    return userId;
  }

  const checkRecipients = (companyId: number, userIds: readonly number[]) => {
    const strangers = userIds.filter((id) => !store.member(companyId, id));
    if (strangers.length) {
      throw unprocessable(`notify_user_ids ${strangers.join(', ')} are not members of this company`, {
        notify_user_ids: strangers.map((id) => `${id} is not a member of this company`),
      });
    }
  };

  async function request(
    companyId: number,
    webhookId: number | null,
    kind: RequestKind,
    url: string,
    secret: string,
    body: string,
  ): Promise<WebhookRequest> {
    const req = signedRequest(secret, body);
    const startedAt = clock.now();
    const outcome = await send(url, req);
    return store.logRequest({
      companyId, webhookId, deliveryId: null, eventId: null, kind, attemptCount: null, url,
      requestHeaders: req.headers, body, startedAt, ...outcome,
    });
  }

  /** The test request; a 422 naming what the URL answered unless that was a 200. */
  async function verify(companyId: number, webhookId: number | null, url: string, secret: string): Promise<void> {
    const test = await request(companyId, webhookId, 'test', url, secret, WEBHOOK_TEST_BODY);
    if (test.responseStatus === 200) return;
    const answer = test.responseStatus !== null ? `answered HTTP ${test.responseStatus}` : `could not be reached (${test.error})`;
    const message = `The URL must answer the test request with 200; it ${answer}`;
    throw unprocessable(message, { url: [message] });
  }

  const find = (companyId: number, id: number): WebhookConfig => {
    const config = store.config(companyId, id);
    if (!config) throw notFound('Unknown webhook');
    return config;
  };
  const findDelivery = (companyId: number, id: number): Delivery => {
    const delivery = store.delivery(companyId, id);
    if (!delivery) throw notFound('Unknown delivery');
    return delivery;
  };

  return {
    authorize,

    list(companyId: number, userId: number | undefined): WebhookConfig[] {
      authorize(companyId, userId);
      return store.configs(companyId);
    },

    get(companyId: number, userId: number | undefined, id: number): WebhookConfig {
      authorize(companyId, userId);
      return find(companyId, id);
    },

    async create(companyId: number, userId: number | undefined, input: WebhookInput): Promise<WebhookConfig> {
      const actor = authorize(companyId, userId);
      checkRecipients(companyId, input.notify_user_ids);
      const secret = generateSecret();
      await verify(companyId, null, input.url, secret);
      return store.createConfig({
        companyId,
        name: input.name,
        url: input.url,
        events: [...new Set(input.events)],
        secret,
        recipients: input.notify_user_ids,
        createdBy: actor,
      });
    },

    /** A new URL is tested like a new configuration; nothing changes unless it answers 200. */
    async update(companyId: number, userId: number | undefined, id: number, patch: WebhookPatch): Promise<WebhookConfig> {
      authorize(companyId, userId);
      const config = find(companyId, id);
      if (patch.notify_user_ids) checkRecipients(companyId, patch.notify_user_ids);
      if (patch.url !== undefined && patch.url !== config.url) await verify(companyId, id, patch.url, config.secret);
      return store.updateConfig({
        ...find(companyId, id),
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.url !== undefined && { url: patch.url }),
        ...(patch.events !== undefined && { events: [...new Set(patch.events)] }),
        ...(patch.notify_user_ids !== undefined && { recipients: patch.notify_user_ids }),
      });
    },

    remove(companyId: number, userId: number | undefined, id: number): void {
      authorize(companyId, userId);
      store.deleteConfig(find(companyId, id));
    },

    /** A new secret; requests from now on (retries included) are signed with it. */
    rotateSecret(companyId: number, userId: number | undefined, id: number): WebhookConfig {
      authorize(companyId, userId);
      return store.setSecret(find(companyId, id), generateSecret());
    },

    /** "Test payload": an example event of the chosen type plus `"test": true`, signed; not retried. */
    async testPayload(companyId: number, userId: number | undefined, id: number, eventType?: WebhookEventType): Promise<WebhookRequest> {
      authorize(companyId, userId);
      const config = find(companyId, id);
      const company = store.company(companyId)!;
      const type = eventType ?? config.events[0] ?? 'new_candidate';
      const body = JSON.stringify(exampleEvent(company, type, isoAt(clock.now())));
      return request(companyId, id, 'test_payload', config.url, config.secret, body);
    },

    /**
     * "Retry now": sent by the worker at once. A pending delivery then follows its schedule; a
     * given-up or canceled one gets this one attempt and, if it fails, stays given up or canceled.
     */
    retryNow(companyId: number, userId: number | undefined, deliveryId: number): Delivery {
      authorize(companyId, userId);
      const delivery = findDelivery(companyId, deliveryId);
      if (delivery.status === 'delivered') throw conflict('This delivery succeeded; there is nothing to retry');
      return store.retryNow(delivery);
    },

    /** "Cancel retry": no further automatic attempts. */
    cancelRetry(companyId: number, userId: number | undefined, deliveryId: number): Delivery {
      authorize(companyId, userId);
      const delivery = findDelivery(companyId, deliveryId);
      if (delivery.status !== 'pending') throw conflict(`This delivery is ${delivery.status}; there is no retry to cancel`);
      return store.cancel(delivery);
    },
  };
}
export type WebhookConfigurations = ReturnType<typeof webhookConfigurations>;
