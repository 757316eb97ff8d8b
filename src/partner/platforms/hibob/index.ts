import { fileURLToPath } from 'node:url';
import { definePlatform, type PlatformDefinition } from '../platform.js';
import { hibobApi } from './api.js';
import { bobApi } from './api-client.js';
import { catalogQueue, catalogWorker } from './catalog.js';
import { hibobDelivery } from './delivery.js';
import { hibobInbox } from './inbox.js';
import { CALLBACK_PATH, CATALOG_WORKER, mountInstall } from './install.js';
import { hibobProcessor } from './processor.js';
import { HibobSettings, isConfigured } from './settings.js';
import { bobTokens, HIBOB } from './tokens.js';
import { mountWebhooks, PROCESSOR_WORKER, WEBHOOKS_PATH } from './webhooks.js';

/** HiBob's tables: its webhook inbox and its catalog queue (docs/hibob.md §8). */
export const HIBOB_MIGRATIONS = {
  dir: fileURLToPath(new URL('./migrations/', import.meta.url)),
  postgresDir: fileURLToPath(new URL('./migrations-postgres/', import.meta.url)),
};

/**
 * HiBob (Bob), through its Hiring Assessments API (docs/hibob.md): a platform of the other shape.
 * A company installs the vendor's app from Bob's marketplace (the OAuth callback); the partner
 * registers that company's catalog with Bob; Bob pushes each order as a signed webhook, whose
 * details the partner reads from Bob; the result goes back by Bob's update-status PATCH — each call
 * with that company's own OAuth tokens, kept as its connection's sealed credential.
 *
 * Until HIBOB_CLIENT_ID, HIBOB_CLIENT_SECRET and HIBOB_WEBHOOK_SECRET are all set its routes answer
 * 503 naming what is missing (but for the pages and the listener check that need nothing), and it
 * has no workers: nothing else of the partner changes.
 */
export function hibobPlatform(): PlatformDefinition<HibobSettings> {
  return definePlatform({
    name: HIBOB,
    label: 'HiBob',
    settings: HibobSettings,
    migrations: HIBOB_MIGRATIONS,
    api: hibobApi(),
    credential: { label: 'Bob OAuth tokens', required: true },
    create: ({ config, settings, publicUrl, connections, sql, clock, logger }) => {
      const tokens = bobTokens({ settings, connections, clock, logger, redirectUri: `${publicUrl}${CALLBACK_PATH}` });
      tokens.bind(sql);
      const api = bobApi({ settings, tokens });
      const delivery = hibobDelivery({ settings, tokens, localOnly: config.localOnly });
      return {
        name: HIBOB,
        label: 'HiBob',
        emailAfterAcceptance: false,
        home: {
          endpoints: { oauth_callback: `${publicUrl}${CALLBACK_PATH}`, webhooks: `${publicUrl}${WEBHOOKS_PATH}` },
          settings: {
            api_url: settings.apiUrl,
            token_url: settings.tokenUrl,
            configured: isConfigured(settings) ? 'yes' : `no: ${settings.missing.join(', ')} not set`,
          },
        },
        mount(router, context) {
          mountInstall(router, { context, settings, tokens, queue: catalogQueue(context.sql, context.clock), partnerName: config.partnerName });
          mountWebhooks(router, { context, settings, inbox: hibobInbox(context.sql, context.clock) });
        },
        // Set in part, it is most likely a mistake: said once at start-up, not only by each 503.
        warnings: () =>
          settings.missing.length > 0 && settings.missing.length < 3
            ? [`HiBob is configured in part: ${settings.missing.join(', ')} not set, so its routes answer 503 and nothing is sent to Bob until they are`]
            : [],
        deliveryRequest: delivery.deliveryRequest,
        judgeAnswer: delivery.judgeAnswer,
        details: hibobDetails,
        workers(context) {
          if (!isConfigured(settings)) return [];
          const processor = hibobProcessor({ context, api, inbox: hibobInbox(context.sql, context.clock), leaseMs: config.jobLeaseMs });
          const catalog = catalogWorker({ context, api, queue: catalogQueue(context.sql, context.clock), leaseMs: config.jobLeaseMs });
          return [
            { name: PROCESSOR_WORKER, runOnce: (stopping) => processor.runOnce(stopping) },
            { name: CATALOG_WORKER, runOnce: (stopping) => catalog.runOnce(stopping) },
          ];
        },
      };
    },
  });
}

/** What the dashboard shows of a Bob order: the company, the job opening, who ordered it, the package. */
function hibobDetails(data: Readonly<Record<string, unknown>>): { label: string; value: string }[] {
  const text = (key: string) => (typeof data[key] === 'string' && data[key] !== '' ? (data[key] as string) : undefined);
  const requester = [text('requester_name'), text('requester_email') && `<${text('requester_email')}>`].filter(Boolean).join(' ');
  const job = [text('job_opening_title'), text('job_opening_id') && `(${text('job_opening_id')})`].filter(Boolean).join(' ');
  return [
    ...(text('company_id') ? [{ label: 'Bob company', value: text('company_id')! }] : []),
    ...(job ? [{ label: 'Job opening', value: job }] : []),
    ...(requester ? [{ label: 'Ordered by', value: requester }] : []),
    ...(text('package_id') ? [{ label: 'Package', value: text('package_id')! }] : []),
  ];
}
