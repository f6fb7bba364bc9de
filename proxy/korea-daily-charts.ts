/**
 * The korea landing page's free section: the daily preview of the Korea premium index (GET
 * /api/v1/kimchi-premium/daily, the same answer) as charts, drawn on the server to SVG with
 * Observable Plot (lib/plot-svg.ts, as the analytics site draws its charts), so the page runs no
 * script and loads nothing from elsewhere:
 *
 * - the market-wide index per UTC day: a line over the band of each day's lowest and highest minute;
 * - the 20 largest symbols: the newest day as bars sorted by premium, and each symbol's days as
 *   small multiples on one shared scale.
 *
 * Each chart has axis labels and a title (its accessible name), a caption saying what it shows in
 * words, and a table of its figures as the text alternative. The section is built once per
 * snapshot version. Plot is loaded on the first landing page asked for, not at server start.
 */
import type * as PlotModule from '@observablehq/plot';
import { findEndpoint } from '../catalog/index.ts';
import type { LoadedSnapshot } from '../snapshots/reader.ts';
import { type DailyPreview, dailyPreviewOf, type PremiumDay } from './data/kimchi-premium-daily.ts';
import { escapeHtml, timeHtml } from './html-page.ts';

const ENDPOINT = findEndpoint('korea', 'kimchi-premium-daily');
const INK = '#0550ae';
const BELOW = '#b3412f';
/** Days in the market table: the newest month (every day is in the downloads). */
const TABLE_DAYS = 30;
const COLUMNS = 5;

const EXCHANGE_NAMES: Record<string, string> = { upbit: 'Upbit', bithumb: 'Bithumb', coinone: 'Coinone', korbit: 'Korbit' };
const exchangesText = (exchanges: readonly string[]): string =>
  exchanges.length ? exchanges.map((e) => EXCHANGE_NAMES[e] ?? e).join(', ') : 'none named';
const pct = (x: number): string => `${x.toFixed(2)} %`;
const dayOf = (d: string): Date => new Date(`${d}T00:00:00Z`);

/**
 * Plot writes coordinates to 15 digits: one decimal is a tenth of a pixel at the chart's own size,
 * and keeps the page small. Only geometry attributes are rounded; text and the accessible name are not.
 */
const roundCoordinates = (svg: string): string =>
  svg.replace(/ (d|x|y|x1|x2|y1|y2|cx|cy|r|width|height|transform|points)="([^"]*)"/g, (_, name: string, value: string) => {
    const rounded = value.replace(/-?\d+\.\d{2,}/g, (n) => String(Math.round(Number(n) * 10) / 10));
    return ` ${name}="${rounded}"`;
  });

type Charts = { Plot: typeof PlotModule; plotSvg: (options: PlotModule.PlotOptions, text: { title: string }) => string };
let charts: Promise<Charts> | null = null;
const loadCharts = (): Promise<Charts> => {
  charts ??= Promise.all([import('@observablehq/plot'), import('../lib/plot-svg.ts')]).then(([Plot, lib]) => ({
    Plot,
    plotSvg: lib.plotSvg,
  }));
  return charts;
};

function marketChart({ Plot, plotSvg }: Charts, preview: DailyPreview): string {
  const data = preview.market.map((d) => ({ ...d, date: dayOf(d.day) }));
  const most = Math.max(0, ...preview.market.map((d) => d.exchanges.length));
  const fewer = data.filter((d) => d.exchanges.length < most);
  const first = preview.market[0]!;
  const last = preview.market.at(-1)!;
  return roundCoordinates(
    plotSvg(
      {
        height: 310,
        marginLeft: 56,
        marginBottom: 52,
        x: { type: 'utc', label: 'UTC day', labelAnchor: 'center', labelArrow: 'none', labelOffset: 46 },
        y: { label: 'Korea premium index (%)', labelArrow: 'none', grid: true, nice: true },
        marks: [
          Plot.ruleY([0], { stroke: '#57606a' }),
          Plot.areaY(data, { x: 'date', y1: 'min_pct', y2: 'max_pct', fill: INK, fillOpacity: 0.15 }),
          Plot.lineY(data, { x: 'date', y: 'premium_pct', stroke: INK, strokeWidth: 2 }),
          // days the index rests on fewer exchanges than the others
          Plot.dot(fewer, { x: 'date', y: 'premium_pct', r: 3.5, fill: BELOW }),
        ],
      },
      {
        title: `Market-wide Korea premium index per UTC day, ${first.day} to ${last.day}: ${pct(last.premium_pct)} on ${last.day}; the band is each day's lowest to highest minute.`,
      },
    ),
  );
}

