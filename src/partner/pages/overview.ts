import { REPORT_STATUSES } from '../../contract/decisions.js';
import { countText, dayLabel, horizontalBars, stackedBarsByDay, type Series } from './charts.js';
import { DELAY_BUCKETS, DELAY_SAMPLE, OVERVIEW_DAYS, type Overview } from './dashboard-reads.js';

/** An invitation's status as the overview names it: "sent" is still open. */
const STATUS_SERIES: readonly Series[] = REPORT_STATUSES.map((status) => ({
  key: status,
  label: status === 'sent' ? 'open' : status,
  className: `s-${status}`,
}));
const OUTCOME_SERIES: readonly Series[] = [
  { key: 'delivered', label: 'delivered', className: 's-delivered' },
  { key: 'retry', label: 'to retry', className: 's-retry' },
  { key: 'dead', label: 'given up', className: 's-dead' },
];

/** "12 open, 3 completed": the series' non-zero counts, in words. */
const inWords = (series: readonly Series[], counts: Readonly<Record<string, number>>) =>
  series
    .filter((s) => (counts[s.key] ?? 0) > 0)
    .map((s) => `${countText(counts[s.key]!)} ${s.label}`)
    .join(', ');

/**
 * The overview a person reads at a glance, as charts and a sentence each: invitations per day by
 * platform and status, delivery attempts per day by outcome with the share delivered, and how long
 * updates waited to be delivered, over the last OVERVIEW_DAYS days.
 */
export function overviewView(overview: Overview, platforms: readonly { name: string; label: string }[]) {
  const { days } = overview;
  const labelOf = (name: string) => platforms.find((p) => p.name === name)?.label ?? name;

  const perPlatform = new Map<string, Map<string, Record<string, number>>>();
  for (const r of overview.invitations) {
    const byDay = perPlatform.get(r.platform) ?? perPlatform.set(r.platform, new Map()).get(r.platform)!;
    const counts = byDay.get(r.day) ?? byDay.set(r.day, {}).get(r.day)!;
    counts[r.status] = (counts[r.status] ?? 0) + r.n;
  }
  const invitations = [...perPlatform]
    .map(([platform, byDay]) => {
      const totals: Record<string, number> = {};
      for (const counts of byDay.values()) for (const [status, n] of Object.entries(counts)) totals[status] = (totals[status] ?? 0) + n;
      const total = Object.values(totals).reduce((a, b) => a + b, 0);
      const label = labelOf(platform);
      const title = `${label}: invitations per day, by status, the last ${OVERVIEW_DAYS} days`;
      return { platform, label, total, summary: `${plural(total, 'invitation')}: ${inWords(STATUS_SERIES, totals)}.`, svg: stackedBarsByDay({ title, days, series: STATUS_SERIES, values: byDay }) };
    })
    .sort((a, b) => b.total - a.total || a.label.localeCompare(b.label));

  const attemptsByDay = new Map<string, Record<string, number>>();
  const attemptTotals: Record<string, number> = {};
  for (const r of overview.attempts) {
    const counts = attemptsByDay.get(r.day) ?? attemptsByDay.set(r.day, {}).get(r.day)!;
    counts[r.outcome] = (counts[r.outcome] ?? 0) + r.n;
    attemptTotals[r.outcome] = (attemptTotals[r.outcome] ?? 0) + r.n;
  }
  const attemptCount = Object.values(attemptTotals).reduce((a, b) => a + b, 0);
  const successRate = attemptCount === 0 ? undefined : (attemptTotals.delivered ?? 0) / attemptCount;
  const deliveries = {
    total: attemptCount,
    successRate,
    summary:
      attemptCount === 0
        ? 'No delivery attempts.'
        : `${percent(successRate!)} of ${plural(attemptCount, 'attempt')} delivered (${inWords(OUTCOME_SERIES, attemptTotals)}).`,
    svg: stackedBarsByDay({ title: `Delivery attempts per day, by outcome, the last ${OVERVIEW_DAYS} days`, days, series: OUTCOME_SERIES, values: attemptsByDay }),
  };

  const delivered = overview.delays.reduce((a, b) => a + b, 0);
  /** The bucket by which a share of the updates had been delivered: "within 10 s". */
  const within = (share: number) => {
    let sum = 0;
    const i = overview.delays.findIndex((n) => (sum += n) >= share * delivered);
    const bucket = DELAY_BUCKETS[i]!;
    return bucket.upTo === Infinity ? 'in over an hour' : `within ${bucket.label.replace(/^.*–/, '').replace('under ', '')}`;
  };
  const delays = {
    total: delivered,
    summary:
      delivered === 0
        ? 'No update delivered.'
        : `${delivered < DELAY_SAMPLE ? plural(delivered, 'update') : `The newest ${countText(DELAY_SAMPLE)} updates`} delivered: half ${within(0.5)}, 95% ${within(0.95)} of being queued.`,
    svg: horizontalBars({
      title: `How long updates waited to be delivered: the newest ${countText(DELAY_SAMPLE)} at most, the last ${OVERVIEW_DAYS} days`,
      rows: DELAY_BUCKETS.map((b, i) => ({ label: b.label, value: overview.delays[i] ?? 0, className: i < 3 ? 's-delivered' : i < 5 ? 's-retry' : 's-dead' })),
    }),
  };

  return { days: OVERVIEW_DAYS, from: dayLabel(days[0]!), to: dayLabel(days[days.length - 1]!), invitations, deliveries, delays, statusSeries: STATUS_SERIES, outcomeSeries: OUTCOME_SERIES };
}

/** 0.9412 as "94.1%"; 0.75 as "75%". */
function percent(share: number): string {
  const p = Math.round(share * 1000) / 10;
  return `${Number.isInteger(p) ? p.toFixed(0) : p.toFixed(1)}%`;
}

/** "1 invitation", "1,234 invitations". */
const plural = (n: number, noun: string) => `${countText(n)} ${noun}${n === 1 ? '' : 's'}`;

export type OverviewView = ReturnType<typeof overviewView>;
