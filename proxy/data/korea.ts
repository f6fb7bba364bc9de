/**
 * Data handlers of the korea market endpoints (catalog/korea.ts), answered from one snapshot
 * version. The pipeline publishes each answer already computed; a handler only picks it:
 *
 * - kimchi-premium slices the one document of all symbols by `symbol`;
 * - kr-prices filters the kr-prices table (a few hundred rows, read once per version) by symbol
 *   and exchange;
 * - stats adds every dataset's age and carry-over state from the manifest at request time;
 * - the others serve their document as published.
 *
 * - the divergence endpoints slice the divergence document by symbol: the light tier leaves out
 *   the news signals and the analysis;
 * - the news endpoints take the newest `limit` articles of their topic's document, and the summary
 *   variants add the summary the pipeline wrote for exactly those articles.
 *
 * Every paid handler has a precheck, so nobody pays for a 404 (symbol not listed, no global
 * price) or a 503 (dataset missing from the snapshot; for kimchi-premium, no current premium
 * because the symbol's inputs were too far apart in time).
 */
import type { KoreaDocuments } from '../../catalog/korea.ts';
import { absenceReason, type LoadedDataset, type LoadedSnapshot } from '../../snapshots/reader.ts';
import { queryRows } from './duck.ts';
import { notAvailable, notFound, type DataHandler, type DataHandlers, type DataRequest, type DataResult } from './types.ts';

type Doc = Record<string, unknown>;

function missing(snapshot: LoadedSnapshot, dataset: string): DataResult {
  return notAvailable(
    `The "${dataset}" dataset is not in snapshot ${snapshot.version}: ${absenceReason(snapshot, dataset)}. Try again after the next update.`,
  );
}

function datasetOf(req: DataRequest, dataset: string): LoadedDataset | DataResult {
  return req.snapshot.datasets.get(dataset) ?? missing(req.snapshot, dataset);
}

/**
 * A dataset's document, typed by its catalog schema (KOREA_DATASET_SHAPES): the writer published
 * it only after it parsed with that schema.
 */
function documentOf<N extends keyof KoreaDocuments>(req: DataRequest, dataset: N): KoreaDocuments[N] | DataResult {
  const loaded = req.snapshot.datasets.get(dataset);
  if (!loaded || typeof loaded.document !== 'object' || loaded.document === null) return missing(req.snapshot, dataset);
  return loaded.document as KoreaDocuments[N];
}

const isResult = (value: unknown): value is DataResult =>
  typeof value === 'object' && value !== null && 'status' in value && typeof (value as { status: unknown }).status === 'number';

const ok = (body: Doc): DataResult => ({ status: 200, body });

/**
 * A handler that finds what it answers from first (in the precheck too, so a 404 or 503 costs no
 * payment), then answers from it.
 */
function sliceHandler<T>(
  find: (req: DataRequest) => T | DataResult,
  answer: (found: T, req: DataRequest) => Doc | DataResult,
): DataHandler {
  return {
    precheck(req) {
      const found = find(req);
      return isResult(found) ? found : null;
    },
    async handle(req) {
      const found = find(req);
      if (isResult(found)) return found;
      const body = answer(found, req);
      return isResult(body) ? body : ok(body);
    },
  };
}

/** An endpoint that serves its dataset's document as published. */
function documentHandler(dataset: keyof KoreaDocuments): DataHandler {
  return sliceHandler(
    (req) => documentOf(req, dataset),
    (doc) => doc,
  );
}

const symbolOf = (req: DataRequest): string => String(req.query.symbol ?? 'BTC').toUpperCase();

// ------------------------------------------------------------------ kimchi-premium

type KimchiDocument = KoreaDocuments['kimchi-premium'];

