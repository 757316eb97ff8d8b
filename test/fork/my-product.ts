/**
 * A fork's module, as a vendor writes it: everything it needs comes from the kit's public entry
 * point, and nothing of the kit is edited. The product is an in-memory stand-in for a vendor's
 * service: it keeps the tests, hands out links to its own pages, and pushes results in process.
 */
import { defaultWebhookHandlers, type Provider, type ProviderKit, type ReportOutcome, type WebhookHandler } from '../../src/partner/index.js';

export interface MyProduct {
  provider: (kit: ProviderKit) => Provider;
  webhookHandlers: Readonly<Record<string, WebhookHandler>>;
  /** The candidates the platform told us about (our own `new_candidate` handler). */
  seenCandidates: number[];
  /** The candidate finished in our product: the result goes to the platform through the kit. */
  finish(reportId: string, percent: number): Promise<ReportOutcome>;
}

export function myProduct(): MyProduct {
  let reports: ProviderKit['reports'] | undefined;
  const seenCandidates: number[] = [];
  return {
    seenCandidates,
    provider: (kit) => {
      reports = kit.reports;
      return {
        kind: kit.kind,
        listTests: async () => [
          { id: 'typing', name: 'Typing speed' },
          { id: 'excel', name: 'Spreadsheets' },
        ],
        startInvitation: async (invitation) => ({ candidateUrl: `https://my-product.example/take/${invitation.reportId}` }),
      };
    },
    webhookHandlers: {
      ...defaultWebhookHandlers,
      new_candidate: (event) => {
        const payload = event.payload as { candidate?: { id?: unknown } } | null;
        if (typeof payload?.candidate?.id === 'number') seenCandidates.push(payload.candidate.id);
        return `noted candidate ${String(payload?.candidate?.id)}`;
      },
    },
    async finish(reportId, percent) {
      if (!reports) throw new Error('the partner has not started yet');
      const result = { score: `${percent}%`, subtitle: `Typing speed: ${percent} of 100`, properties: [{ label: 'Words per minute', value: String(percent) }] };
      return percent >= 50 ? reports.complete(reportId, result) : reports.fail(reportId, result);
    },
  };
}