/** The symbols' newest day (preview.through, else their own newest), as bars sorted by premium. */
function latestBars({ Plot, plotSvg }: Charts, preview: DailyPreview): string {
  const data = preview.symbols
    .flatMap((s) => (s.days.length ? [{ symbol: s.symbol, ...s.days.at(-1)! }] : []))
    .sort((a, b) => b.premium_pct - a.premium_pct);
  return roundCoordinates(
    plotSvg(
      {
        height: 40 + 24 * Math.max(1, data.length),
        marginLeft: 64,
        marginRight: 56,
        marginBottom: 40,
        x: { label: `Korea premium index on ${preview.through} (%)`, labelAnchor: 'center', labelArrow: 'none', grid: true, nice: true },
        y: { label: null, domain: data.map((d) => d.symbol) },
        marks: [
          Plot.barX(data, { x: 'premium_pct', y: 'symbol', fill: (d: PremiumDay) => (d.premium_pct < 0 ? BELOW : INK) }),
          Plot.text(data, {
            x: 'premium_pct',
            y: 'symbol',
            text: (d: PremiumDay) => pct(d.premium_pct),
            dx: 4,
            textAnchor: 'start',
            fill: '#1a1a1a',
          }),
          Plot.ruleX([0], { stroke: '#57606a' }),
        ],
      },
      {
        title: `Korea premium index of the ${data.length} largest symbols on ${preview.through}, highest first: ${data
          .map((d) => `${d.symbol} ${pct(d.premium_pct)}`)
          .join(', ')}.`,
      },
    ),
  );
}

/** Each symbol's days, one small chart per symbol in rank order, all on one scale. */
function smallMultiples({ Plot, plotSvg }: Charts, preview: DailyPreview): string {
  const place = new Map(preview.symbols.map((s, i) => [s.symbol, { fx: i % COLUMNS, fy: Math.floor(i / COLUMNS) }]));
  const data = preview.symbols.flatMap((s) => s.days.map((d) => ({ symbol: s.symbol, date: dayOf(d.day), premium_pct: d.premium_pct })));
  const labels = preview.symbols.map((s) => ({ symbol: s.symbol }));
  const fx = (d: { symbol: string }) => place.get(d.symbol)!.fx;
  const fy = (d: { symbol: string }) => place.get(d.symbol)!.fy;
  const rows = Math.ceil(preview.symbols.length / COLUMNS);
  return roundCoordinates(
    plotSvg(
      {
        height: 70 + 110 * Math.max(1, rows),
        marginLeft: 56,
        marginBottom: 52,
        fx: { axis: null, padding: 0.12 },
        fy: { axis: null, padding: 0.18 },
        x: { type: 'utc', label: 'UTC day', labelAnchor: 'center', labelArrow: 'none', labelOffset: 46, ticks: 3 },
        y: { label: 'premium (%)', labelArrow: 'none', grid: true, nice: true, ticks: 4 },
        marks: [
          Plot.frame({ stroke: '#d0d0d0' }),
          Plot.ruleY([0], { stroke: '#57606a' }),
          Plot.lineY(data, { x: 'date', y: 'premium_pct', fx, fy, stroke: INK, strokeWidth: 1.5 }),
          Plot.text(labels, {
            text: 'symbol',
            fx,
            fy,
            frameAnchor: 'top-left',
            dx: 4,
            dy: 4,
            fontWeight: 600,
            fill: '#1a1a1a',
            stroke: 'white',
            strokeWidth: 3,
          }),
        ],
      },
      {
        title: `Korea premium index per UTC day of each of the ${preview.symbols.length} largest symbols, in rank order (${preview.symbols
          .map((s) => s.symbol)
          .join(', ')}), on one scale.`,
      },
    ),
  );
}

function marketTable(preview: DailyPreview): string {
  const rows = preview.market
    .slice(-TABLE_DAYS)
    .reverse()
    .map(
      (d) =>
        `<tr><td>${escapeHtml(d.day)}</td><td class="num">${pct(d.premium_pct)}</td><td class="num">${pct(d.min_pct)}</td>` +
        `<td class="num">${pct(d.max_pct)}</td><td class="num">${d.samples}</td><td>${escapeHtml(exchangesText(d.exchanges))}</td></tr>`,
    );
  return (
    `<details><summary>The newest ${Math.min(TABLE_DAYS, preview.market.length)} days as a table</summary><table><caption>Market-wide Korea premium index, newest day first (every day is in the downloads)</caption>` +
    '<thead><tr><th scope="col">UTC day</th><th scope="col">Mean</th><th scope="col">Lowest minute</th><th scope="col">Highest minute</th>' +
    `<th scope="col">Minutes</th><th scope="col">Exchanges</th></tr></thead><tbody>${rows.join('')}</tbody></table></details>`
  );
}

function symbolsTable(preview: DailyPreview): string {
  const rows = preview.symbols.map((s) => {
    const last = s.days.at(-1);
    const means = s.days.map((d) => d.premium_pct);
    return (
      `<tr><td class="num">${s.rank}</td><th scope="row">${escapeHtml(s.symbol)}</th>` +
      `<td class="num">${last ? pct(last.premium_pct) : ''}</td><td>${last ? escapeHtml(last.day) : ''}</td>` +
      `<td class="num">${means.length ? pct(Math.min(...means)) : ''}</td><td class="num">${means.length ? pct(Math.max(...means)) : ''}</td>` +
      `<td class="num">${s.days.length}</td><td>${last ? escapeHtml(exchangesText(last.exchanges)) : ''}</td></tr>`
    );
  });
  return (
    '<details><summary>The symbols as a table</summary><table><caption>The largest symbols by Korean 24-hour KRW volume, in rank order</caption>' +
    '<thead><tr><th scope="col">Rank</th><th scope="col">Symbol</th><th scope="col">Newest day</th><th scope="col">Day</th>' +
    '<th scope="col">Lowest day</th><th scope="col">Highest day</th><th scope="col">Days</th><th scope="col">Exchanges on the newest day</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table></details>`
  );
}

