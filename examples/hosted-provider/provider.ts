import type { Provider, ProviderFactory, ProviderKit } from '../../src/partner/index.js';

/**
 * A provider for a product that hosts its tests itself. The kit never shows the test: it asks the
 * product to create one for each invitation and e-mails the candidate the product's link; the
 * product posts the result back to `POST {PUBLIC_URL}/vendor/reports/{report_id}/result`, signed
 * with VENDOR_RESULTS_SECRET over "<t>.<report_id>.<raw body>" (docs/results-endpoint.md).
 *
 * The product's API, as this example assumes it (replace it with yours):
 *   GET  {productUrl}/api/tests                   → [{"id": "js", "name": "JavaScript"}]
 *   POST {productUrl}/api/assessments  {report_id, test_id, candidate, results_url}
 *                                                 → {"url": "https://…"} — the same test again for
 *                                                   a report_id it already has (the kit may retry)
 *   POST {productUrl}/api/assessments/{report_id}/cancel
 *                                                 → 2xx: the test's link closes; the same answer
 *                                                   again for a test already canceled (the kit may retry)
 */
export function hostedProvider(options: { productUrl: string; apiKey?: string }): ProviderFactory {
  const api = async (path: string, body?: unknown) => {
    const res = await fetch(`${options.productUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', ...(options.apiKey && { authorization: `Bearer ${options.apiKey}` }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    // Thrown: the kit retries the start with backoff, and the dashboard shows the error.
    if (!res.ok) throw new Error(`${path}: the product answered ${res.status}`);
    return res.status === 204 ? undefined : res.json();
  };

  return (kit: ProviderKit): Provider => ({
    kind: kit.kind,

    async listTests() {
      return (await api('/api/tests')) as { id: string; name: string }[];
    },

    async startInvitation(invitation) {
      const { url } = (await api('/api/assessments', {
        report_id: invitation.reportId,
        test_id: invitation.testId,
        candidate: { first_name: invitation.candidate.firstName, last_name: invitation.candidate.lastName, email: invitation.candidate.email },
        results_url: `${kit.publicUrl}/vendor/reports/${invitation.reportId}/result`,
      })) as { url: string };
      return { candidateUrl: url };
    },

    // A cancel on the platform, on the dashboard or by a webhook: the product closes the link.
    async cancelInvitation(invitation) {
      await api(`/api/assessments/${encodeURIComponent(invitation.reportId)}/cancel`, {});
    },
  });
}
