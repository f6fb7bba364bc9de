/**
 * The content pages' own chart (the daily wash and real share of the wash report), drawn through
 * pages-core's plotSvg (site/lib/charts.ts) like every chart of the site: SVG at build time.
 */
import * as Plot from '@observablehq/plot';
import { plotSvg } from './charts.ts';

const day = (date: string): Date => new Date(`${date}T00:00:00Z`);

/** Daily share of volume from suspected_wash buyers and from real (organic_user, ai_agent) buyers. */
export function dailyWashShareChart(series: ReadonlyArray<{ date: string; wash_pct: number; real_volume_pct: number }>): string {
  const tidy = series.flatMap((d) => [
    { date: day(d.date), share: d.wash_pct, kind: 'wash (suspected_wash)' },
    { date: day(d.date), share: d.real_volume_pct, kind: 'real (organic_user, ai_agent)' },
  ]);
  return plotSvg(
    {
      height: 240,
      marginLeft: 44,
      x: { type: 'utc', label: null },
      y: { label: '% of volume', domain: [0, 100], grid: true },
      color: { legend: true, domain: ['wash (suspected_wash)', 'real (organic_user, ai_agent)'], range: ['#b3412f', '#2f7d4f'] },
      marks: [Plot.lineY(tidy, { x: 'date', y: 'share', stroke: 'kind', marker: 'circle' }), Plot.ruleY([0])],
    },
    { title: 'Daily share of volume from wash and real buyers' },
  );
}
