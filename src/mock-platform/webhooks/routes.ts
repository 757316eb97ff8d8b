import { Router, type Request } from 'express';
import { z } from 'zod';
import { IntegerId } from '../../contract/schemas.js';
import { notFound } from '../../lib/errors.js';
import { jsonBody } from '../body-readers.js';
import { parseOr422 } from '../../lib/http/validate.js';
import type { CompanyStore } from '../companies/store.js';
import { companyIdParam, idParam } from '../path-params.js';
import { TestPayloadInput, WebhookInput, WebhookPatch, type WebhookConfigurations } from './configurations.js';
import type { Delivery, StoredEvent, WebhookConfig, WebhookRequest, WebhookStore } from './store.js';

/** [kit decision] The sandbox has no login: API callers name the acting member in this header. */
export const ACTING_USER_HEADER = 'x-mock-user';

const DeliveryQuery = z.object({
  webhook_id: IntegerId.optional(),
  event_id: IntegerId.optional(),
  status: z.enum(['pending', 'delivered', 'failed', 'canceled']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});
const RequestQuery = z.object({
  webhook_id: IntegerId.optional(),
  delivery_id: IntegerId.optional(),
  event_id: IntegerId.optional(),
  kind: z.enum(['event', 'test', 'test_payload']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/**
 * `/api/webhooks/c/{company_id}/…`: webhook management as a JSON API. Every route needs the acting
 * member (`X-Mock-User: <user id>`) to have "Manage webhooks" [seed, platform-contract.md §1.1]: 401 without the header,
 * 403 for a non-member or a member without the ability.
 *
 *   GET    configurations                      list (with secrets: the member manages them)
 *   POST   configurations                      {name, url, events?, notify_user_ids?} — 422 unless the URL answers the test request 200
 *   GET    configurations/{id}
 *   PATCH  configurations/{id}                 {name?, url?, events?, notify_user_ids?} — a new URL is tested first
 *   DELETE configurations/{id}
 *   POST   configurations/{id}/secret          a new secret
 *   POST   configurations/{id}/test-payload    {event_type?} — an example event plus "test": true
 *   GET    events                              the company's events, newest first
 *   GET    deliveries?webhook_id&event_id&status&limit
 *   POST   deliveries/{id}/retry               "retry now"
 *   POST   deliveries/{id}/cancel              "cancel retry"
 *   GET    requests?webhook_id&delivery_id&event_id&kind&limit   the request log (30 days)
 *   GET    requests/{id}
 */
export function webhooksRouter(deps: {
  configurations: WebhookConfigurations;
  store: WebhookStore;
  companies: CompanyStore;
  bodyLimitBytes: number;
  /** After "retry now": the worker looks at once. */
  kick: () => void;
}): Router {
  const { configurations, store, companies } = deps;
  const router = Router();
  const json = jsonBody(deps.bodyLimitBytes);

  const companyId = companyIdParam(companies);
  const actor = (req: Request): number | undefined => {
    const value = req.headers[ACTING_USER_HEADER];
    return typeof value === 'string' && /^[1-9]\d{0,15}$/.test(value.trim()) ? Number(value.trim()) : undefined;
  };
  /** The company, once the acting member may manage its webhooks. */
  const authorized = (req: Request): number => {
    const company = companyId(req);
    configurations.authorize(company, actor(req));
    return company;
  };
  const id = (req: Request, name: string, what: string): number => {
    const value = idParam(req, name);
    if (value === undefined) throw notFound(`Unknown ${what}`);
    return value;
  };

  router.get('/c/:companyId/configurations', (req, res) => {
    res.json({ webhooks: configurations.list(companyId(req), actor(req)).map(webhookJson) });
  });

  router.post('/c/:companyId/configurations', json, async (req, res) => {
    const company = authorized(req);
    const input = parseOr422(WebhookInput, req.body ?? {});
    res.status(201).json({ webhook: webhookJson(await configurations.create(company, actor(req), input)) });
  });

  router.get('/c/:companyId/configurations/:id', (req, res) => {
    res.json({ webhook: webhookJson(configurations.get(companyId(req), actor(req), id(req, 'id', 'webhook'))) });
  });

  router.patch('/c/:companyId/configurations/:id', json, async (req, res) => {
    const company = authorized(req);
    const patch = parseOr422(WebhookPatch, req.body ?? {});
    res.json({ webhook: webhookJson(await configurations.update(company, actor(req), id(req, 'id', 'webhook'), patch)) });
  });

  router.delete('/c/:companyId/configurations/:id', (req, res) => {
    configurations.remove(companyId(req), actor(req), id(req, 'id', 'webhook'));
    res.status(204).end();
  });

  router.post('/c/:companyId/configurations/:id/secret', (req, res) => {
    res.json({ webhook: webhookJson(configurations.rotateSecret(companyId(req), actor(req), id(req, 'id', 'webhook'))) });
  });

  router.post('/c/:companyId/configurations/:id/test-payload', json, async (req, res) => {
    const company = authorized(req);
    const input = parseOr422(TestPayloadInput, req.body ?? {});
    const sent = await configurations.testPayload(company, actor(req), id(req, 'id', 'webhook'), input.event_type);
    res.json({ request: requestJson(sent) });
  });

  router.get('/c/:companyId/events', (req, res) => {
    const company = authorized(req);
    res.json({ events: store.events(company).map(eventJson) });
  });

  router.get('/c/:companyId/deliveries', (req, res) => {
    const company = authorized(req);
    const q = parseOr422(DeliveryQuery, req.query);
    res.json({
      deliveries: store
        .deliveries(company, { webhookId: q.webhook_id, eventId: q.event_id, status: q.status, limit: q.limit })
        .map(deliveryJson),
    });
  });

  router.post('/c/:companyId/deliveries/:id/retry', (req, res) => {
    const delivery = configurations.retryNow(companyId(req), actor(req), id(req, 'id', 'delivery'));
    deps.kick();
    res.status(202).json({ delivery: deliveryJson(delivery) });
  });

  router.post('/c/:companyId/deliveries/:id/cancel', (req, res) => {
    res.json({ delivery: deliveryJson(configurations.cancelRetry(companyId(req), actor(req), id(req, 'id', 'delivery'))) });
  });

  router.get('/c/:companyId/requests', (req, res) => {
    const company = authorized(req);
    const q = parseOr422(RequestQuery, req.query);
    res.json({
      requests: store
        .requests(company, { webhookId: q.webhook_id, deliveryId: q.delivery_id, eventId: q.event_id, kind: q.kind, limit: q.limit })
        .map(requestJson),
    });
  });

  router.get('/c/:companyId/requests/:id', (req, res) => {
    const company = authorized(req);
    const found = store.request(company, id(req, 'id', 'request'));
    if (!found) throw notFound('Unknown request');
    res.json({ request: requestJson(found) });
  });

  return router;
}

export function webhookJson(w: WebhookConfig) {
  return {
    id: w.id,
    name: w.name,
    url: w.url,
    events: w.events,
    secret: w.secret,
    notify_user_ids: w.recipients,
    created_by: w.createdBy,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

export function deliveryJson(d: Delivery) {
  return {
    id: d.id,
    event_id: d.eventId,
    webhook_id: d.webhookId,
    event_type: d.eventType,
    event_subtype: d.eventSubtype,
    status: d.status,
    attempt_count: d.attemptCount,
    next_attempt_at: d.nextAttemptAt,
    rate_limited: d.rateLimited,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

export function requestJson(r: WebhookRequest) {
  return {
    id: r.id,
    kind: r.kind,
    webhook_id: r.webhookId,
    delivery_id: r.deliveryId,
    event_id: r.eventId,
    attempt_count: r.attemptCount,
    url: r.url,
    request_headers: r.requestHeaders,
    body: r.body,
    response_status: r.responseStatus,
    response_body: r.responseBody,
    error: r.error,
    duration_ms: r.durationMs,
    started_at: r.startedAt,
    finished_at: r.finishedAt,
    next_attempt_at: r.nextAttemptAt,
  };
}

function eventJson(e: StoredEvent) {
  return { id: e.id, event_type: e.eventType, event_subtype: e.eventSubtype, created_at: e.createdAt, payload: e.payload };
}
