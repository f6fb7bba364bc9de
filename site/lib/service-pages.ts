/**
 * The page per service, 30,000 of them, written after `astro build` from a shell Astro rendered.
 *
 * Why not one Astro route per service: measured on this machine (bench/site.ts, 30,000
 * services), Astro's own per-page work (render context, Request/Response, the async render
 * pipeline, one file write) costs about 0.7 ms even for a page holding one number, so a
 * [id].astro route spent 40 s for the service pages alone against a 30 s budget for the whole
 * build. Instead Astro renders src/pages/services/page-shell.astro once (the Base layout, its
 * navigation, freshness footer and stylesheet links, with placeholder tokens), and this module
 * fills the shell for each service with HTML joined from escaped strings, writing each page as
 * services/<id>.html (served at /services/<id>). Runs from the astro:build:done hook
 * (astro.config.mjs), so every build, the lead's and the bench's, makes them.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { miniBars } from './charts.ts';
import {
  categoryTitle,
  operatorsBySeller,
  serviceDetail,
  serviceIds,
  serviceHealthById,
  serviceOffers,
  type OperatorRow,
  type ServiceDetail,
  type ServiceHealth,
  type ServiceOffer,
} from './data.ts';
import { formatDate, formatInt, formatPct, formatTime, formatUsd, labelText } from './format.ts';
import { escapeHtml, link, tableRows } from './html.ts';

/** Output folder (under the build's outDir) of the shell page; removed once the pages are written. */
export const SHELL_DIR = join('services', 'page-shell');
export const TOKENS = {
  title: 'x402-service-page-title-token',
  description: 'x402-service-page-description-token',
  main: 'x402-service-page-main-token',
} as const;

interface Shell {
  /** The shell cut at the tokens: parts[0] title parts[1] description parts[2] main parts[3]. */
  parts: [string, string, string, string];
}

export function parseShell(html: string): Shell {
  const order = [TOKENS.title, TOKENS.description, TOKENS.main];
  const parts: string[] = [];
  let rest = html;
  for (const token of order) {
    const at = rest.indexOf(token);
    if (at === -1 || rest.indexOf(token, at + token.length) !== -1)
      throw new Error(`service page shell: token ${token} missing or repeated`);
    parts.push(rest.slice(0, at));
    rest = rest.slice(at + token.length);
  }
  parts.push(rest);
  return { parts: parts as Shell['parts'] };
}

function figures(items: ReadonlyArray<{ label: string; value: string; testid?: string }>): string {
  return `<ul class="figures">${items
    .map(
      (i) =>
        `<li><span class="value"${i.testid ? ` data-testid="${i.testid}"` : ''}>${escapeHtml(i.value)}</span><span class="label">${escapeHtml(i.label)}</span></li>`,
    )
    .join('')}</ul>`;
}

function chart(svg: string, caption: string, testid: string): string {
  return `<figure class="chart" data-testid="${testid}">${svg}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

function labelDistribution(distribution: ServiceDetail['service']['label_distribution']): string {
  const rows = Object.entries(distribution)
    .filter((e): e is [string, number] => typeof e[1] === 'number')
    .sort((a, b) => b[1] - a[1]);
  if (rows.length === 0) return '<p class="muted">No buyer traffic in the last 30 days.</p>';
  return (
    '<table data-testid="label-distribution"><thead><tr><th scope="col">Buyer label</th><th scope="col" class="num">Share of 30-day volume</th></tr></thead><tbody>' +
    tableRows(
      rows.map(([label, share]) => [
        { html: link(`/methodology/#label-${label}`, labelText(label)) },
        { text: formatPct(share * 100), num: true },
      ]),
    ) +
    '</tbody></table>'
  );
}

