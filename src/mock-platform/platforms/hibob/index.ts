import { fileURLToPath } from 'node:url';
import { definePlatformPlugin } from '../plugin.js';
import { BOB_CALLS, bobClient } from './client.js';
import { bobOAuth } from './oauth.js';
import { registerBobPages } from './pages.js';
import { bobRouter } from './routes.js';
import { bobScript } from './script.js';
import { BOB_APP, BOB_CANDIDATES, BOB_COMPANY, seedHibob } from './seed.js';
import { bob as createBob, BOB_API_PATH, BOB_TOKEN_PATH, KIT_CALLBACK_PATH, KIT_WEBHOOKS_PATH } from './service.js';
import { bobStore } from './store.js';
import { bobDeliverer } from './webhooks.js';

/**
 * The mock playing HiBob's Bob (docs/hibob.md), a platform that pushes its orders: Vandelay
 * Industries and Kramerica, whose HR system is Bob, with job openings and candidates; the
 * assessment vendor's app as Bob's Developer Portal holds it (redirect URI, webhook listener, the
 * sandbox's client and webhook secret); the marketplace install that sends the browser to the
 * partner's OAuth callback with a one-time code; the token URL (RFC 6749 grants, rotating refresh
 * tokens) and the four Assessments API endpoints, each scoped to the company whose token it
 * carries; the catalog the vendor registers, the orders and cancels a recruiter makes, each a
 * signed webhook (`Bob-Signature`) retried on Bob's schedule by its worker on the mock's clock; and
 * the status, score and result link the vendor's PATCHes report, on the candidates' pages under
 * `/hibob/companies/{id}`.
 */
export const hibobPlugin = definePlatformPlugin({
  name: 'hibob',
  label: 'HiBob',
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  views: fileURLToPath(new URL('./views/', import.meta.url)),
  callbacks: BOB_CALLS,
  seed: seedHibob,

  create(setup) {
    const store = bobStore(setup.db, setup.clock);
    const oauth = bobOAuth({ store, clock: setup.clock });
    const client = bobClient({ calls: setup.calls, timeoutMs: setup.callbackTimeoutMs, dispatcher: setup.dispatcher, faults: setup.faults });
    const deliverer = bobDeliverer({ store, client, clock: setup.clock, logger: setup.logger });
    const bob = createBob({ store, oauth, client, deliverer, clock: setup.clock, waitMs: setup.callbackTimeoutMs });
    return {
      mount(router) {
        router.use(bobRouter({ bob, oauth, endpoint: setup.endpoint, bodyLimitBytes: setup.bodyLimitBytes }));
      },
      pages(router, kit) {
        registerBobPages(router, kit, { bob, store, publicUrl: setup.publicUrl });
      },
      home: () => ({
        title: 'HiBob',
        intro: "The same mock also plays HiBob's Bob, whose companies install an assessment vendor's app and push it their orders as signed webhooks",
        partnerPaths: `${KIT_CALLBACK_PATH}, ${KIT_WEBHOOKS_PATH}`,
        cards: store.companies().map((c) => ({
          href: `/hibob/companies/${c.id}`,
          name: c.name,
          detail: `Bob company ${c.id} · ${c.installedAt ? `installed ${store.app().name ?? "the vendor's app"}` : "the vendor's app not installed"}`,
        })),
      }),
      script: bobScript({ bob, store }),
      worker: deliverer.worker,
    };
  },

  dev: {
    // The partner exchanges codes and calls Bob's API on the mock, as the sandbox's app.
    partnerSettings: (mockUrl) => ({
      HIBOB_API_URL: `${mockUrl}${BOB_API_PATH}`,
      HIBOB_TOKEN_URL: `${mockUrl}${BOB_TOKEN_PATH}`,
      HIBOB_CLIENT_ID: BOB_APP.clientId,
      HIBOB_CLIENT_SECRET: BOB_APP.clientSecret,
      HIBOB_WEBHOOK_SECRET: BOB_APP.webhookSecret,
    }),
    banner({ mockUrl, partnerName, connected }) {
      const company = `${mockUrl}/hibob/companies/${BOB_COMPANY.id}`;
      const candidate = BOB_CANDIDATES[0];
      return {
        link: { label: 'Bob company', url: company },
        steps: [
          connected.ok
            ? `On Bob, ${BOB_COMPANY.name} (Bob company ${BOB_COMPANY.id}) has installed ${partnerName}'s app (install it again from ${company}/marketplace):`
            : `Installing ${partnerName}'s app for the Bob company ${BOB_COMPANY.name} failed: ${connected.message}`,
          `  1. Open ${company}: the catalog ${partnerName} registered for it is the tests of the account the install reached —`,
          `     the one an operator linked to Bob company ${BOB_COMPANY.id} beforehand, else a new account "Bob company ${BOB_COMPANY.id}".`,
          `  2. Open ${company}/candidates/${candidate.id} (${candidate.firstName} ${candidate.lastName}), pick a package and click "Order assessment":`,
          `     Bob signs an assessment.triggered webhook to ${partnerName}, which reads the order's details and invites the candidate.`,
          '  3. Take the test from the invitation: the PATCH shows the status, the score and the results link there; "Cancel',
          '     assessment" sends assessment.cancelled. A failed webhook is retried 1, 10, 20, 40, 80 and 160 minutes later on the',
          `     mock's clock (POST ${mockUrl}/_mock/clock {"advance": "10m"}).`,
        ],
      };
    },
  },
});
