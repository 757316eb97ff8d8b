import express, { type RequestHandler, type Router } from 'express';
import { z } from 'zod';
import type { Clock } from '../../../../lib/clock.js';
import { WEBHOOK_SIGNATURE_HEADER } from '../../../../contract/decisions.js';
import { WebhookEnvelope, text } from '../../../../contract/schemas.js';
import { verifyWebhookSignature } from '../../../../contract/signature.js';
import type { Sql } from '../../../../lib/sql.js';
import { badRequest, notFound, unauthorized, unprocessable } from '../../../../lib/errors.js';
import type { Logger } from '../../../../lib/http/logger.js';
import { parseOr422 } from '../../../../lib/http/validate.js';
import { webhookInbox } from './inbox.js';
import type { WebhookSecrets } from './secrets.js';

/** [kit decision] Where the platform delivers; each company's configuration points at `{path}/{company_id}`. */
export const WEBHOOK_PATH = '/webhooks/platform';

export interface WebhookReceiverDeps {
  sql: Sql;
  clock: Clock;
  logger: Logger;
  /** The secrets of each company's webhook configuration (two during a rotation). */
  secrets: WebhookSecrets;
  /** Largest body accepted; events are small JSON documents. */
  bodyLimitBytes: number;
  /** Told after an event was stored, so the processor need not wait for its next poll. */
  onStored?: () => void;
  path?: string;
}

/**
 * [seed, platform-contract.md §6.1] The test request a configuration must answer 200 before it exists. The platform sends
 * it before the configuration, and so its secret, has been created: the partner cannot know that
 * secret yet, so this exact body is answered 200 without a signature check. It is recognised on
 * the raw bytes (no JSON parsing before the signature check), carries no data and triggers nothing.
 */
const TEST_PING = /^\s*\{\s*"test"\s*:\s*true\s*\}\s*$/;

/**
 * The envelope as received: platform-contract.md §6.2, but event types and subtypes the kit does not know yet are
 * accepted (and recorded) rather than refused — refusing would only make the platform retry them
 * for four days.
 */
const ReceivedEnvelope = WebhookEnvelope.extend({
  created_at: text().min(1).max(64),
  event_type: text().min(1).max(100),
  event_subtype: text().min(1).max(100),
});
const CompanyOfPayload = z.object({ company: z.object({ id: z.number() }).optional() });

/**
 * `POST {path}/{company_id}`: the platform's webhooks, in a fixed order (architecture principle 8):
 *
 *   1. the raw body, on this route only, up to `bodyLimitBytes` (413);
 *   2. the test ping `{"test": true}` → 200 (see TEST_PING);
 *   3. `X-Service-Signature` over those bytes with the company's secrets, constant time → 401 for
 *      anything else: missing, empty, wrong length, not hex, wrong secret, unknown company;
 *   4. JSON (400) — a signed body with `"test": true` (a "test payload") → 200, nothing stored;
 *   5. the envelope (422), and a payload naming another company than the URL (422);
 *   6. dedupe on the company and event id and store, in one statement → 200 (a duplicate: 200,
 *      nothing new);
 *   7. handling happens after the answer, by the processor, from the `webhook_inbox` table.
 */
export function registerWebhookReceiver(app: Router, deps: WebhookReceiverDeps): void {
  const { logger, secrets } = deps;
  const inbox = webhookInbox(deps.sql, deps.clock);
  // The exact bytes sent, whatever their declared type: anything that changes a byte (decoding,
  // decompressing) would break the signature, so a compressed body is refused (415).
  const rawBody = express.raw({ type: () => true, limit: deps.bodyLimitBytes, inflate: false });

  const receive: RequestHandler = async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const companyParam = String(req.params.companyId);
    if (!/^[1-9]\d{0,15}$/.test(companyParam)) throw notFound();
    const companyId = Number(companyParam);

    if (raw.length <= 64 && TEST_PING.test(raw.toString('latin1'))) return void res.json({ ok: true });

    const known = secrets(companyId);
    if (!verifyWebhookSignature(known, raw, req.headers[WEBHOOK_SIGNATURE_HEADER])) {
      if (known.length === 0) logger.warn({ companyId }, 'webhook for a company without a configured secret (WEBHOOK_SECRETS)');
      throw unauthorized('Invalid signature');
    }

    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw badRequest('Malformed JSON body');
    }
    if ((body as { test?: unknown } | null)?.test === true) return void res.json({ ok: true });

    const envelope = parseOr422(ReceivedEnvelope, body);
    const named = CompanyOfPayload.safeParse(envelope.payload);
    if (named.success && named.data.company && named.data.company.id !== companyId) {
      throw unprocessable('payload.company.id is not the company of this webhook URL', {
        'payload.company.id': [`must be ${companyId}, the company in the URL`],
      });
    }

    const stored = await inbox.receive({
      id: envelope.id,
      companyId,
      eventType: envelope.event_type,
      eventSubtype: envelope.event_subtype,
      occurredAt: envelope.created_at,
      attemptCount: envelope.attempt_count,
      payload: envelope.payload,
    });
    res.json(stored ? { ok: true } : { ok: true, duplicate: true });
    if (stored) deps.onStored?.();
  };

  app.post(`${deps.path ?? WEBHOOK_PATH}/:companyId`, rawBody, receive);
}
