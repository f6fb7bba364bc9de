/**
 * The korea service's `/` for people: the root is a JSON document by the specification, so a
 * browser (Accept preferring text/html) gets this page instead and every other client keeps the
 * JSON (the answer varies by Accept). What the service sells with prices, the free endpoints,
 * how fresh the data is and whether it is demo, how to pay, and the machine-readable documents.
 * Endpoints, prices and networks come from the catalog; freshness from the snapshot served.
 */
import { endpointsOf, SERVICE_INFO, xrplPath } from '../catalog/index.ts';
import { findDataset } from '../catalog/datasets.ts';
import type { EndpointDecl } from '../catalog/types.ts';
import type { Settings } from '../lib/config.ts';
import type { LoadedSnapshot } from '../snapshots/reader.ts';
import { operationAnchor } from './docs-page.ts';
import { escapeHtml, freshnessHtml, markdownHtml, markdownInline, pageHtml, plainText, timeHtml } from './html-page.ts';
import { freshnessOf, type ProductState, productState } from './product-status.ts';

export interface KoreaLandingContext {
  baseUrl: string;
  snapshot: LoadedSnapshot | null;
  /** Endpoint ids this build has a data handler for. */
  handled: ReadonlySet<string>;
  settlement: Settings['settlement'];
  now: Date;
  /** The free daily preview's section (charts, downloads; proxy/korea-daily-charts.ts), or null when the snapshot has none. */
  dailyPreview?: string | null;
}

/**
 * How the page groups what is for sale, by endpoint id. A paid endpoint the catalog adds later
 * and this list does not name still shows, under "More data".
 */
const SALES_GROUPS: ReadonlyArray<{ title: string; blurb: string; ids: readonly string[] }> = [
  {
    title: 'Prices, premiums and FX',
    blurb:
      'Upbit, Bithumb, Coinone and Korbit KRW prices, the kimchi premium and the Korea premium index against the global price, its archive, the stablecoin premium and USD/KRW.',
    ids: ['kimchi-premium', 'kimchi-premium-history', 'kimchi-premium-stats', 'stablecoin-premium', 'kr-prices', 'fx-rate'],
  },
  {
    title: 'Market scans',
    blurb:
      'Every token at once: arbitrage gaps, the premium you can execute at a size (order books, fees, wallets), exchange notices and warnings, and the fastest movers.',
    ids: ['arbitrage-scanner', 'arbitrage-executable', 'exchange-alerts', 'market-movers'],
  },
  {
    title: 'AI analysis',
    blurb:
      'Sentiment, a market read, the KRW macro stress score and the global-vs-Korea divergence, written by the analyst named in each answer.',
    ids: ['kr-sentiment', 'market-read', 'krw-macro-stress', 'global-vs-korea-divergence', 'global-vs-korea-divergence-deep'],
  },
  {
    title: 'Korean news in English',
    blurb: 'K-pop and semiconductor-industry news translated to English, as lists or with an AI summary.',
    ids: ['kr-news-kpop', 'kr-news-kpop-summary', 'kr-news-semiconductor', 'kr-news-semiconductor-summary'],
  },
];

function stateCell(state: ProductState): string {
  if (state.kind === 'unavailable')
    return `<span class="badge unavailable">unavailable</span> <span class="type">${escapeHtml(state.reason)}</span>`;
  if (state.kind === 'stale') return `<span class="badge stale">stale</span> <span class="type">${escapeHtml(state.reason)}</span>`;
  return '<span class="free">available</span>';
}

const parameterNames = (e: EndpointDecl): string[] => [...Object.keys(e.pathParams?.shape ?? {}), ...Object.keys(e.query?.shape ?? {})];