function topBuyers(buyers: ServiceDetail['top_buyers']): string {
  if (buyers.length === 0) return '<p class="muted">No buyer in the last 30 days.</p>';
  const hasLabels = buyers.some((b) => typeof b.label === 'string');
  const head =
    '<th scope="col">Buyer wallet</th>' +
    (hasLabels ? '<th scope="col">Label</th>' : '') +
    '<th scope="col" class="num">Transactions</th><th scope="col" class="num">Volume</th><th scope="col" class="num">Share</th>';
  const rows = tableRows(
    buyers.map((b) => [
      { html: `<code>${escapeHtml(b.address)}</code>` },
      ...(hasLabels ? [b.label ? { html: link(`/methodology/#label-${b.label}`, labelText(b.label)) } : '–'] : []),
      { text: formatInt(b.tx_count), num: true },
      { text: formatUsd(b.volume), num: true },
      { text: formatPct(b.share_pct), num: true },
    ]),
  );
  return `<div class="table-wrap"><table data-testid="top-buyers"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function offersTable(id: number, offers: readonly ServiceOffer[]): string {
  return (
    `<p>Free: <a href="/api/v1/services/${id}"><code>GET /api/v1/services/${id}</code></a> (this page as JSON). ` +
    'Paid per call with x402 (see <a href="/docs">/docs</a>):</p>' +
    '<table data-testid="service-offers"><thead><tr><th scope="col">Endpoint</th><th scope="col">What you get</th><th scope="col" class="num">Price</th></tr></thead><tbody>' +
    tableRows(
      offers.map((o) => [
        { html: `<code>${escapeHtml(`${o.method} ${o.path}`)}</code>` },
        o.summary,
        { text: `$${o.priceUsd}`, num: true },
      ]),
    ) +
    '</tbody></table>'
  );
}

const EVIDENCE_TEXT: Record<string, string> = {
  shared_funding: 'its sellers share a funder, a relay or the address they sweep their takings to',
  operator_cohort: 'wallets funded from its keys make up a paying cohort',
  funding_burst: 'a burst of near-equal fundings to fresh wallets that pay it',
};

/** The operator behind this service's seller (methodology: operators), with its other services. */
function operatorSection(id: number, op: OperatorRow | undefined): string {
  if (!op) return '';
  const others = op.service_ids.filter((x) => x !== id);
  const evidence = op.evidence.map((e) => EVIDENCE_TEXT[e] ?? e).join('; ');
  return (
    '<section aria-labelledby="h-operator" data-testid="service-operator"><h2 id="h-operator">Operator</h2>' +
    `<p>This seller belongs to operator <code>${escapeHtml(op.operator_id)}</code>: ${formatInt(op.sellers.length)} seller${op.sellers.length === 1 ? '' : 's'}, ` +
    `${formatInt(op.service_ids.length)} service${op.service_ids.length === 1 ? '' : 's'}, ${formatInt(op.buyer_count)} buyers, ` +
    `${formatUsd(op.volume)} all time, ${formatPct(op.wash_volume_pct)} of it on suspected wash pairs. Evidence: ${escapeHtml(evidence)}. ` +
    `${link('/methodology/', 'How operators are found')}.</p>` +
    (others.length > 0
      ? `<p>Its other services: ${others
          .slice(0, 20)
          .map((x) => link(`/services/${x}`, `#${x}`))
          .join(', ')}${others.length > 20 ? ` and ${formatInt(others.length - 20)} more` : ''}.</p>`
      : '') +
    '</section>'
  );
}

const RECOMMENDATION: Record<ServiceHealth['recommendation'], string> = {
  pay: 'safe to pay on this evidence',
  caution: 'pay with caution',
  avoid: 'avoid',
};

/** "Before you pay": the trust grade, what it rests on, the flags, the offer and 7 days of probe latency. */
function healthSection(h: ServiceHealth | undefined): string {
  const head = '<section aria-labelledby="h-health"><h2 id="h-health">Before you pay</h2>';
  if (!h) return `${head}<p>No probe data in this snapshot.</p></section>`;
  const latencySvg = miniBars(
    h.daily_7d.map((d) => ({ date: d.date, value: d.latency_p50_ms ?? 0 })),
    { title: 'Median latency of unpaid probes per day, last 7 days (ms)', format: (v) => `${formatInt(v)} ms` },
  );
  const grade = h.grade === null ? 'no grade (not enough evidence)' : `grade ${h.grade}`;
  return (
    head +
    `<p data-testid="trust-grade"><strong>${escapeHtml(grade)}</strong>: ${escapeHtml(RECOMMENDATION[h.recommendation])}` +
    (h.flags.length > 0 ? `. Flags: ${escapeHtml(h.flags.map((f) => f.replace('_', ' ')).join(', '))}.` : '.') +
    '</p>' +
    figures([
      { label: 'live (answered in 24 hours)', value: h.live ? 'yes' : 'no', testid: 'probe-live' },
      { label: 'uptime, 7 days', value: formatPct(h.uptime_7d_pct) },
      { label: 'latency p50', value: h.latency_p50_ms === null ? '–' : `${formatInt(h.latency_p50_ms)} ms` },
      { label: 'latency p99', value: h.latency_p99_ms === null ? '–' : `${formatInt(h.latency_p99_ms)} ms` },
      { label: 'payTo where payments settle', value: h.payto_consistent === null ? 'not judged' : h.payto_consistent ? 'yes' : 'no' },
    ]) +
    `<ul data-testid="trust-evidence">${h.evidence.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>` +
    (h.daily_7d.length > 0 ? chart(latencySvg, 'Median latency of unpaid probes per day (UTC), ms.', 'chart-service-latency') : '') +
    `<p data-testid="seller-grade">Seller (this payTo, all its services): ${escapeHtml(h.seller_grade === null ? 'no grade' : `grade ${h.seller_grade}`)}; ${escapeHtml(h.seller_evidence.join('; '))}.</p>` +
    `<p>Last probe: ${escapeHtml(formatTime(h.last_probe_at))}. How the grade is made: <a href="/methodology/#service-health">methodology</a>.</p>` +
    '</section>'
  );
}

/** The main content of one service's page. */
export function serviceMainHtml(
  id: number,
  detail: ServiceDetail,
  offers: readonly ServiceOffer[],
  operator?: OperatorRow,
  health?: ServiceHealth,
): string {
  const { service: s, daily_series: daily, top_buyers: buyers } = detail;
  const txSvg = miniBars(
    daily.map((d) => ({ date: d.date, value: d.tx_count })),
    { title: `Transactions per day, last 30 days, of ${s.name}`, format: formatInt },
  );
  const volumeSvg = miniBars(
    daily.map((d) => ({ date: d.date, value: d.volume })),
    { title: `Volume per day in USDC, last 30 days, of ${s.name}`, format: formatUsd },
  );
  const dailyRows = tableRows(
    daily.map((d) => [
      formatDate(d.date),
      { text: formatInt(d.tx_count), num: true },
      { text: formatUsd(d.volume), num: true },
      { text: formatInt(d.unique_buyers), num: true },
      { text: formatPct(d.real_volume_pct), num: true },
    ]),
  );
  return (
    `<p><a href="/services/">Services</a> › ${link(`/categories/${s.category}/`, categoryTitle(s.category))}</p>` +
    `<h1 data-testid="service-name">${escapeHtml(s.name)}</h1>` +
    (s.description ? `<p>${escapeHtml(s.description)}</p>` : '') +
    '<dl class="facts">' +
    `<dt>Endpoint</dt><dd><code>${escapeHtml(s.resource_url)}</code></dd>` +
    `<dt>Chain</dt><dd>${escapeHtml(s.chain)}</dd>` +
    `<dt>Seller</dt><dd><code>${escapeHtml(s.seller_address)}</code></dd>` +
    `<dt>Price per call</dt><dd>${formatUsd(s.price_amount)}</dd>` +
    `<dt>First seen</dt><dd>${escapeHtml(formatTime(s.first_seen))}</dd>` +
    `<dt>Last transaction</dt><dd>${escapeHtml(formatTime(s.last_tx_at))}</dd>` +
    '</dl>' +
    figures([
      { label: 'transactions, 24 hours', value: formatInt(s.tx_24h), testid: 'tx-24h' },
      { label: 'volume, 24 hours', value: formatUsd(s.volume_24h), testid: 'volume-24h' },
      { label: 'transactions, all time', value: formatInt(s.tx_total), testid: 'tx-total' },
      { label: 'volume, all time', value: formatUsd(s.volume_total) },
      { label: 'buyers, 30 days', value: formatInt(s.unique_buyers_30d) },
      { label: 'real share of volume', value: formatPct(s.real_volume_pct) },
      { label: 'wash share of volume', value: formatPct(s.wash_pct) },
    ]) +
    healthSection(health) +
    '<section aria-labelledby="h-daily"><h2 id="h-daily">Last 30 days</h2>' +
    chart(txSvg, 'Transactions per day (UTC).', 'chart-service-tx') +
    chart(volumeSvg, 'Volume per day in USDC (UTC).', 'chart-service-volume') +
    '<details><summary>The series as a table</summary><table data-testid="daily-series"><thead><tr><th scope="col">Day</th>' +
    '<th scope="col" class="num">Transactions</th><th scope="col" class="num">Volume</th><th scope="col" class="num">Buyers</th><th scope="col" class="num">Real %</th></tr></thead>' +
    `<tbody>${dailyRows}</tbody></table></details></section>` +
    `<section aria-labelledby="h-labels"><h2 id="h-labels">Who pays</h2>${labelDistribution(s.label_distribution)}</section>` +
    operatorSection(id, operator) +
    `<section aria-labelledby="h-buyers"><h2 id="h-buyers">Top buyers, last 30 days</h2>${topBuyers(buyers)}</section>` +
    `<section aria-labelledby="h-more"><h2 id="h-more">More about this service</h2>${offersTable(id, offers)}</section>`
  );
}

/** Writes services/<id>.html for every service of the build's snapshot; returns how many. */
export async function writeServicePages(outDir: string): Promise<number> {
  const shellPath = join(outDir, SHELL_DIR, 'index.html');
  const { parts } = parseShell(readFileSync(shellPath, 'utf8'));
  const ids = await serviceIds();
  const operators = await operatorsBySeller();
  const health = await serviceHealthById();
  for (const id of ids) {
    const detail = await serviceDetail(id);
    if (!detail) throw new Error(`service ${id} has no detail row`);
    const s = detail.service;
    const html =
      parts[0] +
      escapeHtml(s.name) +
      parts[1] +
      escapeHtml(s.description || `x402 service ${s.name}`) +
      parts[2] +
      serviceMainHtml(id, detail, serviceOffers(id), operators.get(detail.service.seller_address), health.get(id)) +
      parts[3];
    // Synchronous writes: one file each, no directory per page (see astro.config.mjs), about 50 µs apiece here.
    writeFileSync(join(outDir, 'services', `${id}.html`), html);
  }
  rmSync(join(outDir, SHELL_DIR), { recursive: true });
  return ids.length;
}
