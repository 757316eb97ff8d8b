import type { Request, Router } from 'express';
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../contract/decisions.js';
import { AppError, notFound } from '../../lib/errors.js';
import { parseOr422 } from '../../lib/http/validate.js';
import type { CompanyStore } from '../companies/store.js';
import { idParam, param } from '../path-params.js';
import { WebhookInput } from '../webhooks/configurations.js';
import type { MockWebhooks } from '../webhooks/index.js';
import type { PageKit } from './page-kit.js';
import { pretty } from './pretty.js';

const EVENT_TYPES = Object.keys(WEBHOOK_EVENT_TYPES) as WebhookEventType[];
const formId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** A form's repeated field: absent, one value or several. */
const many = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(item).max(100));

const ActingForm = z.object({ user_id: formId });
const WebhookForm = z.object({
  name: z.string(),
  url: z.string(),
  events: many(z.string()),
  notify_user_ids: many(z.string()),
});
const TestPayloadForm = z.object({ event_type: z.enum(EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]]) });

/**
 * The company's webhook settings in the sandbox: configurations, "test payload", the request log
 * with "retry now" and "cancel retry". There is no login, so the page asks who is acting (`?as=`)
 * and every form carries that member; a member without "Manage webhooks" is refused as the API
 * refuses them.
 */
export function registerWebhookPages(router: Router, kit: PageKit, deps: { companies: CompanyStore; webhooks: MockWebhooks }): void {
  const { companies, webhooks } = deps;
  const { configurations, store } = webhooks;
  const { render, act, companyOf } = kit;

  const actingFromQuery = (req: Request): number | undefined => {
    const as = req.query.as;
    return typeof as === 'string' && /^[1-9]\d{0,15}$/.test(as) ? Number(as) : undefined;
  };
  const actingFromForm = (req: Request): number => parseOr422(ActingForm, req.body).user_id;
  const back = (req: Request) => {
    const userId = (req.body as { user_id?: unknown } | undefined)?.user_id;
    const as = typeof userId === 'string' && /^[1-9]\d{0,15}$/.test(userId) ? `?as=${userId}` : '';
    return `/companies/${param(req, 'companyId')}/webhooks${as}`;
  };
  const id = (req: Request, name: string, what: string): number => {
    const value = idParam(req, name);
    if (value === undefined) throw notFound(`Unknown ${what}`);
    return value;
  };
  const webhookInput = (req: Request) => {
    const form = parseOr422(WebhookForm, req.body);
    return parseOr422(WebhookInput, { ...form, notify_user_ids: form.notify_user_ids });
  };

  router.get('/companies/:companyId/webhooks', (req, res) => {
    const company = companyOf(req);
    const members = companies.users(company.id).map((u) => ({ ...u, canManage: store.member(company.id, u.id)?.canManageWebhooks ?? false }));
    const acting = actingFromQuery(req);
    let refusal: string | undefined;
    if (acting !== undefined) {
      try {
        configurations.authorize(company.id, acting);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        refusal = err.message;
      }
    }
    const allowed = acting !== undefined && refusal === undefined;
    render(req, res, './webhooks', {
      title: `${company.name}: webhooks`,
      company,
      members,
      acting,
      refusal,
      allowed,
      eventTypes: EVENT_TYPES,
      memberName: (userId: number) => members.find((m) => m.id === userId)?.name ?? `#${userId}`,
      webhooks: allowed ? store.configs(company.id) : [],
      webhookName: (webhookId: number | null) =>
        webhookId === null ? '—' : (store.config(company.id, webhookId)?.name ?? `#${webhookId} (deleted)`),
      deliveries: allowed ? store.deliveries(company.id, { limit: 50 }) : [],
      requests: allowed ? store.requests(company.id, { limit: 50 }) : [],
    });
  });

  router.get('/companies/:companyId/webhooks/requests/:id', (req, res) => {
    const company = companyOf(req);
    const acting = actingFromQuery(req);
    configurations.authorize(company.id, acting);
    const request = store.request(company.id, id(req, 'id', 'request'));
    if (!request) throw notFound('Unknown request');
    render(req, res, './webhook-request', { title: `Webhook request ${request.id}`, company, acting, request, pretty });
  });

  router.post(
    '/companies/:companyId/webhooks',
    act(back, async (req) => {
      const company = companyOf(req);
      const created = await configurations.create(company.id, actingFromForm(req), webhookInput(req));
      return { kind: 'notice', text: `Webhook "${created.name}" was created: its URL answered the test request with 200.` };
    }),
  );

  router.post(
    '/companies/:companyId/webhooks/:id/edit',
    act(back, async (req) => {
      const company = companyOf(req);
      const updated = await configurations.update(company.id, actingFromForm(req), id(req, 'id', 'webhook'), webhookInput(req));
      return { kind: 'notice', text: `Webhook "${updated.name}" was saved.` };
    }),
  );

  router.post(
    '/companies/:companyId/webhooks/:id/delete',
    act(back, async (req) => {
      const company = companyOf(req);
      configurations.remove(company.id, actingFromForm(req), id(req, 'id', 'webhook'));
      return { kind: 'notice', text: 'The webhook was deleted; its pending deliveries were canceled.' };
    }),
  );

  router.post(
    '/companies/:companyId/webhooks/:id/secret',
    act(back, async (req) => {
      const company = companyOf(req);
      const updated = configurations.rotateSecret(company.id, actingFromForm(req), id(req, 'id', 'webhook'));
      return { kind: 'notice', text: `Webhook "${updated.name}" has a new secret; requests are signed with it from now on.` };
    }),
  );

  router.post(
    '/companies/:companyId/webhooks/:id/test-payload',
    act(back, async (req) => {
      const company = companyOf(req);
      const { event_type } = parseOr422(TestPayloadForm, req.body);
      const sent = await configurations.testPayload(company.id, actingFromForm(req), id(req, 'id', 'webhook'), event_type);
      const answer = sent.responseStatus !== null ? `answered HTTP ${sent.responseStatus}` : `failed: ${sent.error}`;
      return { kind: sent.responseStatus === 200 ? 'notice' : 'error', text: `Test payload (${event_type}) sent: the URL ${answer}.` };
    }),
  );

  router.post(
    '/companies/:companyId/webhooks/deliveries/:id/retry',
    act(back, async (req) => {
      const company = companyOf(req);
      const delivery = configurations.retryNow(company.id, actingFromForm(req), id(req, 'id', 'delivery'));
      webhooks.kick();
      return { kind: 'notice', text: `Delivery ${delivery.id} (event ${delivery.eventId}) will be retried now.` };
    }),
  );

  router.post(
    '/companies/:companyId/webhooks/deliveries/:id/cancel',
    act(back, async (req) => {
      const company = companyOf(req);
      const delivery = configurations.cancelRetry(company.id, actingFromForm(req), id(req, 'id', 'delivery'));
      return { kind: 'notice', text: `Delivery ${delivery.id} (event ${delivery.eventId}) will not be retried.` };
    }),
  );
}