/** The sentence on the market chart: where it stands, its range, and the days on fewer exchanges. */
function marketCaption(preview: DailyPreview): string {
  const days = preview.market;
  const last = days.at(-1)!;
  const low = days.reduce((a, d) => (d.premium_pct < a.premium_pct ? d : a));
  const high = days.reduce((a, d) => (d.premium_pct > a.premium_pct ? d : a));
  const most = Math.max(...days.map((d) => d.exchanges.length));
  const fewer = days.filter((d) => d.exchanges.length < most);
  return (
    `${days.length} days from ${escapeHtml(days[0]!.day)} to ${escapeHtml(last.day)}: ${pct(last.premium_pct)} on the newest day ` +
    `(on ${escapeHtml(exchangesText(last.exchanges))}); lowest ${pct(low.premium_pct)} on ${escapeHtml(low.day)}, highest ${pct(high.premium_pct)} on ${escapeHtml(high.day)}. ` +
    'The line is the mean of the minutes of each day, the band its lowest to highest minute. ' +
    (fewer.length
      ? `${fewer.length} day${fewer.length === 1 ? '' : 's'} (red dots) rest on fewer exchanges than the others; the table names each day's exchanges.`
      : `Every day rests on ${most} exchange${most === 1 ? '' : 's'}.`)
  );
}

function downloadsHtml(): string {
  const path = ENDPOINT?.path ?? '/api/v1/kimchi-premium/daily';
  const link = (format: string, label: string) =>
    `<a href="${escapeHtml(format === 'json' ? path : `${path}?format=${format}`)}">${label}</a>`;
  return (
    '<p>Download, free and with no payment, dedicated to the public domain (<a href="https://creativecommons.org/publicdomain/zero/1.0/">CC0 1.0</a>): ' +
    `<span class="links">${link('json', 'JSON')} ${link('csv', 'CSV')} ${link('parquet', 'Parquet')}</span></p>`
  );
}

async function sectionHtml(preview: DailyPreview): Promise<string> {
  const intro =
    `<p>The Korea premium index per closed UTC day, <strong>one day delayed, CC0</strong> (public domain): market-wide and for the ${preview.symbols.length} largest symbols by Korean 24-hour KRW volume, ` +
    `through ${escapeHtml(preview.through)} (data as of ${timeHtml(preview.as_of)}). Each day names the Korean exchanges it rests on. ` +
    'Today and yesterday, the minutes and hours, each exchange&#39;s own premium and every other symbol are in the paid archive.</p>';
  const demo =
    preview.source === 'demo'
      ? '<p class="state-note demo"><strong>Synthetic demo data:</strong> this instance runs on the built-in simulator, so these figures are not real market data (every answer says <code>source: "demo"</code>).</p>'
      : '';
  if (preview.market.length === 0 && preview.symbols.length === 0) {
    return `${intro}${demo}<p>No day is old enough to publish yet: the first one appears once it closed at least 24 hours ago.</p>${downloadsHtml()}`;
  }
  const c = await loadCharts();
  const market = preview.market.length
    ? `<figure><figcaption><h3 id="preview-market">Market-wide index</h3>${marketCaption(preview)}</figcaption>${marketChart(c, preview)}${marketTable(preview)}</figure>`
    : '';
  const symbols = preview.symbols.length
    ? `<figure><figcaption><h3 id="preview-symbols">The ${preview.symbols.length} largest symbols</h3>On ${escapeHtml(preview.through)}, highest premium first, then each one's days in rank order on one scale.</figcaption>` +
      `${latestBars(c, preview)}${smallMultiples(c, preview)}${symbolsTable(preview)}</figure>`
    : '';
  return `${intro}${demo}${downloadsHtml()}${market}${symbols}`;
}

const built = new WeakMap<LoadedSnapshot, Promise<string | null>>();

/**
 * The section's HTML for a snapshot version (built once per version), or null when the version has
 * no kimchi-premium-daily dataset, or its file cannot be read: the landing page is then served
 * without it (the endpoint says why), and the next request tries again.
 */
export function dailyPreviewSectionHtml(snapshot: LoadedSnapshot): Promise<string | null> {
  let html = built.get(snapshot);
  if (!html) {
    html = dailyPreviewOf(snapshot)
      .then((preview) => (preview ? sectionHtml(preview) : null))
      .catch((err: unknown) => {
        built.delete(snapshot);
        console.error(`korea: the landing page's daily preview of ${snapshot.version} failed: ${(err as Error).message}`);
        return null;
      });
    built.set(snapshot, html);
  }
  return html;
}
