import { fileURLToPath } from 'node:url';
import { definePlatformPlugin } from '../plugin.js';
import { GREENHOUSE_CALLS, greenhouseClient } from './client.js';
import { registerGreenhousePages } from './pages.js';
import { greenhouseRouter } from './routes.js';
import { greenhouseScript } from './script.js';
import { GREENHOUSE_CANDIDATES, GREENHOUSE_COMPANY, seedGreenhouse } from './seed.js';
import { greenhouse as createGreenhouse } from './service.js';
import { greenhouseStore } from './store.js';

/**
 * The mock playing Greenhouse (docs/greenhouse.md): the company Initech, whose ATS is Greenhouse,
 * its partner's key and four URLs, its jobs, stages and candidates, and the tests it sends; the
 * calls Greenhouse makes to the partner, with Basic auth, read as Greenhouse reads them; the
 * partner's PATCH; the pages under `/greenhouse/companies/{id}`.
 */
export const greenhousePlugin = definePlatformPlugin({
  name: 'greenhouse',
  label: 'Greenhouse',
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  views: fileURLToPath(new URL('./views/', import.meta.url)),
  callbacks: GREENHOUSE_CALLS,
  seed: seedGreenhouse,

  create(setup) {
    const store = greenhouseStore(setup.db, setup.clock);
    const greenhouse = createGreenhouse({
      store,
      client: greenhouseClient({ calls: setup.calls, timeoutMs: setup.callbackTimeoutMs, dispatcher: setup.dispatcher, faults: setup.faults }),
      publicUrl: setup.publicUrl,
      onBackgroundError: (err, testId) => setup.logger.error({ err, testId }, 'Greenhouse status check failed'),
    });
    return {
      mount(router) {
        router.use(greenhouseRouter({ greenhouse, endpoint: setup.endpoint, bodyLimitBytes: setup.bodyLimitBytes }));
      },
      pages(router, kit) {
        registerGreenhousePages(router, kit, { greenhouse, store });
      },
      home: () => ({
        title: 'Greenhouse',
        intro: 'The same mock also plays Greenhouse, whose partners answer its Assessment Partner API',
        partnerPaths: '/greenhouse/…',
        cards: store.companies().map((c) => {
          const partner = store.partner(c.id);
          return {
            href: `/greenhouse/companies/${c.id}`,
            name: c.name,
            detail: `Greenhouse company ${c.id} · ${partner ? `partner: ${partner.name}` : 'no partner configured'}`,
          };
        }),
      }),
      script: greenhouseScript({ greenhouse, store }),
    };
  },

  // `npm run dev` connects Initech with `connect`: the partner's base URL, the demo token as its key.
  dev: {
    banner({ mockUrl, partnerName, connected }) {
      const company = `${mockUrl}/greenhouse/companies/${GREENHOUSE_COMPANY.id}`;
      const candidate = GREENHOUSE_CANDIDATES[0];
      return {
        link: { label: 'Greenhouse company', url: company },
        steps: [
          connected.ok
            ? `On Greenhouse, ${GREENHOUSE_COMPANY.name} has configured ${partnerName} (its /greenhouse/ endpoints, the same token as API key):`
            : `Configuring the Greenhouse company ${GREENHOUSE_COMPANY.name} failed: ${connected.message}`,
          `  1. Open ${company}, click "List tests" and pick one for the Take-Home Test stage.`,
          `  2. Open ${company}/candidates/${candidate.id} (${candidate.firstName} ${candidate.lastName}) and click "Send Test".`,
          '  3. Take the test from the invitation: the partner PATCHes the mock, which reads test_status and',
          '     shows the score, the results link and the metadata ("Check status now" reads it again).',
        ],
      };
    },
  },
});
