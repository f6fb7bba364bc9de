/**
 * The content pages' charts as SVG rendered at build time with Observable Plot on linkedom's DOM
 * (research/site-stack.md 4.3): the pages stay static, readable without JavaScript. Each chart
 * carries an aria-label and the page shows the same figures in a table beside it.
 */
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';

function render(options: Plot.PlotOptions, label: string): string {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  // linkedom's document stands in for the browser's; the project compiles without the DOM library
  const plotDocument = document as unknown as NonNullable<Plot.PlotOptions['document']>;
  const svg = Plot.plot({ ...options, document: plotDocument, ariaLabel: label });
  svg.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  svg.setAttribute('role', 'img');
  return svg.outerHTML;
}

const day = (date: string): Date => new Date(`${date}T00:00:00Z`);

/** Services first seen per day (trends.daily_new_services). */
export function dailyNewServicesChart(series: ReadonlyArray<{ date: string; count: number }>): string {
  return render(
    {
      width: 720,
      height: 220,
      marginLeft: 40,
      x: { type: 'band', label: null, tickFormat: (d: Date) => d.toISOString().slice(5, 10) },
      y: { label: 'new services', grid: true },
      marks: [Plot.barY(series, { x: (d: { date: string }) => day(d.date), y: 'count', fill: '#3b6ea8' }), Plot.ruleY([0])],
    },
    'New services per day',
  );
}

/** Daily share of volume from suspected_wash buyers (wash-report.daily_wash_share). */
export function dailyWashShareChart(series: ReadonlyArray<{ date: string; wash_pct: number; real_volume_pct: number }>): string {
  const tidy = series.flatMap((d) => [
    { date: day(d.date), share: d.wash_pct, kind: 'wash (suspected_wash)' },
    { date: day(d.date), share: d.real_volume_pct, kind: 'real (organic_user, ai_agent)' },
  ]);
  return render(
    {
      width: 720,
      height: 240,
      marginLeft: 40,
      x: { type: 'utc', label: null },
      y: { label: '% of volume', domain: [0, 100], grid: true },
      color: { legend: true, range: ['#b3412f', '#2f7d4f'] },
      marks: [Plot.lineY(tidy, { x: 'date', y: 'share', stroke: 'kind', marker: 'circle' }), Plot.ruleY([0])],
    },
    'Daily share of volume from wash and real buyers',
  );
}

/** Share of volume per buyer label (wash-report.label_distribution). */
export function labelVolumeChart(rows: ReadonlyArray<{ label: string; volume_pct: number }>): string {
  return render(
    {
      width: 720,
      height: 40 + 26 * rows.length,
      marginLeft: 110,
      x: { label: '% of volume', grid: true },
      y: { label: null, domain: rows.map((r) => r.label) },
      marks: [Plot.barX(rows, { x: 'volume_pct', y: 'label', fill: '#3b6ea8' }), Plot.ruleX([0])],
    },
    'Share of volume per buyer label',
  );
}
