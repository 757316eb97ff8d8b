/**
 * Your provider: this folder, src/provider/, is yours, and the kit never changes it. Every entry
 * point runs this module — `npm start` and the Docker image, `npm run dev`, `npm run accounts` — after
 * reading `.env`. Import the kit through its public entry, `../partner/index.js`, only (and the test
 * harness, `../testing/index.js`, from your tests here: `*.test.ts` beside this file).
 *
 * Exports (docs/adapting.md):
 * - `default` — your provider: a `Provider`, or a factory `(kit: ProviderKit) => Provider`;
 * - `webhookHandlers` (optional) — `{ ...defaultWebhookHandlers, new_candidate: mine }`;
 * - `routes` (optional) — `(router, { reports, sql, clock, logger }) => …`, mounted after the kit's.
 *
 * As shipped, it hands on the kit's demo quiz: replace the line below with your own provider.
 */
import { demoProvider } from '../partner/index.js';

export default demoProvider();
