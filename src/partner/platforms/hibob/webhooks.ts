import express, { type Request, type Response, type Router } from 'express';
import { AppError, badRequest, unauthorized } from '../../../lib/errors.js';
import { parseOr422 } from '../../../lib/http/validate.js';
import type { PlatformContext } from '../platform.js';
import type { HibobInbox } from './inbox.js';
import { isConfigured, notConfiguredMessage, type HibobSettings } from './settings.js';
import { BOB_SIGNATURE_HEADER, verifyBobSignature } from './signature.js';
import { BobEvent, EVENT_TYPES, EventType } from './wire.js';

/** The one listener URL the vendor gives Bob's Developer Portal for all its customers. */
export const WEBHOOKS_PATH = '/hibob/webhooks';
/** The worker that handles stored events, woken after one is stored. */
export const PROCESSOR_WORKER = 'HiBob webhook processor';

/**
 * [kit decision] Bob's listener check: a body with no event in it — empty, the text `Ping test`,
 * or `{"text": "Ping test"}` (HiBob's "Working with webhooks") — answered 200 before anything else,
 * unsigned and even while HiBob is not configured: the Developer Portal checks the listener when
 * its URL is entered, before the vendor has the secret to set. It stores and triggers nothing.
 */
const PING = /^\s*(?:"?Ping test"?|\{\s*"text"\s*:\s*"Ping test"\s*\})?\s*$/;

/**
 * `POST {PUBLIC_URL}/hibob/webhooks`: Bob's events for every installed company (docs/hibob.md §5),
 * in this order:
 *
 *   1. the raw body, on this route only, up to BODY_LIMIT_BYTES (413), uncompressed (415);
 *   2. a ping → 200 `{ok: true}`;
 *   3. HiBob not configured → 503, naming the settings to set;
 *   4. `Bob-Signature` over those bytes (signature.ts) → 401 for anything else, nothing stored;
 *   5. JSON (400); a type the kit does not handle → 200 `{ok: true, ignored: true}`; an assessment
 *      event that is not as wire.ts `BobEvent` → 422;
 *   6. stored once per assessment request and event type → 200 `{ok: true}` (a duplicate:
 *      `{ok: true, duplicate: true}`, nothing new) — one insert, well within Bob's 10 s;
 *   7. handled after the answer, by the processor (processor.ts).
 */
export function mountWebhooks(router: Router, deps: { context: PlatformContext; settings: HibobSettings; inbox: HibobInbox }): void {
  const { context, settings, inbox } = deps;
  // The exact bytes Bob signed: nothing may decode or decompress them first.
  const rawBody = express.raw({ type: () => true, limit: context.bodyLimitBytes, inflate: false });

  router.post(WEBHOOKS_PATH, rawBody, async (req: Request, res: Response) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (raw.length <= 64 && PING.test(raw.toString('latin1'))) return void res.json({ ok: true });
    if (!isConfigured(settings)) throw new AppError(503, 'service_unavailable', notConfiguredMessage(settings));
    if (!verifyBobSignature(settings.webhookSecret, raw, req.headers[BOB_SIGNATURE_HEADER])) {
      context.logger.warn({ bytes: raw.length, signed: req.headers[BOB_SIGNATURE_HEADER] !== undefined }, 'a HiBob webhook was refused: its Bob-Signature is missing or wrong');
      throw unauthorized('Invalid signature');
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw badRequest('Malformed JSON body');
    }
    const typed = EventType.safeParse(body);
    if (!typed.success || !(EVENT_TYPES as readonly string[]).includes(typed.data.type)) {
      context.logger.info({ type: typed.success ? typed.data.type : undefined }, 'a HiBob webhook of a type the kit does not handle was ignored');
      return void res.json({ ok: true, ignored: true });
    }
    const event = parseOr422(BobEvent, body);
    const stored = await inbox.receive({
      assessmentRequestId: event.data.assessmentRequestId,
      eventType: event.type,
      companyId: event.companyId,
      triggeredAt: event.triggeredAt ?? null,
    });
    context.logger.info(
      { assessmentRequestId: event.data.assessmentRequestId, eventType: event.type, companyId: event.companyId, duplicate: !stored },
      'HiBob webhook received',
    );
    res.json(stored ? { ok: true } : { ok: true, duplicate: true });
    if (stored) context.kick(PROCESSOR_WORKER);
  });
}
