/**
 * The entry point of a fork whose product hosts its tests: `npx tsx examples/hosted-provider/server.ts`
 * with PRODUCT_URL and VENDOR_RESULTS_SECRET set (and the kit's usual settings).
 */
import { runPartner } from '../../src/partner/index.js';
import { hostedProvider } from './provider.js';

await runPartner({ provider: hostedProvider({ productUrl: process.env.PRODUCT_URL ?? 'http://127.0.0.1:5000', apiKey: process.env.PRODUCT_API_KEY }) });
