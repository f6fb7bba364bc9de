/**
 * Charts rendered to SVG at build time with Observable Plot on a linkedom document
 * (research/site-stack.md 4.3): pages ship no chart JavaScript, and the SVG carries a title and
 * an aria-label so it reads as one image. Every chart goes through plotSvg (lib/plot-svg.ts,
 * which the korea landing page's charts share).
 */
import * as Plot from '@observablehq/plot';
import { CHART_WIDTH, type ChartText, plotSvg } from '../../lib/plot-svg.ts';

export { type ChartText, plotSvg };

const INK = '#0550ae';

export interface DatedValue {
  date: string;
  value: number;
}

function day(date: string): Date {
  return new Date(`${date}T00:00:00Z`);
}

/** Bars per day (counts such as new services or transactions). */
export function dailyBars(
  series: readonly DatedValue[],
  text: ChartText & { y: string },
  size: { width?: number; height?: number } = {},
): string {
  return plotSvg(
    {
      ...size,
      marginLeft: 50,
      x: { type: 'band', label: null, tickFormat: (d: Date) => d.toISOString().slice(5, 10), interval: 'day' },
      y: { label: text.y, grid: true },
      marks: [
        Plot.barY(
          series.map((d) => ({ date: day(d.date), value: d.value })),
          { x: 'date', y: 'value', fill: INK },
        ),
        Plot.ruleY([0]),
      ],
    },
    text,
  );
}

/** A line with an area under it per day (volumes). */
export function dailyLine(
  series: readonly DatedValue[],
  text: ChartText & { y: string },
  size: { width?: number; height?: number } = {},
): string {
  const data = series.map((d) => ({ date: day(d.date), value: d.value }));
  return plotSvg(
    {
      ...size,
      marginLeft: 56,
      x: { type: 'utc', label: null },
      y: { label: text.y, grid: true, nice: true },
      marks: [
        Plot.areaY(data, { x: 'date', y: 'value', fill: INK, fillOpacity: 0.15 }),
        Plot.lineY(data, { x: 'date', y: 'value', stroke: INK, strokeWidth: 2 }),
        Plot.ruleY([0]),
      ],
    },
    text,
  );
}

export interface LabelShare {
  label: string;
  volume_pct: number;
  tx_pct: number;
}

/** Horizontal bars of each buyer label's share of volume. */
export function labelBars(shares: readonly LabelShare[], text: ChartText): string {
  const data = shares.map((s) => ({ label: s.label.replaceAll('_', ' '), volume_pct: s.volume_pct }));
  return plotSvg(
    {
      height: 56 + 26 * Math.max(1, data.length),
      marginLeft: 120,
      // the axis title centred below the ticks: at its default place it sat on the 80 and 100 ticks
      marginBottom: 44,
      x: { label: 'share of 30-day volume (%)', labelAnchor: 'center', labelOffset: 38, grid: true, domain: [0, 100] },
      y: { label: null, domain: data.map((d) => d.label) },
      marks: [
        Plot.barX(data, { x: 'volume_pct', y: 'label', fill: INK }),
        Plot.text(data, {
          x: 'volume_pct',
          y: 'label',
          text: (d: { volume_pct: number }) => `${d.volume_pct.toFixed(1)}%`,
          dx: 4,
          textAnchor: 'start',
        }),
        Plot.ruleX([0]),
      ],
    },
    text,
  );
}

export interface CategoryDay {
  date: string;
  category: string;
  volume: number;
}

/** Stacked daily volume of the largest categories; the rest is summed into "other categories". */
export function categoryVolumeStack(
  rows: readonly CategoryDay[],
  text: ChartText & { top?: number; titleOf?: (slug: string) => string },
): string {
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(r.category, (totals.get(r.category) ?? 0) + r.volume);
  const top = new Set(
    [...totals.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, text.top ?? 6)
      .map(([slug]) => slug),
  );
  const name = (slug: string) => (top.has(slug) ? (text.titleOf?.(slug) ?? slug) : 'Other categories');
  // One bar segment per day and group: the small categories are summed, not stacked one by one.
  const grouped = new Map<string, { date: Date; category: string; volume: number }>();
  for (const r of rows) {
    const category = name(r.category);
    const key = `${r.date}\u0000${category}`;
    const entry = grouped.get(key) ?? { date: day(r.date), category, volume: 0 };
    entry.volume += r.volume;
    grouped.set(key, entry);
  }
  const data = [...grouped.values()];
  return plotSvg(
    {
      height: 300,
      marginLeft: 56,
      x: { type: 'band', label: null, interval: 'day', tickFormat: (d: Date) => d.toISOString().slice(5, 10) },
      y: { label: 'volume (USDC)', grid: true },
      color: { legend: true, scheme: 'tableau10' },
      marks: [Plot.barY(data, Plot.stackY({ x: 'date', y: 'volume', fill: 'category', order: 'sum', reverse: true })), Plot.ruleY([0])],
    },
    text,
  );
}

/**
 * The per-service 30-day chart, drawn without Plot. Measured on this machine (Node 20, linkedom
 * 0.18.12): Plot takes 4 to 9 ms per 30-point chart, i.e. 120 to 270 s of a single core for
 * 30,000 service pages, against a 30 s budget for the whole build. This writes the same bars as
 * dailyBars from the numbers directly (about 0.02 ms), with the scale's maximum on the axis;
 * the values themselves are in the table beside the chart on every service page.
 */
export function miniBars(series: readonly DatedValue[], text: ChartText & { format: (value: number) => string }): string {
  const width = CHART_WIDTH;
  const height = 160;
  const left = 64;
  const bottom = 22;
  const top = 10;
  const plotHeight = height - top - bottom;
  const max = Math.max(0, ...series.map((d) => d.value));
  const step = (width - left) / Math.max(1, series.length);
  const barWidth = Math.max(1, step - 2);
  const bars = series
    .map((d, i) => {
      const h = max > 0 ? (d.value / max) * plotHeight : 0;
      const x = left + i * step + 1;
      return `<rect x="${x.toFixed(1)}" y="${(top + plotHeight - h).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${h.toFixed(1)}"/>`;
    })
    .join('');
  const first = series[0]?.date ?? '';
  const last = series.at(-1)?.date ?? '';
  const axis =
    `<line x1="${left}" x2="${width}" y1="${top + plotHeight}" y2="${top + plotHeight}" stroke="#57606a"/>` +
    `<line x1="${left}" x2="${width}" y1="${top}" y2="${top}" stroke="#d0d7de" stroke-dasharray="3 3"/>` +
    `<text x="${left - 6}" y="${top + 4}" text-anchor="end">${escapeXml(text.format(max))}</text>` +
    `<text x="${left - 6}" y="${top + plotHeight}" text-anchor="end">0</text>` +
    `<text x="${left}" y="${height - 6}">${escapeXml(first)}</text>` +
    `<text x="${width}" y="${height - 6}" text-anchor="end">${escapeXml(last)}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeXml(text.title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-size="12" font-family="system-ui, sans-serif" fill="#1b1f24"><title>${escapeXml(text.title)}</title>${axis}<g fill="${INK}">${bars}</g></svg>`;
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}