function kimchiEntry(req: DataRequest): { doc: KimchiDocument; entry: KimchiDocument['by_symbol'][string] } | DataResult {
  const doc = documentOf(req, 'kimchi-premium');
  if (isResult(doc)) return doc;
  const symbol = symbolOf(req);
  const entry = doc.by_symbol[symbol];
  if (entry) return { doc, entry };
  // Listed and priced, but the inputs of its premium are too far apart in time: no premium to sell.
  const stale = doc.stale.filter((s) => s.symbol === symbol);
  if (stale.length) {
    return notAvailable(
      `No current kimchi premium for ${symbol} in snapshot ${req.snapshot.version}: ${stale.map((s) => `${s.exchange}: ${s.reason}`).join('; ')}. Try again after the next update.`,
    );
  }
  if (doc.no_global_price.includes(symbol)) {
    const hint =
      symbol === 'USDT' || symbol === 'USDC' ? ' Its premium against the official USD/KRW rate is at /api/v1/stablecoin-premium.' : '';
    return notFound(
      `${symbol} trades on a Korean exchange but has no global reference price (no Binance or OKX market), so it has no kimchi premium.${hint}`,
    );
  }
  return notFound(`No Korean exchange (Upbit, Bithumb) lists ${symbol}; /api/v1/symbols lists every symbol with a KRW market.`);
}

const kimchiPremium: DataHandler = sliceHandler(kimchiEntry, ({ doc, entry }) => ({
  source: doc.source,
  as_of: doc.as_of,
  symbol: entry.symbol,
  korean_name: entry.korean_name,
  fx_rate: doc.fx_rate,
  fx_source: doc.fx_source,
  fx_as_of: doc.fx_as_of,
  global_price_usd: entry.global_price_usd,
  global_source: entry.global_source,
  exchanges: entry.exchanges,
  // an exchange down for the whole run, or whose price for this symbol was too far in time from the other inputs
  unavailable_exchanges: [...doc.unavailable_exchanges, ...entry.stale_exchanges],
}));

// ------------------------------------------------------------------ kr-prices

interface PriceRow {
  symbol: string;
  exchange: string;
  price_krw: number;
  change_24h_pct: number;
  volume_24h_krw: number;
  as_of: string;
}

/** The kr-prices table of one snapshot version, read once (it holds one row per market). */
const priceTables = new WeakMap<LoadedDataset, Promise<PriceRow[]>>();

function pricesOf(dataset: LoadedDataset): Promise<PriceRow[]> {
  let rows = priceTables.get(dataset);
  if (!rows) {
    rows = queryRows(
      `SELECT symbol, exchange, price_krw, change_24h_pct, volume_24h_krw, strftime(as_of, '%Y-%m-%dT%H:%M:%SZ') AS as_of
         FROM read_parquet($path)
        ORDER BY symbol, list_position(['upbit', 'bithumb'], exchange)`,
      { path: dataset.path },
    ).then((r) => r as unknown as PriceRow[]);
    priceTables.set(dataset, rows);
    rows.catch(() => priceTables.delete(dataset));
  }
  return rows;
}

async function pricesFor(req: DataRequest): Promise<{ dataset: LoadedDataset; prices: PriceRow[] } | DataResult> {
  const dataset = datasetOf(req, 'kr-prices');
  if (isResult(dataset)) return dataset;
  const symbol = symbolOf(req);
  const exchange = String(req.query.exchange ?? 'all');
  const listed = (await pricesOf(dataset)).filter((r) => r.symbol === symbol);
  if (listed.length === 0) {
    return notFound(`No Korean exchange (Upbit, Bithumb) lists ${symbol}; /api/v1/symbols lists every symbol with a KRW market.`);
  }
  const prices = exchange === 'all' ? listed : listed.filter((r) => r.exchange === exchange);
  if (prices.length === 0) {
    return notFound(`${symbol} has no KRW market on ${exchange}; it trades on ${listed.map((r) => r.exchange).join(' and ')}.`);
  }
  return { dataset, prices };
}

const krPrices: DataHandler = {
  async precheck(req) {
    const found = await pricesFor(req);
    return isResult(found) ? found : null;
  },
  async handle(req) {
    const found = await pricesFor(req);
    if (isResult(found)) return found;
    return ok({
      source: found.dataset.entry.source,
      as_of: found.dataset.entry.as_of,
      symbol: symbolOf(req),
      exchange: String(req.query.exchange ?? 'all'),
      prices: found.prices.map((r) => ({
        exchange: r.exchange,
        symbol: r.symbol,
        price_krw: r.price_krw,
        change_24h_pct: r.change_24h_pct,
        volume_24h_krw: r.volume_24h_krw,
        as_of: r.as_of,
      })),
    });
  },
};