function paidTable(endpoints: EndpointDecl[], ctx: KoreaLandingContext): string {
  const rows = endpoints.map((e) => {
    const params = parameterNames(e);
    return (
      `<tr><td><a href="/docs#${operationAnchor(e.id)}"><code>${escapeHtml(e.path)}</code></a><br>` +
      `<span class="type">XRPL: <a href="/docs#${operationAnchor(`${e.id}.xrpl`)}">${escapeHtml(xrplPath(e.path))}</a></span></td>` +
      `<td>${markdownInline(e.summary)}</td><td>${params.length ? params.map((p) => `<code>${escapeHtml(p)}</code>`).join(', ') : 'none'}</td>` +
      `<td class="num">${escapeHtml(e.priceUsd ?? '')}</td><td>${stateCell(productState(e, ctx.snapshot, ctx.handled, ctx.now))}</td></tr>`
    );
  });
  return (
    '<table><thead><tr><th scope="col">Endpoint</th><th scope="col">Returns</th><th scope="col">Parameters</th>' +
    `<th scope="col">USD per call</th><th scope="col">Now</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

function salesHtml(ctx: KoreaLandingContext): string {
  const paid = endpointsOf('korea').filter((e) => e.access === 'paid');
  const named = new Set(SALES_GROUPS.flatMap((g) => g.ids));
  const groups = [
    ...SALES_GROUPS.map((g) => ({ ...g, endpoints: g.ids.flatMap((id) => paid.filter((e) => e.id === id)) })),
    { title: 'More data', blurb: '', ids: [], endpoints: paid.filter((e) => !named.has(e.id)) },
  ].filter((g) => g.endpoints.length > 0);
  return groups
    .map((g) => {
      const slug = `sells-${g.title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
      return `<section aria-labelledby="${slug}"><h3 id="${slug}">${escapeHtml(g.title)}</h3>${g.blurb ? `<p>${escapeHtml(g.blurb)}</p>` : ''}${paidTable(g.endpoints, ctx)}</section>`;
    })
    .join('');
}

