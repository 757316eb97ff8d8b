import type { ReportUpdate } from '../../contract/schemas.js';

/**
 * Report updates are partial (contract §3.2: absent fields stay as they are), so several queued
 * updates of one report fold into one body: later fields win, `urls` merge key by key.
 */
export function mergeUpdates(bodies: readonly ReportUpdate[]): ReportUpdate {
  const out: ReportUpdate = {};
  for (const body of bodies) {
    for (const [key, value] of Object.entries(body) as [keyof ReportUpdate, unknown][]) {
      if (value === undefined) continue;
      if (key === 'urls') out.urls = { ...out.urls, ...(value as ReportUpdate['urls']) };
      else (out as Record<string, unknown>)[key] = value;
    }
  }
  return out;
}

/**
 * `body` without what newer, already delivered updates set: sending it would overwrite newer data
 * with older. Happens only when an operator revives an old dead letter after newer updates went out.
 */
export function withoutFieldsSetBy(body: ReportUpdate, newer: readonly ReportUpdate[]): ReportUpdate {
  const out: ReportUpdate = { ...body };
  for (const later of newer) {
    for (const key of Object.keys(later) as (keyof ReportUpdate)[]) {
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

export const isEmptyUpdate = (body: ReportUpdate): boolean => Object.keys(body).length === 0;
