import type { InvitationUpdate } from '../invitations/update.js';

/**
 * Updates are partial (absent fields stay as they are), so several queued
 * updates of one report fold into one body: later fields win, `urls` merge key by key.
 */
export function mergeUpdates(bodies: readonly InvitationUpdate[]): InvitationUpdate {
  const out: InvitationUpdate = {};
  for (const body of bodies) {
    for (const [key, value] of Object.entries(body) as [keyof InvitationUpdate, unknown][]) {
      if (value === undefined) continue;
      if (key === 'urls') out.urls = { ...out.urls, ...(value as InvitationUpdate['urls']) };
      else (out as Record<string, unknown>)[key] = value;
    }
  }
  return out;
}

/**
 * `body` without what newer, already delivered updates set: sending it would overwrite newer data
 * with older. Happens only when an operator revives an old dead letter after newer updates went out.
 */
export function withoutFieldsSetBy(body: InvitationUpdate, newer: readonly InvitationUpdate[]): InvitationUpdate {
  const out: InvitationUpdate = { ...body };
  for (const later of newer) {
    for (const key of Object.keys(later) as (keyof InvitationUpdate)[]) {
      if (key !== 'urls') delete out[key];
      else if (out.urls) {
        const urls = { ...out.urls };
        for (const name of Object.keys(later.urls ?? {})) delete urls[name];
        out.urls = urls;
        if (Object.keys(urls).length === 0) delete out.urls;
      }
    }
  }
  return out;
}

/** Nothing to tell: no field but `at` (when an update happened says nothing by itself). */
export const isEmptyUpdate = (body: InvitationUpdate): boolean => Object.keys(body).every((key) => key === 'at');
