import type { WebhookEventType } from '../contract/decisions.js';

/**
 * The hook through which the mock's state changes become webhook events (platform-contract.md §6.4). Whoever changes
 * state (careers applications, pipeline moves, offer edits) calls `emit`; the webhook delivery
 * module implements it by storing the event and delivering it to every configuration of the
 * company that selected the event type. `noEvents` is for code paths and tests without webhooks.
 */
export interface PlatformEvents {
  emit(companyId: number, eventType: WebhookEventType, eventSubtype: string, payload: Record<string, unknown>): void;
}

export const noEvents: PlatformEvents = { emit() {} };
