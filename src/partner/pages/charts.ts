/**
 * The overview's charts, drawn on the server as SVG: no script, no client library, nothing for the
 * Content Security Policy to allow (colours are classes of partner.css, not style attributes). A
 * chart is drawn for a phone's width (a 360-unit-wide view box, scaled to the page's width; at
 * 390 px its text is the page's small text) and grows with a wider page up to the figure's
 * maximum. Each bar and each row says its numbers in a tooltip (`<title>`), and each chart has a
 * title and a one-line summary in words beside it (charts.eta), for a screen reader and a quick
 * reading alike. Every text put in the SVG is escaped here: the chart is output raw.
 */

const WIDTH = 360;

/** One series of a stacked chart: its key in the values, how it is named, and its colour's class. */
export interface Series {
  key: string;
  label: string;
  className: string;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "2026-11-03" as "3 Nov". */
export const dayLabel = (day: string) => `${Number(day.slice(8, 10))} ${MONTHS[Number(day.slice(5, 7)) - 1]}`;
/** 12345 as "12,345". */
export const countText = (n: number) => n.toLocaleString('en');

/** A round number at or above `max` for the scale's top: 1, 2 or 5 times a power of ten. */
function niceTop(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * power).find((top) => top >= max)!;
}

/**
 * Bars per day, each stacked by series (invitations by status, attempts by outcome), oldest day on
 * the left; the scale's top and the first, middle and last days labelled.
 */
export function stackedBarsByDay(options: { title: string; days: readonly string[]; series: readonly Series[]; values: ReadonlyMap<string, Readonly<Record<string, number>>> }): string {
  const { days, series, values } = options;
  const left = 34;
  const top = 8;
  const plotHeight = 120;
  const bottom = top + plotHeight;
  const height = bottom + 22;
  const slot = (WIDTH - left - 4) / days.length;
  const barWidth = Math.max(2, slot * 0.72);
  const totals = days.map((d) => series.reduce((sum, s) => sum + (values.get(d)?.[s.key] ?? 0), 0));
  const scaleTop = niceTop(Math.max(0, ...totals));
  const y = (n: number) => bottom - (n / scaleTop) * plotHeight;
  const parts: string[] = [];
  parts.push(`<line class="axis" x1="${left}" y1="${bottom}" x2="${WIDTH - 2}" y2="${bottom}"/>`);
  parts.push(`<line class="grid" x1="${left}" y1="${top}" x2="${WIDTH - 2}" y2="${top}"/>`);
  parts.push(`<text class="tick" x="${left - 4}" y="${top + 4}" text-anchor="end">${escape(countText(scaleTop))}</text>`);
  parts.push(`<text class="tick" x="${left - 4}" y="${bottom}" text-anchor="end">0</text>`);
  days.forEach((day, i) => {
    const x = left + i * slot + (slot - barWidth) / 2;
    let base = 0;
    const said = series
      .map((s) => [s, values.get(day)?.[s.key] ?? 0] as const)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${countText(n)} ${s.label}`);
    const rects: string[] = [];
    for (const s of series) {
      const n = values.get(day)?.[s.key] ?? 0;
      if (n === 0) continue;
      rects.push(`<rect class="${s.className}" x="${x.toFixed(1)}" y="${y(base + n).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(y(base) - y(base + n)).toFixed(1)}"/>`);
      base += n;
    }
    // The whole day's slot answers the pointer, an empty day too.
    parts.push(
      `<g><title>${escape(`${dayLabel(day)}: ${said.length === 0 ? 'none' : said.join(', ')}`)}</title>` +
        `<rect class="hit" x="${(left + i * slot).toFixed(1)}" y="${top}" width="${slot.toFixed(1)}" height="${plotHeight}"/>${rects.join('')}</g>`,
    );
  });
  for (const i of [0, Math.floor((days.length - 1) / 2), days.length - 1]) {
    const x = left + i * slot + slot / 2;
    const anchor = i === 0 ? 'start' : i === days.length - 1 ? 'end' : 'middle';
    parts.push(`<text class="tick" x="${(anchor === 'start' ? x - slot / 2 : anchor === 'end' ? x + slot / 2 : x).toFixed(1)}" y="${bottom + 15}" text-anchor="${anchor}">${escape(dayLabel(days[i]!))}</text>`);
  }
  return svg(options.title, height, parts);
}

/** Horizontal bars, one per row (how long updates waited), each with its label on the left and its count on the right. */
export function horizontalBars(options: { title: string; rows: readonly { label: string; value: number; className: string }[] }): string {
  const { rows } = options;
  const labelWidth = 88;
  const valueWidth = 58;
  const rowHeight = 20;
  const max = Math.max(1, ...rows.map((r) => r.value));
  const total = rows.reduce((sum, r) => sum + r.value, 0);
  const room = WIDTH - labelWidth - valueWidth;
  const parts = rows.map((r, i) => {
    const y = 4 + i * rowHeight;
    const width = (r.value / max) * room;
    const share = total === 0 ? 0 : Math.round((r.value / total) * 100);
    return (
      `<g><title>${escape(`${r.label}: ${countText(r.value)} (${share}%)`)}</title>` +
      `<text class="tick" x="${labelWidth - 6}" y="${y + 13}" text-anchor="end">${escape(r.label)}</text>` +
      `<rect class="${r.className}" x="${labelWidth}" y="${y + 3}" width="${Math.max(r.value > 0 ? 1 : 0, width).toFixed(1)}" height="${rowHeight - 6}"/>` +
      `<text class="tick" x="${(labelWidth + width + 4).toFixed(1)}" y="${y + 13}">${escape(countText(r.value))}</text></g>`
    );
  });
  return svg(options.title, 8 + rows.length * rowHeight, parts);
}

function svg(title: string, height: number, parts: string[]): string {
  return `<svg class="chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escape(title)}" xmlns="http://www.w3.org/2000/svg"><title>${escape(title)}</title>${parts.join('')}</svg>`;
}
