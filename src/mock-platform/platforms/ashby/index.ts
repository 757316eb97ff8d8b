import { fileURLToPath } from 'node:url';
import { definePlatformPlugin } from '../plugin.js';
import { ASHBY_CALLS, ashbyClient } from './client.js';
import { partnerJson, registerAshbyPages } from './pages.js';
import { ashbyRouter } from './routes.js';
import { ashbyScript } from './script.js';
import { ASHBY_CANDIDATES, ASHBY_COMPANY, seedAshby } from './seed.js';
import { ASHBY_API_PATH, ashby as createAshby } from './service.js';
import { ashbyStore } from './store.js';

/**
 * The mock playing Ashby (docs/ashby.md): the company Hooli, whose ATS is Ashby, the partner it
 * connected and the Ashby API key it issued for it, its jobs, stages, candidates and their
 * applications, and the assessments it starts; the calls Ashby makes to the partner
 * (`assessment.list`, `assessment.start`, `assessment.cancel`, Basic with the customer's key), read
 * as Ashby reads them; the partner's `assessment.update` (Basic with the company's Ashby API key);
 * the pages under `/ashby/companies/{id}`.
 */
export const ashbyPlugin = definePlatformPlugin({
  name: 'ashby',
  label: 'Ashby',
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  views: fileURLToPath(new URL('./views/', import.meta.url)),
  callbacks: ASHBY_CALLS,
  seed: seedAshby,

  create(setup) {
    const store = ashbyStore(setup.db, setup.clock);
    const ashby = createAshby({
      store,
      client: ashbyClient({ calls: setup.calls, timeoutMs: setup.callbackTimeoutMs, dispatcher: setup.dispatcher, faults: setup.faults }),
      publicUrl: setup.publicUrl,
    });
    return {
      mount(router) {
        router.use(ashbyRouter({ ashby, faults: setup.faults, endpoint: setup.endpoint, bodyLimitBytes: setup.bodyLimitBytes }));
      },
      pages(router, kit) {
        registerAshbyPages(router, kit, { ashby, store, publicUrl: setup.publicUrl });
      },
      home: () => ({
        title: 'Ashby',
        intro: 'The same mock also plays Ashby, whose assessment partners answer its Assessments Partner API',
        partnerPaths: '/ashby/assessment.*',
        cards: store.companies().map((c) => {
          const partner = store.partner(c.id);
          return {
            href: `/ashby/companies/${c.id}`,
            name: c.name,
            detail: `Ashby company ${c.id} · ${partner ? `partner: ${partnerJson(partner).name}` : 'no partner connected'}`,
          };
        }),
      }),
      script: ashbyScript({ ashby, store }),
    };
  },

  dev: {
    // The partner posts assessment.update to the mock, with the key `connect` hands back.
    partnerSettings: (mockUrl) => ({ ASHBY_API_URL: `${mockUrl}${ASHBY_API_PATH}` }),
    banner({ mockUrl, partnerName, connected }) {
      const company = `${mockUrl}/ashby/companies/${ASHBY_COMPANY.id}`;
      const candidate = ASHBY_CANDIDATES[0];
      return {
        link: { label: 'Ashby company', url: company },
        steps: [
          connected.ok
            ? `On Ashby, ${ASHBY_COMPANY.name} has connected ${partnerName} (its /ashby/ endpoints, the same token as API key), and the demo account holds ${ASHBY_COMPANY.name}'s Ashby API key:`
            : `Connecting the Ashby company ${ASHBY_COMPANY.name} failed: ${connected.message}`,
          `  1. Open ${company}, click "List assessments" and pick one for a Technical Assessment stage.`,
          `  2. Open ${company}/candidates/${candidate.id} (${candidate.firstName} ${candidate.lastName}) and click "Start assessment".`,
          `  3. Take the test from the invitation: the partner posts assessment.update to ${mockUrl}${ASHBY_API_PATH}, and the`,
          '     candidate\'s page shows the status, the score and the profile link ("Cancel assessment" calls assessment.cancel).',
        ],
      };
    },
  },
});
