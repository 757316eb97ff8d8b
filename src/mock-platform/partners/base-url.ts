import type { StoredPartner } from './store.js';

/**
 * Where a registered partner's server is, as far as the platform can tell: the address its
 * callbacks hang from. The kit's partner registers `{PUBLIC_URL}/callbacks/validate_token`, so that
 * is `{PUBLIC_URL}`; a partner whose callbacks are elsewhere, the callbacks' origin. Its API document
 * (`{base}/openapi.json`) and, for the kit's, its dashboard (`{base}/admin`) are found from it.
 */
export function partnerBaseUrl(partner: Pick<StoredPartner, 'urls'>): string {
  const callback = new URL(partner.urls.validate_token);
  const base = /^(.*)\/callbacks\/validate_token\/?$/.exec(callback.pathname)?.[1] ?? '';
  return `${callback.origin}${base}`;
}
