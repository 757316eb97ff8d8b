// examples/adapting/own-product.ts — the candidate takes the test in your product, which reports back.
import { defaultWebhookHandlers, type Provider, type ProviderKit, type ProviderTest, type WebhookHandler } from '../../src/partner/index.js';

// Read as the module loads: every entry point reads .env before it imports this module.
const PRODUCT_URL = process.env.PRODUCT_URL ?? 'https://api.my-product.example';

const myProduct = (kit: ProviderKit): Provider => ({
  kind: kit.kind,
  listTests: async () => (await (await fetch(`${PRODUCT_URL}/api/tests`)).json()) as ProviderTest[],
  async startInvitation(invitation) {
    // Your product must give the same test for a report_id it has seen: the kit retries failed starts.
    const res = await fetch(`${PRODUCT_URL}/api/assessments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        report_id: invitation.reportId,
        test_id: invitation.testId,
        email: invitation.candidate.email,
        results_url: `${kit.publicUrl}/vendor/reports/${invitation.reportId}/result`,
      }),
    });
    if (!res.ok) throw new Error(`my product answered ${res.status}`); // retried with backoff
    return { candidateUrl: ((await res.json()) as { url: string }).url };
  },
  // A cancel from the platform, the dashboard or a webhook: close the test's link in your product.
  async cancelInvitation(invitation) {
    const res = await fetch(`${PRODUCT_URL}/api/assessments/${invitation.reportId}/cancel`, { method: 'POST' });
    if (!res.ok) throw new Error(`my product answered ${res.status}`); // retried with backoff
  },
});

export default myProduct;
export const webhookHandlers: Readonly<Record<string, WebhookHandler>> = {
  ...defaultWebhookHandlers,
  new_candidate: (event) => `seen candidate event ${event.id}`,
};
// The result: your product POSTs it to results_url, signed (docs/results-endpoint.md) — or, from
// code in this process: await kit.reports.complete(reportId, { score: '87%', subtitle: '13 of 15' }).