function freeHtml(): string {
  const rows = endpointsOf('korea')
    .filter((e) => e.access === 'free')
    .map(
      (e) =>
        `<tr><td><a href="${escapeHtml(e.path)}"><code>${escapeHtml(e.path)}</code></a></td><td>${markdownInline(e.summary)}</td></tr>`,
    );
  return `<table><thead><tr><th scope="col">Endpoint</th><th scope="col">Returns</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function datasetsHtml(snapshot: LoadedSnapshot | null): string {
  if (!snapshot) return '';
  const rows = snapshot.manifest.datasets.map((d) => {
    const decl = findDataset('korea', d.name);
    const status = d.carried_over ? `<span class="stale">carried over: ${escapeHtml(d.carried_over.reason)}</span>` : 'updated in this run';
    return (
      `<tr><td><code>${escapeHtml(d.name)}</code></td><td>${timeHtml(d.as_of)}</td><td>${escapeHtml(d.source)}</td>` +
      `<td class="num">${decl ? escapeHtml(everyText(decl.updateEverySeconds)) : ''}</td><td>${status}</td></tr>`
    );
  });
  return (
    '<details><summary>Every dataset of the snapshot served</summary><table><thead><tr><th scope="col">Dataset</th><th scope="col">As of</th>' +
    `<th scope="col">Source</th><th scope="col">Updated every</th><th scope="col">Last run</th></tr></thead><tbody>${rows.join('')}</tbody></table></details>`
  );
}

function everyText(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

function howToPayHtml(ctx: KoreaLandingContext): string {
  const networks = SERVICE_INFO.korea.networks
    .map(
      (n) =>
        `<li><strong>${escapeHtml(n.network)}</strong> (<code>${escapeHtml(n.caip2)}</code>): ${escapeHtml(n.asset)}${n.xrplVariantsOnly ? ', on the <code>/api/v1/xrpl/…</code> paths' : ''}</li>`,
    )
    .join('');
  const example = endpointsOf('korea').find((e) => e.access === 'paid')?.path ?? '/api/v1/kimchi-premium';
  const settlement =
    ctx.settlement === 'local'
      ? '<p class="state-note stale">This instance runs with <code>SETTLEMENT=local</code>: payments are verified in full but no funds move (receipts say so).</p>'
      : '';
  return (
    `<p>No accounts or API keys: every paid call is paid with <a href="https://www.x402.org/">x402</a>. Networks:</p><ul>${networks}</ul>${settlement}` +
    '<ol><li>Call the endpoint. Without payment it answers <strong>402</strong> with the offers (JSON body, and the <code>PAYMENT-REQUIRED</code> header).</li>' +
    '<li>Sign one offer and repeat the request with the <code>X-PAYMENT</code> or <code>PAYMENT-SIGNATURE</code> header; any x402 client does this. ' +
    `From this project: <code>npm run pay -- ${escapeHtml(ctx.baseUrl + example)}</code>.</li>` +
    '<li>The 200 carries the data and a signed receipt, verifiable with the key in <a href="/.well-known/x402">/.well-known/x402</a>.</li></ol>' +
    `<p>Agents: the MCP server at <code>${escapeHtml(ctx.baseUrl)}/mcp</code> (streamable HTTP) has a tool per product; paid tools take the payment in <code>_meta["x402/payment"]</code>. ` +
    'The <a href="/docs">API reference</a> has a try-it form on every endpoint that shows the 402 decoded.</p>'
  );
}

/** The page's contents, in the sidebar the API reference has too: its sections and every product group. */
function contentsHtml(ctx: KoreaLandingContext): string {
  const groups = [...salesHtml(ctx).matchAll(/<h3 id="([^"]+)">([^<]+)<\/h3>/g)]
    .map(([, id, title]) => `<li><a href="#${id}">${title}</a></li>`)
    .join('');
  return (
    '<nav class="toc" aria-label="Contents"><h2>On this page</h2><ul>' +
    (ctx.dailyPreview ? '<li><a href="#preview">Free daily Korea premium</a></li>' : '') +
    `<li><a href="#sells">What the service sells</a><ul>${groups}</ul></li>` +
    '<li><a href="#free">Free endpoints</a></li><li><a href="#freshness">Data freshness</a></li><li><a href="#pay">How to pay</a></li></ul>' +
    '<h2>Documents</h2><ul><li><a href="/docs">API reference</a></li><li><a href="/openapi.json">OpenAPI 3.1</a></li>' +
    '<li><a href="/.well-known/x402">x402 manifest</a></li><li><a href="/llms.txt">llms.txt</a></li><li><a href="/health">health</a></li></ul></nav>'
  );
}

export function koreaLandingHtml(ctx: KoreaLandingContext): string {
  const info = SERVICE_INFO.korea;
  const freshness = freshnessOf(ctx.snapshot);
  // the layout of /docs: a header, a contents sidebar beside the page (stacked on a phone)
  const body =
    `<header class="top"><h1>${escapeHtml(info.title)}</h1>${freshnessHtml(freshness)}` +
    '<p class="links"><a href="/docs">API reference</a> <a href="/openapi.json">OpenAPI 3.1</a> ' +
    '<a href="/.well-known/x402">x402 manifest</a> <a href="/llms.txt">llms.txt</a> <a href="/health">health</a> ' +
    `MCP: <code>${escapeHtml(ctx.baseUrl)}/mcp</code></p></header>` +
    `<div class="layout">${contentsHtml(ctx)}<main>` +
    `<div class="desc">${markdownHtml(info.description)}</div>` +
    (ctx.dailyPreview
      ? `<section aria-labelledby="preview"><h2 id="preview">Free daily Korea premium</h2>${ctx.dailyPreview}</section>`
      : '') +
    `<section aria-labelledby="sells"><h2 id="sells">What the service sells</h2><p>Prices in USD per call, the same on every network; every product is also sold under <code>/api/v1/xrpl/…</code> for RLUSD on XRPL.</p>${salesHtml(ctx)}</section>` +
    `<section aria-labelledby="free"><h2 id="free">Free endpoints</h2>${freeHtml()}</section>` +
    `<section aria-labelledby="freshness"><h2 id="freshness">Data freshness</h2>${
      freshness
        ? `<p>The snapshot served holds <strong>${freshness.source === 'demo' ? 'demo data (synthetic, for trying the service)' : `${escapeHtml(freshness.source)} data`}</strong>, as of ${timeHtml(freshness.asOf)}; the next update is expected at ${timeHtml(freshness.nextUpdate)}. Every answer carries its own <code>source</code> and <code>as_of</code>.</p>`
        : '<p>No snapshot is published yet: the data endpoints answer 503 until the first pipeline run.</p>'
    }${datasetsHtml(ctx.snapshot)}</section>` +
    `<section aria-labelledby="pay"><h2 id="pay">How to pay</h2>${howToPayHtml(ctx)}</section>` +
    '</main></div>';
  return pageHtml({ title: info.title, description: plainText(info.description), body });
}
