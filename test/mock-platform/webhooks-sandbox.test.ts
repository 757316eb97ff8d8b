import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ACME,
  ADA,
  BACKEND_OFFER,
  HANA,
  RILEY,
  webhookEndpoint,
  webhookPlatform,
  type WebhookEndpoint,
  type WebhookPlatform,
} from '../webhooks/mock-harness.js';

let platform: WebhookPlatform;
let endpoint: WebhookEndpoint;

beforeEach(async () => {
  platform = webhookPlatform();
  endpoint = await webhookEndpoint(platform.clock);
});
afterEach(() => endpoint.close());

/** Posts a form, follows the redirect and returns the page it lands on. */
async function submit(path: string, form: Record<string, string | string[]>) {
  const posted = await request(platform.app).post(path).type('form').send(form).expect(303);
  return request(platform.app).get(posted.headers.location as string).expect(200);
}
const page = (path: string) => request(platform.app).get(path).expect(200);

describe('sandbox: webhooks page', () => {
  it.each([`/companies/${ACME}/webhooks`, `/companies/${ACME}/webhooks?as=${RILEY}`, `/companies/${ACME}/webhooks?as=${HANA}`])(
    '%s renders under the default CSP, without scripts',
    async (path) => {
      const res = await page(path);
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.text).not.toMatch(/<script|\son[a-z]+=/i);
    },
  );

  it('asks who is acting, and refuses a member without "Manage webhooks"', async () => {
    expect((await page(`/companies/${ACME}/webhooks`)).text).toContain('Choose who you are');
    const hana = await page(`/companies/${ACME}/webhooks?as=${HANA}`);
    expect(hana.text).toContain('Managing webhooks requires the &quot;Manage webhooks&quot; ability');
    expect(hana.text).not.toContain('Add a webhook');
    const refused = await submit(`/companies/${ACME}/webhooks`, { user_id: String(HANA), name: 'X', url: endpoint.url });
    expect(refused.text).toMatch(/flash-error[^>]*>\s*Managing webhooks requires/);
    expect(endpoint.received).toHaveLength(0);
  });

  it('creates a configuration after the test request, shows its secret, and reports a URL that fails the test', async () => {
    const created = await submit(`/companies/${ACME}/webhooks`, {
      user_id: String(RILEY),
      name: 'Skill <Check>',
      url: endpoint.url,
      events: ['candidate_moved', 'candidate_deleted'],
      notify_user_ids: String(RILEY),
    });
    expect(created.text).toContain('Webhook &quot;Skill &lt;Check&gt;&quot; was created');
    expect(created.text).toContain(platform.secrets[0]);
    expect(created.text).toContain('candidate_moved, candidate_deleted');

    endpoint.answerTest(404);
    const failed = await submit(`/companies/${ACME}/webhooks`, { user_id: String(RILEY), name: 'Broken', url: endpoint.url });
    expect(failed.text).toContain('The URL must answer the test request with 200; it answered HTTP 404');
  });

  it('the candidate page disqualifies; the delivery shows in the log with "retry now" and "cancel retry"', async () => {
    endpoint.answer(500, 'nope');
    await platform.configure(ACME, RILEY, { url: endpoint.url, events: ['candidate_moved'] });
    const candidate = await submit(`/companies/${ACME}/candidates/${ADA}/placements/${BACKEND_OFFER}/disqualify`, { reason_id: '3' });
    expect(candidate.text).toContain('Disqualified for Senior Backend Engineer: Position filled.');
    await platform.webhooks.deliverer.runOnce();

    const webhooksPage = await page(`/companies/${ACME}/webhooks?as=${RILEY}`);
    expect(webhooksPage.text).toContain('candidate_moved/disqualified');
    expect(webhooksPage.text).toContain('Retry now');
    expect(webhooksPage.text).toContain('Cancel retry');
    const deliveryId = /deliveries\/(\d+)\/retry/.exec(webhooksPage.text)![1]!;

    const retried = await submit(`/companies/${ACME}/webhooks/deliveries/${deliveryId}/retry`, { user_id: String(RILEY) });
    expect(retried.text).toContain('will be retried now');
    await platform.webhooks.deliverer.runOnce();
    expect(endpoint.events().map((r) => r.body.attempt_count)).toEqual([1, 2]);

    const canceled = await submit(`/companies/${ACME}/webhooks/deliveries/${deliveryId}/cancel`, { user_id: String(RILEY) });
    expect(canceled.text).toContain('will not be retried');
    expect(platform.webhooks.store.delivery(ACME, Number(deliveryId))!.status).toBe('canceled');

    const requestId = /webhooks\/requests\/(\d+)\?as=/.exec(canceled.text)![1]!;
    const detail = await page(`/companies/${ACME}/webhooks/requests/${requestId}?as=${RILEY}`);
    expect(detail.text).toContain('x-service-signature');
    const headers = /<pre class="headers">([^<]*)<\/pre>/.exec(detail.text)![1]!.split('\n');
    expect(headers.length).toBeGreaterThan(2);
    for (const line of headers) expect(line).toMatch(/^[a-z0-9-]+: \S/);
    expect(headers.some((line) => line.startsWith('x-service-signature: '))).toBe(true);
    expect(detail.text).toContain('&quot;event_type&quot;:&quot;candidate_moved&quot;');
    expect(detail.text).toContain('nope');
    await request(platform.app).get(`/companies/${ACME}/webhooks/requests/${requestId}?as=${HANA}`).expect(403);
  });

  it('sends a test payload and says what the URL answered', async () => {
    const webhook = await platform.configure(ACME, RILEY, { url: endpoint.url });
    const res = await submit(`/companies/${ACME}/webhooks/${webhook.id}/test-payload`, { user_id: String(RILEY), event_type: 'offer_updated' });
    expect(res.text).toContain('Test payload (offer_updated) sent: the URL answered HTTP 200.');
    expect(endpoint.received.at(-1)!.body).toMatchObject({ test: true, event_type: 'offer_updated' });
  });

  it('the company page publishes an offer and the candidate page deletes a candidate, each with its event', async () => {
    const company = await submit(`/companies/${ACME}/offers/104/status`, { status: 'published' });
    expect(company.text).toContain('The offer was published.');
    const deleted = await submit(`/companies/${ACME}/candidates/${ADA}/delete`, {});
    expect(deleted.text).toContain('Ada Lovelace was deleted.');
    expect(platform.webhooks.store.events(ACME, 2).map((e) => e.eventType)).toEqual(['candidate_deleted', 'offer_published']);
  });
});
