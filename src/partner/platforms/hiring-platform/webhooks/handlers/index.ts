import { candidateDeleted } from './candidate-deleted.js';
import { candidateMoved } from './candidate-moved.js';
import type { WebhookHandler } from './types.js';

export type { CancelInvitation, HandlerContext, WebhookHandler } from './types.js';

/**
 * The handlers the kit ships, by event type. Events without one (new_candidate,
 * candidate_assigned, the offer events, and types the platform may add) are recorded for the
 * dashboard by `recordEvent`. A fork passes its own map to `startPartner({ webhookHandlers })`,
 * spreading these (`defaultWebhookHandlers` in src/partner/index.ts) to add or replace one.
 */
export const DEFAULT_HANDLERS: Readonly<Record<string, WebhookHandler>> = {
  candidate_deleted: candidateDeleted,
  candidate_moved: candidateMoved,
};

/** Nothing to do but keep the event in the list the dashboard shows. */
export const recordEvent: WebhookHandler = (event) => `recorded (${event.eventSubtype})`;