// ------------------------------------------------------------------ divergence

type DivergenceDocument = KoreaDocuments['divergence'];

function divergenceEntry(req: DataRequest): { doc: DivergenceDocument; entry: DivergenceDocument['by_symbol'][string] } | DataResult {
  const doc = documentOf(req, 'divergence');
  if (isResult(doc)) return doc;
  const symbol = symbolOf(req);
  const entry = doc.by_symbol[symbol];
  if (entry) return { doc, entry };
  const reason = doc.unavailable[symbol];
  return notFound(
    `No divergence for ${symbol} in this snapshot: ${reason ?? 'it was not computed'}. /api/v1/symbols lists which of the 25 symbols Korean exchanges list.`,
  );
}

function divergenceHandler(tier: 'light' | 'deep'): DataHandler {
  return sliceHandler(divergenceEntry, ({ doc, entry }) => ({
    source: doc.source,
    as_of: doc.as_of,
    symbol: entry.symbol,
    global_price_usd: entry.global_price_usd,
    global_source: entry.global_source,
    fx_rate: entry.fx_rate,
    exchanges: entry.exchanges,
    divergence_pct: entry.divergence_pct,
    summary: entry.summary,
    analyst: doc.analyst,
    model: doc.model,
    ...(tier === 'deep' ? { news_signals: entry.news_signals, analysis: entry.analysis } : {}),
  }));
}

// ------------------------------------------------------------------ news

function newsHandler(dataset: 'kr-news-kpop' | 'kr-news-semiconductor', withSummary: boolean): DataHandler {
  return sliceHandler(
    (req) => documentOf(req, dataset),
    (doc, req) => {
      const limit = Number(req.query.limit ?? 5);
      const articles = doc.articles.slice(0, limit);
      const body: Doc = {
        source: doc.source,
        as_of: doc.as_of,
        topic: doc.topic,
        count: articles.length,
        articles,
        analyst: doc.analyst,
        model: doc.model,
      };
      if (!withSummary) return body;
      const summary = doc.summaries[String(articles.length)];
      if (!summary)
        return notAvailable(
          `The summary of the newest ${articles.length} articles is not in snapshot ${req.snapshot.version}. Try again after the next update.`,
        );
      return { ...body, ...summary };
    },
  );
}

// ------------------------------------------------------------------ stats

const stats: DataHandler = {
  async handle(req) {
    const doc = documentOf(req, 'stats');
    if (isResult(doc)) return doc;
    const { manifest } = req.snapshot;
    const now = req.now.getTime();
    return ok({
      source: doc.source,
      as_of: doc.as_of,
      coverage: doc.coverage,
      datasets: manifest.datasets.map((d) => ({
        name: d.name,
        as_of: d.as_of,
        age_seconds: Math.max(0, Math.floor((now - Date.parse(d.as_of)) / 1000)),
        rows: d.rows,
        source: d.source,
        produced_in: d.produced_in,
        carried_over_reason: d.carried_over?.reason ?? null,
      })),
      snapshot: { version: req.snapshot.version, generated_at: manifest.generated_at },
    });
  },
};

export const koreaHandlers: DataHandlers = {
  symbols: documentHandler('symbols'),
  stats,
  'kimchi-premium': kimchiPremium,
  'stablecoin-premium': documentHandler('stablecoin-premium'),
  'kr-prices': krPrices,
  'fx-rate': documentHandler('fx-rate'),
  'arbitrage-scanner': documentHandler('arbitrage-scanner'),
  'exchange-alerts': documentHandler('exchange-alerts'),
  'market-movers': documentHandler('market-movers'),
  'krw-macro-stress': documentHandler('krw-macro-stress'),
  'kr-sentiment': documentHandler('kr-sentiment'),
  'market-read': documentHandler('market-read'),
  'global-vs-korea-divergence': divergenceHandler('light'),
  'global-vs-korea-divergence-deep': divergenceHandler('deep'),
  'kr-news-kpop': newsHandler('kr-news-kpop', false),
  'kr-news-kpop-summary': newsHandler('kr-news-kpop', true),
  'kr-news-semiconductor': newsHandler('kr-news-semiconductor', false),
  'kr-news-semiconductor-summary': newsHandler('kr-news-semiconductor', true),
};
